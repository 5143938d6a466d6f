#pragma once
// The dead-letter file of bad-record.policy dead-letter: JSON lines appended at each checkpoint
// and fsynced before the checkpoint that records their committed length, so after a crash the
// restore cuts off what no checkpoint covers and the file holds each bad record exactly once.
// An existing file is appended to (it is cdcd's own output, never truncated on a fresh start).
#include <cstdint>
#include <string>
#include <string_view>

namespace cdcd {

class DeadLetterFile {
  public:
    explicit DeadLetterFile(std::string path);
    ~DeadLetterFile();
    DeadLetterFile(const DeadLetterFile&) = delete;
    DeadLetterFile& operator=(const DeadLetterFile&) = delete;

    /// A pipeline without a checkpoint: creates the file (and its directory) or appends to it.
    void start_fresh();
    /// Resumes from the state a checkpoint recorded: bytes past its length are cut off. Throws,
    /// naming the file, when the file is not the one the checkpoint describes.
    void restore(std::string_view state);
    /// Appends `lines`, makes them durable and returns the state for this checkpoint.
    std::string commit(std::string_view lines);

    const std::string& path() const { return path_; }

  private:
    std::string path_;
    int fd_ = -1;
    std::uint64_t length_ = 0;
};

}  // namespace cdcd
