#include "pipeline/runtime/dead_letter_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace cdcd {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
    throw std::runtime_error("dead-letter file " + path + ": " + what + ": " +
                             std::strerror(errno));
}

}  // namespace

DeadLetterFile::DeadLetterFile(std::string path) : path_(std::move(path)) {}

DeadLetterFile::~DeadLetterFile() {
    if (fd_ >= 0) ::close(fd_);
}

void DeadLetterFile::start_fresh() {
    std::filesystem::path p(path_);
    if (p.has_parent_path()) {
        std::error_code ec;
        std::filesystem::create_directories(p.parent_path(), ec);
        if (ec)
            throw std::runtime_error("dead-letter file " + path_ +
                                     ": cannot create its directory: " + ec.message());
    }
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) fail("cannot open", path_);
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail("cannot stat", path_);
    length_ = static_cast<std::uint64_t>(st.st_size);
    if (::lseek(fd_, static_cast<off_t>(length_), SEEK_SET) < 0) fail("cannot seek", path_);
}

void DeadLetterFile::restore(std::string_view state) {
    std::uint64_t length = 0;
    auto [ptr, ec] = std::from_chars(state.data(), state.data() + state.size(), length);
    if (ec != std::errc() || ptr != state.data() + state.size())
        throw std::runtime_error("dead-letter file " + path_ + ": unreadable checkpoint state");
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0)
        fail("the checkpoint says it holds " + std::to_string(length) +
                 " committed bytes, but it cannot be opened (restore it, or start over with "
                 "--reset-state)",
             path_);
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail("cannot stat", path_);
    if (static_cast<std::uint64_t>(st.st_size) < length)
        throw std::runtime_error("dead-letter file " + path_ + ": the checkpoint says it holds " +
                                 std::to_string(length) + " committed bytes, but it has " +
                                 std::to_string(st.st_size) +
                                 "; it was replaced or cut short (restore it, or start over "
                                 "with --reset-state)");
    if (::ftruncate(fd_, static_cast<off_t>(length)) != 0) fail("cannot truncate", path_);
    if (::lseek(fd_, static_cast<off_t>(length), SEEK_SET) < 0) fail("cannot seek", path_);
    length_ = length;
}

std::string DeadLetterFile::commit(std::string_view lines) {
    const char* p = lines.data();
    std::size_t left = lines.size();
    while (left > 0) {
        ssize_t n = ::write(fd_, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("cannot write", path_);
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    length_ += lines.size();
    if (!lines.empty() && ::fdatasync(fd_) != 0) fail("cannot sync", path_);
    return std::to_string(length_);
}

}  // namespace cdcd
