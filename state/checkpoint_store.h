#pragma once
// Durable checkpoints in RocksDB, one namespace per pipeline name. A checkpoint is written in one
// synced WriteBatch, so after a crash the store holds whole checkpoints only.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace rocksdb {
class DB;
}

namespace cdcd::state {

struct StateError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The store's files or a stored checkpoint are damaged (as opposed to, say, a permission
/// problem): `--reset-state` may move such a directory aside and start over.
struct StateCorruption : StateError {
    using StateError::StateError;
};

struct Checkpoint {
    std::uint64_t id = 0;
    std::int64_t created_ms = 0;  // wall clock, for operators
    /// What the pipeline was when the checkpoint was taken (source and sink types...); a restore
    /// into an incompatible pipeline is refused.
    std::map<std::string, std::string> fingerprint;
    /// Named state blobs: "source", "schema", "transform", "sink/0", ...
    std::map<std::string, std::string> parts;

    std::size_t size_bytes() const;
};

/// One stored checkpoint as scan() finds it: decoded, or the reason it does not decode.
struct StoredCheckpoint {
    std::uint64_t id = 0;  // from its key, so known even when the value is garbage
    std::optional<Checkpoint> checkpoint;
    std::string error;  // why it does not decode (when `checkpoint` is empty)
};

class CheckpointStore {
  public:
    /// Opens (creating) the RocksDB database in `dir`. Throws StateError naming the directory.
    static std::unique_ptr<CheckpointStore> open(const std::string& dir);
    /// Opens `dir` for reading only, as a RocksDB secondary instance: it takes no lock, so it
    /// works while a running cdcd holds the directory, and it sees every checkpoint that
    /// process had made durable when this call returned. Never creates anything in `dir`.
    /// write() and reset() on it throw StateError.
    static std::unique_ptr<CheckpointStore> open_read_only(const std::string& dir);
    ~CheckpointStore();
    CheckpointStore(const CheckpointStore&) = delete;
    CheckpointStore& operator=(const CheckpointStore&) = delete;

    /// Writes `checkpoint` durably, then drops all but the newest `retain` of this pipeline. Throws
    /// StateError naming the directory and the cause (e.g. "No space left on device"); the store
    /// keeps what it held before, and a later write() retries once the cause is gone.
    void write(const std::string& pipeline, const Checkpoint& checkpoint, int retain);
    std::optional<Checkpoint> latest(const std::string& pipeline) const;
    std::optional<Checkpoint> get(const std::string& pipeline, std::uint64_t id) const;
    /// Every stored checkpoint of the pipeline, oldest first. Throws StateCorruption when one
    /// does not decode (scan() does not).
    std::vector<Checkpoint> list(const std::string& pipeline) const;
    /// Every stored checkpoint of the pipeline, oldest first, each decoded or with the reason it
    /// does not decode. Throws only when the store cannot be read.
    std::vector<StoredCheckpoint> scan(const std::string& pipeline) const;
    /// The ids of the stored checkpoints, oldest first, without decoding them.
    std::vector<std::uint64_t> ids(const std::string& pipeline) const;
    std::vector<std::string> pipelines() const;
    /// Deletes every checkpoint of the pipeline (`--reset-state`), decodable or not.
    void reset(const std::string& pipeline);
    /// Deletes, durably, every checkpoint of the pipeline newer than `keep_id` (all of them for 0):
    /// a restore that must resume from an older checkpoint discards the ones it skips.
    void discard_newer(const std::string& pipeline, std::uint64_t keep_id);
    /// The highest checkpoint id ever written for the pipeline (0 if none), including checkpoints
    /// discard_newer() deleted, so that ids are never used twice (reset() forgets it).
    std::uint64_t highest_id(const std::string& pipeline) const;

    static std::string encode(const Checkpoint& checkpoint);
    /// Throws StateCorruption saying what is wrong with the bytes.
    static Checkpoint decode(std::string_view bytes);

  private:
    CheckpointStore(rocksdb::DB* db, std::string dir, std::string secondary_dir = {});
    /// Closes and opens the database again (after a failed write); throws StateError on failure,
    /// leaving no database open (the next write() tries again).
    void reopen(const std::string& what);
    rocksdb::DB* db_;
    std::string dir_;
    std::string secondary_dir_;  // the secondary instance's own (temporary) directory
    bool write_failed_ = false;  // the last write() failed: RocksDB must be resumed first
};

/// Renames a damaged state directory to `<dir>.corrupt-<UTC time>` (never deleting it) and
/// returns the new name. Throws StateError naming both when the rename fails.
std::string move_state_dir_aside(const std::string& dir);

}  // namespace cdcd::state
