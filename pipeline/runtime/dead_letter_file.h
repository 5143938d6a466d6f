#pragma once
// The dead-letter file of bad-record.policy dead-letter: JSON lines appended at each checkpoint
// and fsynced before the checkpoint that records them (an AppendOnlyFile: identity, committed
// length, tail checksum), so after a crash the restore cuts off what no checkpoint covers and the
// file holds each bad record exactly once. A fresh start appends to an existing file: it is a
// log of rejects, and nothing in it is ever truncated or overwritten.
#include <optional>
#include <string>
#include <string_view>

#include "pipeline/output/append_only_file.h"

namespace cdcd {

class DeadLetterFile {
  public:
    explicit DeadLetterFile(std::string path);

    /// A pipeline without a checkpoint: creates the file (and its directory) or appends to it.
    void start_fresh();
    /// Resumes from the state a checkpoint recorded: bytes past it are cut off. Throws, naming
    /// the file, when the file is not the one the checkpoint describes.
    void restore(std::string_view state);
    /// Appends `lines`, makes them durable and returns the state for this checkpoint.
    std::string commit(std::string_view lines);

    const std::string& path() const { return path_; }

  private:
    std::string path_;
    std::optional<output::AppendOnlyFile> file_;
};

}  // namespace cdcd
