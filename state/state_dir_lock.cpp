#include "state/state_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "state/checkpoint_store.h"

namespace cdcd::state {

namespace {

/// The pid a holder wrote into the lock file, or "" when it is unreadable (a holder between its
/// flock and its write).
std::string holder_pid(int fd) {
    char buf[32] = {};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return {};
    std::string pid(buf, static_cast<std::size_t>(n));
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    for (char c : pid)
        if (c < '0' || c > '9') return {};
    return pid;
}

}  // namespace

StateDirLock StateDirLock::acquire(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        throw StateError("state directory " + dir +
                         " is not a directory; give --state-dir (or pipeline.state.dir) a "
                         "directory");
    fs::create_directories(dir, ec);
    if (ec) throw StateError("cannot create state directory " + dir + ": " + ec.message());
    std::string path = (fs::path(dir) / kFileName).string();
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        throw StateError("cannot lock state directory " + dir + ": cannot open " + path + ": " +
                         std::strerror(errno) +
                         " (the state directory must be writable by the user running cdcd)");
    int rc;
    do {
        rc = ::flock(fd, LOCK_EX | LOCK_NB);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        int error = errno;
        std::string pid = error == EWOULDBLOCK ? holder_pid(fd) : std::string();
        ::close(fd);
        if (error == EWOULDBLOCK)
            throw StateError("state directory " + dir + " is in use by another cdcd process" +
                             (pid.empty() ? std::string() : " (pid " + pid + ")") +
                             "; stop it first, or give this pipeline another --state-dir");
        throw StateError("cannot lock state directory " + dir + ": flock " + path + ": " +
                         std::strerror(error));
    }
    std::string pid = std::to_string(::getpid()) + "\n";
    // The pid is for the error message of the next one to try; failing to write it is harmless.
    if (::ftruncate(fd, 0) == 0) {
        [[maybe_unused]] ssize_t written = ::pwrite(fd, pid.data(), pid.size(), 0);
    }
    return StateDirLock(fd, dir);
}

void StateDirLock::check_in_place() const {
    if (fd_ < 0) return;
    const std::string path = (std::filesystem::path(dir_) / kFileName).string();
    auto fail = [&](const std::string& what) {
        throw StateError("state directory " + dir_ + " " + what +
                         " while cdcd ran: the checkpoints it writes are not there for a restart, "
                         "which would find none and start from the sources' startup modes. Put "
                         "the directory back, or restart to begin anew");
    };
    struct stat held {};
    if (::fstat(fd_, &held) != 0)
        throw StateError("state directory " + dir_ + ": cannot stat " + path + ": " +
                         std::strerror(errno));
    if (held.st_nlink == 0) fail("was deleted (its lock file " + path + " is gone)");
    struct stat at_path {};
    if (::stat(path.c_str(), &at_path) != 0) {
        if (errno != ENOENT)
            throw StateError("state directory " + dir_ + ": cannot stat " + path + ": " +
                             std::strerror(errno));
        fail("was moved away (its lock file " + path + " is gone)");
    }
    if (at_path.st_dev != held.st_dev || at_path.st_ino != held.st_ino)
        fail("was replaced (" + path + " is another file than the one this cdcd locked)");
}

StateDirLock::StateDirLock(StateDirLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), dir_(std::move(other.dir_)) {}

StateDirLock& StateDirLock::operator=(StateDirLock&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
        dir_ = std::move(other.dir_);
    }
    return *this;
}

StateDirLock::~StateDirLock() {
    if (fd_ >= 0) ::close(fd_);
}

}  // namespace cdcd::state
