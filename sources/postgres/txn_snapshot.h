#pragma once
// A PostgreSQL snapshot's visibility (pg_current_snapshot(): xmin:xmax:xip,...): which committed
// transactions it sees. A streamed transaction (pgoutput's Begin carries its 32-bit id) was seen
// by a snapshot exactly when it had committed before the snapshot was taken.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cdcd::postgres {

struct TxnSnapshot {
    std::uint64_t xmin = 0, xmax = 0;  // epoch-extended ids
    std::vector<std::uint64_t> xip;    // in progress when it was taken
    friend bool operator==(const TxnSnapshot&, const TxnSnapshot&) = default;

    /// "xmin:xmax:xip,xip" (pg_snapshot's text); nullopt when malformed.
    static std::optional<TxnSnapshot> parse(std::string_view text);
    std::string str() const;
    /// Whether committed transaction `xid` was visible. The 32-bit id is placed in the epoch
    /// nearest xmax: the server keeps every live id within 2^31 of the others.
    bool sees(std::uint32_t xid) const;
};

}  // namespace cdcd::postgres
