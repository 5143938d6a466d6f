#pragma once
// One process per state directory. A second `cdcd run` on a directory a running daemon holds must
// fail before it touches anything outside (a Kafka sink's transactional producer would fence the
// running one's), so the runtime takes this lock before it creates any connector; RocksDB's own
// LOCK is taken only later, when the store opens.
#include <string>

namespace cdcd::state {

class StateDirLock {
  public:
    /// Creates `dir` if missing, then locks `dir/cdcd.lock` (flock, exclusive) and writes this
    /// process's pid into it. Throws StateError naming the directory, and the pid of the holder
    /// when another process has it.
    static StateDirLock acquire(const std::string& dir);

    StateDirLock() = default;
    StateDirLock(StateDirLock&& other) noexcept;
    StateDirLock& operator=(StateDirLock&& other) noexcept;
    StateDirLock(const StateDirLock&) = delete;
    StateDirLock& operator=(const StateDirLock&) = delete;
    ~StateDirLock();  // releases the lock (the file stays: removing it would race a new holder)

    bool held() const { return fd_ >= 0; }
    /// Throws StateError when the lock file is no longer the one held here: the state directory
    /// was deleted, moved away or replaced while cdcd ran, so what it writes there is out of
    /// reach of a restart (and another cdcd could lock the path anew).
    void check_in_place() const;
    const std::string& dir() const { return dir_; }

    static constexpr const char* kFileName = "cdcd.lock";

  private:
    StateDirLock(int fd, std::string dir) : fd_(fd), dir_(std::move(dir)) {}
    int fd_ = -1;
    std::string dir_;
};

}  // namespace cdcd::state
