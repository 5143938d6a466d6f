#pragma once
// An output file that cdcd only appends to, whose committed prefix is recorded in checkpoints.
// The checkpoint state names the file by identity (device, inode), committed length and a CRC-32C
// of the committed tail, so that a restore truncates back to the committed length only the very
// file it wrote, never another one found at the same path (deleted, rotated, replaced, or another
// path or working directory), and never extends a file with zeros. A fresh start onto a file that
// is not empty touches it only when told to append or to overwrite.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cdcd::output {

/// What a fresh start does with a file that exists and is not empty.
enum class IfExists { Fail, Append, Overwrite };

/// The file cannot be opened, resumed or written; the message names the file, what was expected
/// and found, and how to proceed.
struct OutputFileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class AppendOnlyFile {
  public:
    /// How many bytes before the committed length the tail checksum covers (fewer in a shorter
    /// file).
    static constexpr std::uint64_t kTailBytes = 4096;

    /// A fresh start (no checkpoint): creates `path` (and syncs its directory) or, when it
    /// exists, keeps an empty one; a non-empty one is refused under IfExists::Fail, appended to
    /// under Append and emptied under Overwrite. `if_exists_option` is the setting a user changes
    /// to choose, named in the refusal.
    static AppendOnlyFile open_fresh(const std::string& path, IfExists if_exists,
                                     std::string_view if_exists_option);
    /// A resume from a state commit() returned (or an older cdcd's bare decimal length): checks
    /// that `path` is the file the state describes, then cuts what was written after the commit.
    static AppendOnlyFile resume(const std::string& path, std::string_view state);

    AppendOnlyFile(AppendOnlyFile&& other) noexcept;
    AppendOnlyFile& operator=(AppendOnlyFile&& other) noexcept;
    AppendOnlyFile(const AppendOnlyFile&) = delete;
    AppendOnlyFile& operator=(const AppendOnlyFile&) = delete;
    ~AppendOnlyFile();

    /// Writes all of `bytes` at the end of the file (not yet durable).
    void append(std::string_view bytes);
    /// Makes everything appended durable (fdatasync) and returns the state to store in the
    /// checkpoint; fails when the file is no longer the one at its path, whole (deleted, moved,
    /// replaced or truncated while written), so that no checkpoint covers rows it lost.
    std::string commit();
    /// commit() in two parts, for a writer that goes on appending while the file syncs.
    struct Commit {
        std::string state;  // of everything appended so far: stored once `sync` has returned
        /// fdatasync, throwing OutputFileError. It uses the file descriptor only, so it may run
        /// on another thread while append() goes on; this file must stay open until it returns.
        std::function<void()> sync;
    };
    Commit begin_commit() const;
    /// The state describing everything appended so far, without syncing: for a state that is
    /// not stored as a checkpoint.
    std::string state() const;

    const std::string& path() const { return path_; }
    /// Bytes in the file: the committed prefix and everything appended since.
    std::uint64_t length() const { return length_; }

  private:
    AppendOnlyFile(std::string path, int fd);
    /// Reads the kTailBytes (or fewer) before `length_` into tail_.
    void load_tail();
    /// Asks the kernel to start writing back what was appended up to kWritebackLag ago.
    void start_writeback();
    static constexpr std::uint64_t kWritebackLag = 4 << 20;   // not the pages still being written
    static constexpr std::uint64_t kWritebackStep = 4 << 20;  // a request per 4 MiB appended

    std::string path_;
    int fd_ = -1;
    std::uint64_t device_ = 0;
    std::uint64_t inode_ = 0;
    std::uint64_t length_ = 0;
    std::uint64_t writeback_from_ = 0;  // where append()'s next writeback request starts
    std::uint64_t written_from_ = 0;    // the length when this run opened the file
    std::string tail_;                  // the last kTailBytes (or fewer) bytes of the file
};

}  // namespace cdcd::output
