// A stored checkpoint value from hostile bytes, as the checkpoint store reads it back from
// RocksDB. It is refused (StateCorruption, StateError) or it re-encodes to bytes that decode to
// the same checkpoint.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "state/checkpoint_store.h"

using cdcd::state::CheckpointStore;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        auto checkpoint =
            CheckpointStore::decode(std::string_view(reinterpret_cast<const char*>(data), size));
        auto bytes = CheckpointStore::encode(checkpoint);
        auto again = CheckpointStore::decode(bytes);
        if (again.id != checkpoint.id || again.created_ms != checkpoint.created_ms ||
            again.fingerprint != checkpoint.fingerprint || again.parts != checkpoint.parts ||
            CheckpointStore::encode(again) != bytes)
            std::abort();
        (void)checkpoint.size_bytes();
    } catch (const cdcd::state::StateError&) {
    }
    return 0;
}
