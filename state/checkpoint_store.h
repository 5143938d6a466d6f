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

    /// Writes `checkpoint` durably, then drops all but the newest `retain` of this pipeline.
    void write(const std::string& pipeline, const Checkpoint& checkpoint, int retain);
    std::optional<Checkpoint> latest(const std::string& pipeline) const;
    std::optional<Checkpoint> get(const std::string& pipeline, std::uint64_t id) const;
    /// Every stored checkpoint of the pipeline, oldest first.
    std::vector<Checkpoint> list(const std::string& pipeline) const;
    std::vector<std::string> pipelines() const;
    /// Deletes every checkpoint of the pipeline (`--reset-state`).
    void reset(const std::string& pipeline);
    /// Deletes, durably, every checkpoint of the pipeline newer than `keep_id` (all of them for 0):
    /// a restore that must resume from an older checkpoint discards the ones it skips.
    void discard_newer(const std::string& pipeline, std::uint64_t keep_id);
    /// The highest checkpoint id ever written for the pipeline (0 if none), including checkpoints
    /// discard_newer() deleted, so that ids are never used twice (reset() forgets it).
    std::uint64_t highest_id(const std::string& pipeline) const;

    static std::string encode(const Checkpoint& checkpoint);
    static Checkpoint decode(std::string_view bytes);

  private:
    CheckpointStore(rocksdb::DB* db, std::string dir, std::string secondary_dir = {});
    rocksdb::DB* db_;
    std::string dir_;
    std::string secondary_dir_;  // the secondary instance's own (temporary) directory
};

}  // namespace cdcd::state
