#include "state/checkpoint_store.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "state/rocksdb_log.h"

namespace cdcd::state {

namespace {

// Keys: "c/<pipeline>\0<id as 20 digits>"; ids sort numerically as text.
std::string prefix_of(const std::string& pipeline) {
    return "c/" + pipeline + std::string(1, '\0');
}

std::string key_of(const std::string& pipeline, std::uint64_t id) {
    char digits[24];
    std::snprintf(digits, sizeof digits, "%020llu", static_cast<unsigned long long>(id));
    return prefix_of(pipeline) + digits;
}

// The highest id ever written: "h/<pipeline>", 8 bytes.
std::string highest_key_of(const std::string& pipeline) {
    return "h/" + pipeline;
}

void put_u64(std::string& out, std::uint64_t v) {
    out.append(reinterpret_cast<const char*>(&v), 8);
}

std::uint64_t get_u64(std::string_view& in) {
    if (in.size() < 8) throw StateCorruption("corrupt checkpoint: truncated");
    std::uint64_t v;
    std::memcpy(&v, in.data(), 8);
    in.remove_prefix(8);
    return v;
}

void put_str(std::string& out, std::string_view s) {
    put_u64(out, s.size());
    out.append(s);
}

std::string get_str(std::string_view& in) {
    std::uint64_t n = get_u64(in);
    if (in.size() < n) throw StateCorruption("corrupt checkpoint: truncated");
    std::string s(in.substr(0, n));
    in.remove_prefix(n);
    return s;
}

void put_map(std::string& out, const std::map<std::string, std::string>& m) {
    put_u64(out, m.size());
    for (const auto& [k, v] : m) {
        put_str(out, k);
        put_str(out, v);
    }
}

std::map<std::string, std::string> get_map(std::string_view& in) {
    std::map<std::string, std::string> m;
    std::uint64_t n = get_u64(in);
    for (std::uint64_t i = 0; i < n; ++i) {
        std::string k = get_str(in);
        m[k] = get_str(in);
    }
    return m;
}

constexpr std::uint64_t kFormatVersion = 1;

void check(const rocksdb::Status& s, const std::string& what) {
    if (s.ok()) return;
    if (s.IsCorruption()) throw StateCorruption(what + ": " + s.ToString());
    throw StateError(what + ": " + s.ToString());
}

/// The id in a checkpoint key (its last 20 characters, after the pipeline's prefix).
std::optional<std::uint64_t> id_of_key(std::string_view key, std::size_t prefix_size) {
    std::string_view digits = key.substr(prefix_size);
    if (digits.size() != 20) return std::nullopt;
    std::uint64_t id = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return std::nullopt;
        id = id * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return id;
}

}  // namespace

std::size_t Checkpoint::size_bytes() const {
    return CheckpointStore::encode(*this).size();
}

std::string CheckpointStore::encode(const Checkpoint& c) {
    std::string out;
    put_u64(out, kFormatVersion);
    put_u64(out, c.id);
    put_u64(out, static_cast<std::uint64_t>(c.created_ms));
    put_map(out, c.fingerprint);
    put_map(out, c.parts);
    return out;
}

Checkpoint CheckpointStore::decode(std::string_view in) {
    Checkpoint c;
    std::uint64_t version = get_u64(in);
    if (version != kFormatVersion)
        throw StateCorruption("checkpoint format version " + std::to_string(version) +
                              " is not supported");
    c.id = get_u64(in);
    c.created_ms = static_cast<std::int64_t>(get_u64(in));
    c.fingerprint = get_map(in);
    c.parts = get_map(in);
    if (!in.empty())
        throw StateCorruption("corrupt checkpoint: " + std::to_string(in.size()) +
                              " bytes after its end");
    return c;
}

namespace {

rocksdb::Status open_primary(const std::string& dir, rocksdb::DB** db) {
    rocksdb::Options options;
    options.create_if_missing = true;
    options.max_open_files = 64;
    options.keep_log_file_num = 2;
    options.write_buffer_size = 8 << 20;  // checkpoints are few; keep memory small
    // No LOG file on the state directory's disk (see rocksdb_log.h).
    options.info_log = make_rocksdb_logger();
    // No preallocated WAL and MANIFEST space: the directory holds what it stores, and a full disk
    // fails the checkpoint write that meets it (which the runtime tolerates and retries).
    options.allow_fallocate = false;
    return rocksdb::DB::Open(options, dir, db);
}

}  // namespace

std::unique_ptr<CheckpointStore> CheckpointStore::open(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw StateError("cannot create state directory " + dir + ": " + ec.message());
    rocksdb::DB* db = nullptr;
    rocksdb::Status s = open_primary(dir, &db);
    if (s.IsCorruption())
        throw StateCorruption("cannot open state directory " + dir + ": " + s.ToString() +
                              ". Its files are damaged: `cdcd run --reset-state` moves it aside "
                              "(to " +
                              dir + ".corrupt-<time>) and starts the pipeline over");
    if (!s.ok())
        throw StateError("cannot open state directory " + dir + ": " + s.ToString() +
                         ". It must be a cdcd state directory (or empty), readable and writable "
                         "by the user running cdcd; fix its permissions, or give another "
                         "--state-dir");
    return std::unique_ptr<CheckpointStore>(new CheckpointStore(db, dir));
}

void CheckpointStore::reopen(const std::string& what) {
    if (db_) {
        db_->Close();  // its error is the one the failed write reported
        delete db_;
        db_ = nullptr;
    }
    rocksdb::DB* db = nullptr;
    rocksdb::Status s = open_primary(dir_, &db);
    if (!s.ok()) {
        delete db;
        check(s, what + " (reopening the state store after the failed write)");
    }
    db_ = db;
}

std::unique_ptr<CheckpointStore> CheckpointStore::open_read_only(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(fs::path(dir) / "CURRENT", ec))
        throw StateError("no state in " + dir + " (not a cdcd state directory)");
    // The secondary instance keeps its info log in a directory of its own; the primary's
    // directory stays untouched (it may be read-only to this user).
    std::string pattern = (fs::temp_directory_path(ec) / "cdcd-secondary-XXXXXX").string();
    if (ec || !::mkdtemp(pattern.data()))
        throw StateError("cannot create a temporary directory to read " + dir);
    rocksdb::Options options;
    options.max_open_files = -1;  // required by secondary instances
    options.keep_log_file_num = 1;
    rocksdb::DB* db = nullptr;
    rocksdb::Status s;
    // The primary may delete a file (compaction, WAL recycling) between the MANIFEST read and
    // the file's open: opening and catching up again sees the newer MANIFEST.
    for (int attempt = 0; attempt < 5; ++attempt) {
        s = rocksdb::DB::OpenAsSecondary(options, dir, pattern, &db);
        if (s.ok()) s = db->TryCatchUpWithPrimary();
        if (s.ok()) break;
        delete db;
        db = nullptr;
    }
    if (!s.ok()) {
        fs::remove_all(pattern, ec);
        check(s, "cannot open state directory " + dir + " for reading");
    }
    return std::unique_ptr<CheckpointStore>(new CheckpointStore(db, dir, pattern));
}

CheckpointStore::CheckpointStore(rocksdb::DB* db, std::string dir, std::string secondary_dir)
    : db_(db), dir_(std::move(dir)), secondary_dir_(std::move(secondary_dir)) {}

CheckpointStore::~CheckpointStore() {
    if (db_) {
        db_->Close();
        delete db_;
    }
    if (!secondary_dir_.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(secondary_dir_, ec);
    }
}

void CheckpointStore::write(const std::string& pipeline, const Checkpoint& checkpoint, int retain) {
    if (!secondary_dir_.empty()) throw StateError("state directory " + dir_ + " is open read-only");
    std::string what = "cannot write checkpoint " + std::to_string(checkpoint.id) + " to " + dir_;
    // A failed write (disk full) leaves RocksDB refusing writes; its own recovery waits for a
    // free disk buffer of write_buffer_size. Reopening the store (it replays its log, cutting a
    // torn last record) works as soon as there is room, so each later write tries that first.
    if (write_failed_ || !db_) {
        reopen(what);
        write_failed_ = false;
    }
    rocksdb::WriteBatch batch;
    batch.Put(key_of(pipeline, checkpoint.id), encode(checkpoint));
    // Older checkpoints beyond `retain` go in the same batch.
    std::vector<std::uint64_t> ids = this->ids(pipeline);
    ids.push_back(checkpoint.id);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    if (retain < 1) retain = 1;
    for (size_t i = 0; i + static_cast<size_t>(retain) < ids.size(); ++i)
        batch.Delete(key_of(pipeline, ids[i]));
    if (checkpoint.id > highest_id(pipeline)) {
        std::string highest;
        put_u64(highest, checkpoint.id);
        batch.Put(highest_key_of(pipeline), highest);
    }
    rocksdb::WriteOptions wo;
    wo.sync = true;
    rocksdb::Status s = db_->Write(wo, &batch);
    if (!s.ok() && !s.IsCorruption()) write_failed_ = true;
    check(s, what);
}

std::vector<Checkpoint> CheckpointStore::list(const std::string& pipeline) const {
    std::vector<Checkpoint> out;
    for (auto& stored : scan(pipeline)) {
        if (!stored.checkpoint)
            throw StateCorruption("checkpoint " + std::to_string(stored.id) + " of pipeline '" +
                                  pipeline + "' in " + dir_ + ": " + stored.error);
        out.push_back(std::move(*stored.checkpoint));
    }
    return out;
}

std::vector<StoredCheckpoint> CheckpointStore::scan(const std::string& pipeline) const {
    std::vector<StoredCheckpoint> out;
    std::string prefix = prefix_of(pipeline);
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
        StoredCheckpoint stored;
        auto id = id_of_key(it->key().ToStringView(), prefix.size());
        if (!id) continue;  // not a key this store writes
        stored.id = *id;
        try {
            stored.checkpoint = decode(it->value().ToStringView());
            if (stored.checkpoint->id != stored.id) {
                stored.error = "corrupt checkpoint: it says it is checkpoint " +
                               std::to_string(stored.checkpoint->id);
                stored.checkpoint.reset();
            }
        } catch (const StateError& e) {
            stored.error = e.what();
        }
        out.push_back(std::move(stored));
    }
    check(it->status(), "cannot read checkpoints from " + dir_);
    return out;
}

std::vector<std::uint64_t> CheckpointStore::ids(const std::string& pipeline) const {
    std::vector<std::uint64_t> out;
    std::string prefix = prefix_of(pipeline);
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next())
        if (auto id = id_of_key(it->key().ToStringView(), prefix.size())) out.push_back(*id);
    check(it->status(), "cannot read checkpoints from " + dir_);
    return out;
}

std::optional<Checkpoint> CheckpointStore::latest(const std::string& pipeline) const {
    std::string prefix = prefix_of(pipeline);
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    std::string upper = prefix;
    upper.back() = '\x01';  // just past every key of this pipeline
    it->SeekForPrev(upper);
    if (it->Valid() && it->key().starts_with(prefix)) return decode(it->value().ToStringView());
    check(it->status(), "cannot read checkpoints from " + dir_);
    return std::nullopt;
}

std::optional<Checkpoint> CheckpointStore::get(const std::string& pipeline,
                                               std::uint64_t id) const {
    std::string value;
    auto s = db_->Get(rocksdb::ReadOptions(), key_of(pipeline, id), &value);
    if (s.IsNotFound()) return std::nullopt;
    check(s, "cannot read checkpoint from " + dir_);
    return decode(value);
}

std::vector<std::string> CheckpointStore::pipelines() const {
    std::vector<std::string> out;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    for (it->Seek("c/"); it->Valid() && it->key().starts_with("c/"); it->Next()) {
        auto key = it->key().ToStringView();
        auto name = std::string(key.substr(2, key.find('\0', 2) - 2));
        if (out.empty() || out.back() != name) out.push_back(name);
    }
    return out;
}

void CheckpointStore::reset(const std::string& pipeline) {
    if (!secondary_dir_.empty()) throw StateError("state directory " + dir_ + " is open read-only");
    rocksdb::WriteBatch batch;
    for (std::uint64_t id : ids(pipeline)) batch.Delete(key_of(pipeline, id));
    batch.Delete(highest_key_of(pipeline));
    rocksdb::WriteOptions wo;
    wo.sync = true;
    check(db_->Write(wo, &batch), "cannot reset state in " + dir_);
}

void CheckpointStore::discard_newer(const std::string& pipeline, std::uint64_t keep_id) {
    if (!secondary_dir_.empty()) throw StateError("state directory " + dir_ + " is open read-only");
    std::uint64_t highest = highest_id(pipeline);
    rocksdb::WriteBatch batch;
    for (std::uint64_t id : ids(pipeline))
        if (id > keep_id) batch.Delete(key_of(pipeline, id));
    std::string value;
    put_u64(value, highest);
    batch.Put(highest_key_of(pipeline), value);
    rocksdb::WriteOptions wo;
    wo.sync = true;
    check(db_->Write(wo, &batch), "cannot discard checkpoints in " + dir_);
}

std::uint64_t CheckpointStore::highest_id(const std::string& pipeline) const {
    std::uint64_t highest = 0;
    std::string value;
    auto s = db_->Get(rocksdb::ReadOptions(), highest_key_of(pipeline), &value);
    if (!s.IsNotFound()) {
        check(s, "cannot read checkpoints from " + dir_);
        std::string_view in(value);
        highest = get_u64(in);
    }
    auto stored = ids(pipeline);
    if (!stored.empty()) highest = std::max(highest, stored.back());
    return highest;
}

std::string move_state_dir_aside(const std::string& dir) {
    namespace fs = std::filesystem;
    std::time_t now = std::time(nullptr);
    std::tm utc{};
    ::gmtime_r(&now, &utc);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
    std::string base = fs::path(dir).lexically_normal().string();
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    std::string aside = base + ".corrupt-" + stamp;
    std::error_code ec;
    for (int n = 2; fs::exists(aside, ec); ++n)
        aside = base + ".corrupt-" + stamp + "-" + std::to_string(n);
    fs::rename(dir, aside, ec);
    if (ec)
        throw StateError("cannot move the damaged state directory " + dir + " aside to " + aside +
                         ": " + ec.message() + "; move or delete it by hand");
    return aside;
}

}  // namespace cdcd::state
