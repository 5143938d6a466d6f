#pragma once
// Writes bytes straight into a state directory's RocksDB under a checkpoint's key, as damaged
// storage or a future format would leave them: what CheckpointStore::write() never produces.
#include <rocksdb/db.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace cdcd::test {

/// The store's key layout: "c/<pipeline>\0<id as 20 digits>".
inline void put_raw_checkpoint(const std::string& dir, const std::string& pipeline,
                               std::uint64_t id, const std::string& bytes) {
    char digits[24];
    std::snprintf(digits, sizeof digits, "%020llu", static_cast<unsigned long long>(id));
    std::string key = "c/" + pipeline + std::string(1, '\0') + digits;
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* raw = nullptr;
    auto status = rocksdb::DB::Open(options, dir, &raw);
    if (!status.ok()) throw std::runtime_error(status.ToString());
    std::unique_ptr<rocksdb::DB> db(raw);
    rocksdb::WriteOptions sync;
    sync.sync = true;
    status = db->Put(sync, key, bytes);
    if (!status.ok()) throw std::runtime_error(status.ToString());
}

}  // namespace cdcd::test
