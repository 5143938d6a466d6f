#pragma once
// RocksDB's info log routed to cdcd's log instead of a LOG file in the state directory. A LOG
// file shares the state directory's disk: when that disk is full, the failed LOG write poisons
// RocksDB's file writer, and the Debian build of RocksDB (assertions on) aborts the process at
// the next use of it, e.g. when the store closes.
#include <memory>

namespace rocksdb {
class Logger;
}

namespace cdcd::state {

/// RocksDB messages of level WARN and above to spdlog (warn/error); INFO and below at debug.
std::shared_ptr<rocksdb::Logger> make_rocksdb_logger();

}  // namespace cdcd::state
