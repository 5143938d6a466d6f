#include "sources/postgres/txn_snapshot.h"

#include <algorithm>
#include <charconv>

namespace cdcd::postgres {

namespace {

bool parse_id(std::string_view text, std::uint64_t& out) {
    if (text.empty()) return false;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::optional<TxnSnapshot> TxnSnapshot::parse(std::string_view text) {
    const auto first = text.find(':');
    if (first == std::string_view::npos) return std::nullopt;
    const auto second = text.find(':', first + 1);
    if (second == std::string_view::npos) return std::nullopt;
    TxnSnapshot s;
    if (!parse_id(text.substr(0, first), s.xmin) ||
        !parse_id(text.substr(first + 1, second - first - 1), s.xmax) || s.xmin > s.xmax)
        return std::nullopt;
    std::string_view rest = text.substr(second + 1);
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        std::uint64_t id = 0;
        if (!parse_id(rest.substr(0, comma), id) || id < s.xmin || id >= s.xmax)
            return std::nullopt;
        s.xip.push_back(id);
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
        if (rest.empty()) return std::nullopt;
    }
    std::sort(s.xip.begin(), s.xip.end());
    return s;
}

std::string TxnSnapshot::str() const {
    std::string out = std::to_string(xmin) + ":" + std::to_string(xmax) + ":";
    for (std::size_t i = 0; i < xip.size(); ++i) {
        if (i) out += ",";
        out += std::to_string(xip[i]);
    }
    return out;
}

bool TxnSnapshot::sees(std::uint32_t xid) const {
    constexpr std::uint64_t kEpoch = std::uint64_t{1} << 32;
    constexpr std::uint64_t kHalf = std::uint64_t{1} << 31;
    std::uint64_t full = (xmax & ~(kEpoch - 1)) | xid;
    if (full > xmax + kHalf && full >= kEpoch)
        full -= kEpoch;
    else if (full + kHalf < xmax)
        full += kEpoch;
    if (full >= xmax) return false;
    return !std::binary_search(xip.begin(), xip.end(), full);
}

}  // namespace cdcd::postgres
