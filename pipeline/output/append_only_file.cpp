#include "pipeline/output/append_only_file.h"

#include <fcntl.h>
#include <simdjson.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>

#include "pipeline/util/crc32c.h"
#include "pipeline/util/json_escape.h"
#include "text/utf8.h"

namespace cdcd::output {

namespace {

constexpr std::string_view kStateFormat = "append-only-file/1";

[[noreturn]] void fail_errno(const std::string& what, const std::string& path) {
    throw OutputFileError("output file " + path + ": " + what + ": " + std::strerror(errno));
}

/// What a checkpoint says about the file: identity and committed prefix. `legacy`: an older
/// cdcd stored the length alone.
struct SavedState {
    bool legacy = false;
    std::string path;  // absolute, as it was when the checkpoint was taken
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::uint64_t length = 0;
    std::uint32_t tail_crc32c = 0;

    std::string describe() const {
        if (legacy)
            return std::to_string(length) +
                   " bytes committed; a state from an older cdcd, without the file's identity";
        return std::to_string(length) + " bytes committed to inode " + std::to_string(inode) +
               " on device " + std::to_string(device) + ", written as " + path;
    }
};

std::optional<std::uint64_t> parse_decimal(std::string_view text) {
    std::uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

SavedState parse_state(const std::string& path, std::string_view text) {
    SavedState saved;
    if (auto length = parse_decimal(text)) {
        saved.legacy = true;
        saved.length = *length;
        return saved;
    }
    auto unreadable = [&](std::string_view why) {
        return OutputFileError("output file " + path + ": unreadable checkpoint state (" +
                               std::string(why) + "): " + std::string(text.substr(0, 200)));
    };
    simdjson::dom::parser parser;
    simdjson::dom::object object;
    if (parser.parse(text.data(), text.size()).get(object) != simdjson::SUCCESS)
        throw unreadable("not a JSON object");
    std::string_view format;
    if (object["format"].get(format) != simdjson::SUCCESS || format != kStateFormat)
        throw unreadable("format is not " + std::string(kStateFormat));
    std::string_view saved_path;
    std::uint64_t crc = 0;
    if (object["path"].get(saved_path) != simdjson::SUCCESS ||
        object["device"].get(saved.device) != simdjson::SUCCESS ||
        object["inode"].get(saved.inode) != simdjson::SUCCESS ||
        object["length"].get(saved.length) != simdjson::SUCCESS ||
        object["tail_crc32c"].get(crc) != simdjson::SUCCESS || crc > 0xFFFFFFFFu)
        throw unreadable("path, device, inode, length or tail_crc32c missing or malformed");
    saved.path = saved_path;
    saved.tail_crc32c = static_cast<std::uint32_t>(crc);
    return saved;
}

/// The path as UTF-8 for the state (a JSON string): it is only shown in messages, so bytes that are
/// not UTF-8 become U+FFFD rather than making the state unreadable.
std::string utf8_path(std::string_view path) {
    std::string out;
    for (std::size_t i = 0; i < path.size();) {
        std::size_t len = 1;
        std::int32_t c = utf8::decode(path, i, len);
        if (c < 0) {
            utf8::append(out, U'\uFFFD');
        } else {
            out.append(path.substr(i, len));
        }
        i += len;
    }
    return out;
}

std::string absolute(const std::string& path) {
    std::error_code ec;
    auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

/// Makes the file's directory entry durable: a crash right after creating the file must not
/// lose the file that the next checkpoint names.
void sync_directory_of(const std::string& path) {
    auto dir = std::filesystem::path(path).parent_path();
    std::string dir_name = dir.empty() ? "." : dir.string();
    int fd = ::open(dir_name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) fail_errno("cannot open its directory " + dir_name + " to sync it", path);
    int rc = ::fsync(fd);
    int saved_errno = errno;
    ::close(fd);
    errno = saved_errno;
    if (rc != 0) fail_errno("cannot sync its directory " + dir_name, path);
}

struct stat stat_of(int fd, const std::string& path) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail_errno("cannot stat", path);
    if (!S_ISREG(st.st_mode))
        throw OutputFileError("output file " + path + " is not a regular file");
    return st;
}

std::string read_at(int fd, const std::string& path, std::uint64_t offset, std::uint64_t size) {
    std::string out(size, '\0');
    std::uint64_t done = 0;
    while (done < size) {
        ssize_t n = ::pread(fd, out.data() + done, size - done, static_cast<off_t>(offset + done));
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_errno("cannot read", path);
        }
        if (n == 0) break;
        done += static_cast<std::uint64_t>(n);
    }
    out.resize(done);
    return out;
}

constexpr std::string_view kLeftUntouched = " The file was left untouched.";

std::string how_to_proceed(const std::string& path) {
    return " To proceed: put the file the checkpoint describes back at " + path +
           ", or start over with --reset-state, or write to another path.";
}

/// One writer per file: two pipelines given the same path would each write at their own offsets,
/// over each other's rows. The lock (flock) lasts as long as the file stays open.
void lock_for_writing(int fd, const std::string& path) {
    int rc;
    do {
        rc = ::flock(fd, LOCK_EX | LOCK_NB);
    } while (rc != 0 && errno == EINTR);
    if (rc == 0) return;
    if (errno == EWOULDBLOCK)
        throw OutputFileError("output file " + path +
                              " is being written by another process (another pipeline given the "
                              "same path?): two writers would overwrite each other's rows." +
                              std::string(kLeftUntouched) +
                              " To proceed: give each pipeline a path of its own.");
    spdlog::warn("output file {}: cannot lock it ({}): a second writer of it would go unnoticed",
                 path, std::strerror(errno));
}

/// After a commit's sync: the file cdcd writes is still the one at `path`, whole. One deleted,
/// moved away, replaced or truncated while cdcd wrote it has taken the rows since the last
/// checkpoint with it (or left zeros where they were): the commit fails instead of recording
/// them, so no checkpoint covers them and a restart from the last one writes them again.
void check_still_at_path(int fd, const std::string& path, std::uint64_t device, std::uint64_t inode,
                         std::uint64_t length, std::uint64_t written_from) {
    struct stat own {};
    if (::fstat(fd, &own) != 0) fail_errno("cannot stat", path);
    const std::string written = " (inode " + std::to_string(inode) + " on device " +
                                std::to_string(device) + ", " + std::to_string(length) +
                                " bytes written)";
    auto fail = [&](const std::string& what) {
        throw OutputFileError("output file " + path + written + " " + what +
                              " while cdcd wrote it: the rows since the last checkpoint are not "
                              "in it, so this checkpoint is not taken." +
                              how_to_proceed(path));
    };
    if (own.st_nlink == 0) fail("was deleted");
    struct stat at_path {};
    if (::stat(path.c_str(), &at_path) != 0) {
        if (errno == ENOENT) fail("was moved away");
        fail_errno("cannot stat", path);
    }
    if (static_cast<std::uint64_t>(at_path.st_dev) != device ||
        static_cast<std::uint64_t>(at_path.st_ino) != inode)
        fail("was replaced by another file (inode " + std::to_string(at_path.st_ino) + ")");
    if (static_cast<std::uint64_t>(own.st_size) < length)
        fail("was truncated to " + std::to_string(own.st_size) + " bytes");
    // Truncated, then written on past where it was cut (a copytruncate): no data where this run
    // began writing (found on file systems that report holes). One lookup at that byte: a
    // search for the first hole would walk the whole file on tmpfs at every checkpoint.
    if (written_from < length) {
        const off_t data = ::lseek(fd, static_cast<off_t>(written_from), SEEK_DATA);
        if ((data < 0 && errno == ENXIO) ||
            (data >= 0 && static_cast<std::uint64_t>(data) != written_from))
            fail("was truncated (no data at byte " + std::to_string(written_from) + ")");
    }
}

}  // namespace

AppendOnlyFile::AppendOnlyFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

AppendOnlyFile::AppendOnlyFile(AppendOnlyFile&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      device_(other.device_),
      inode_(other.inode_),
      length_(other.length_),
      writeback_from_(other.writeback_from_),
      written_from_(other.written_from_),
      tail_(std::move(other.tail_)) {}

AppendOnlyFile& AppendOnlyFile::operator=(AppendOnlyFile&& other) noexcept {
    if (this == &other) return *this;
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    device_ = other.device_;
    inode_ = other.inode_;
    length_ = other.length_;
    writeback_from_ = other.writeback_from_;
    written_from_ = other.written_from_;
    tail_ = std::move(other.tail_);
    return *this;
}

AppendOnlyFile::~AppendOnlyFile() {
    if (fd_ >= 0) ::close(fd_);
}

AppendOnlyFile AppendOnlyFile::open_fresh(const std::string& path, IfExists if_exists,
                                          std::string_view if_exists_option) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    bool created = fd >= 0;
    if (!created) {
        if (errno != EEXIST) fail_errno("cannot create", path);
        fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0) fail_errno("cannot open", path);
    }
    AppendOnlyFile file(path, fd);
    lock_for_writing(fd, path);
    struct stat st = stat_of(fd, path);
    file.device_ = static_cast<std::uint64_t>(st.st_dev);
    file.inode_ = static_cast<std::uint64_t>(st.st_ino);
    auto size = static_cast<std::uint64_t>(st.st_size);
    if (created) {
        sync_directory_of(path);
    } else if (size > 0) {
        switch (if_exists) {
            case IfExists::Fail:
                throw OutputFileError(
                    "output file " + path + " already exists and is not empty (" +
                    std::to_string(size) +
                    " bytes), and no checkpoint of this pipeline says cdcd wrote it." +
                    std::string(kLeftUntouched) + " To proceed: set " +
                    std::string(if_exists_option) +
                    " to append (write after its content) or overwrite (replace its content), "
                    "or move the file away, or write to another path.");
            case IfExists::Append:
                file.length_ = size;
                file.written_from_ = size;
                file.load_tail();
                spdlog::info("output file {}: appending after its {} existing bytes", path, size);
                break;
            case IfExists::Overwrite:
                if (::ftruncate(fd, 0) != 0) fail_errno("cannot truncate", path);
                spdlog::info("output file {}: overwriting its {} existing bytes", path, size);
                break;
        }
    }
    return file;
}

AppendOnlyFile AppendOnlyFile::resume(const std::string& path, std::string_view state) {
    SavedState saved = parse_state(path, state);
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            throw OutputFileError(
                "output file " + path + " does not exist, but the checkpoint being restored has " +
                saved.describe() + "; cdcd did not create it." + how_to_proceed(path));
        fail_errno("cannot open", path);
    }
    AppendOnlyFile file(path, fd);
    lock_for_writing(fd, path);
    struct stat st = stat_of(fd, path);
    file.device_ = static_cast<std::uint64_t>(st.st_dev);
    file.inode_ = static_cast<std::uint64_t>(st.st_ino);
    auto size = static_cast<std::uint64_t>(st.st_size);
    std::string found = "inode " + std::to_string(file.inode_) + " on device " +
                        std::to_string(file.device_) + ", " + std::to_string(size) + " bytes";
    if (!saved.legacy && (file.device_ != saved.device || file.inode_ != saved.inode))
        throw OutputFileError("output file " + path +
                              " is not the file the checkpoint being restored was written to: "
                              "expected " +
                              saved.describe() + "; found " + found + "." +
                              std::string(kLeftUntouched) + how_to_proceed(path));
    if (size < saved.length)
        throw OutputFileError("output file " + path +
                              " is shorter than the checkpoint being "
                              "restored says: expected " +
                              saved.describe() + "; found " + found +
                              ". It was truncated or replaced, and cdcd does not fill the gap." +
                              std::string(kLeftUntouched) + how_to_proceed(path));
    file.length_ = saved.length;
    file.written_from_ = saved.length;
    file.load_tail();
    if (saved.legacy) {
        spdlog::warn(
            "output file {}: the checkpoint holds only the committed length ({} bytes, written by "
            "an older cdcd), so the file's identity cannot be checked; resuming after byte {} of "
            "its {}",
            path, saved.length, saved.length, size);
    } else if (std::uint32_t crc = crc32c(file.tail_); crc != saved.tail_crc32c) {
        throw OutputFileError(
            "output file " + path + ": the last " + std::to_string(file.tail_.size()) +
            " committed bytes (before byte " + std::to_string(saved.length) +
            ") differ from what cdcd wrote (CRC-32C " + std::to_string(saved.tail_crc32c) +
            " expected, " + std::to_string(crc) + " found; " + found +
            "): the file was rewritten or replaced." + std::string(kLeftUntouched) +
            how_to_proceed(path));
    }
    // What follows the committed prefix was written after the checkpoint; the source replays it.
    if (size > saved.length) {
        if (::ftruncate(fd, static_cast<off_t>(saved.length)) != 0)
            fail_errno("cannot truncate", path);
        spdlog::info("output file {}: cut {} bytes written after the checkpoint (now {} bytes)",
                     path, size - saved.length, saved.length);
    }
    return file;
}

void AppendOnlyFile::load_tail() {
    std::uint64_t n = std::min(length_, kTailBytes);
    tail_ = read_at(fd_, path_, length_ - n, n);
}

void AppendOnlyFile::append(std::string_view bytes) {
    while (!bytes.empty()) {
        ssize_t n = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(length_));
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_errno("cannot write", path_);
        }
        auto written = bytes.substr(0, static_cast<std::size_t>(n));
        length_ += written.size();
        if (written.size() >= kTailBytes) {
            tail_.assign(written.substr(written.size() - kTailBytes));
        } else {
            tail_.append(written);
            if (tail_.size() > kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
        }
        bytes.remove_prefix(written.size());
    }
    if (length_ >= writeback_from_ + kWritebackLag + kWritebackStep) start_writeback();
}

void AppendOnlyFile::start_writeback() {
    // As RocksDB's bytes_per_sync: the pages appended reach the disk while the pipeline runs,
    // instead of piling up dirty for the checkpoint's fdatasync, or for the kernel to throttle
    // the writer once too many are dirty. A hint: a failure shows at the next fdatasync.
    const std::uint64_t to = length_ - kWritebackLag;
    (void)::sync_file_range(fd_, static_cast<off_t>(writeback_from_),
                            static_cast<off_t>(to - writeback_from_), SYNC_FILE_RANGE_WRITE);
    writeback_from_ = to;
}

std::string AppendOnlyFile::commit() {
    Commit commit = begin_commit();
    commit.sync();
    return std::move(commit.state);
}

AppendOnlyFile::Commit AppendOnlyFile::begin_commit() const {
    return Commit{state(), [fd = fd_, path = path_, device = device_, inode = inode_,
                            length = length_, written_from = written_from_] {
                      if (::fdatasync(fd) != 0) fail_errno("cannot sync", path);
                      check_still_at_path(fd, path, device, inode, length, written_from);
                  }};
}

std::string AppendOnlyFile::state() const {
    return "{\"format\":\"" + std::string(kStateFormat) +
           "\",\"path\":" + json::quoted(utf8_path(absolute(path_))) +
           ",\"device\":" + std::to_string(device_) + ",\"inode\":" + std::to_string(inode_) +
           ",\"length\":" + std::to_string(length_) +
           ",\"tail_crc32c\":" + std::to_string(crc32c(tail_)) + "}";
}

}  // namespace cdcd::output
