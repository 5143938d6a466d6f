#include "sinks/kafka/murmur2.h"

namespace cdcd::kafka {

std::int32_t murmur2(std::string_view data) {
    // Java int arithmetic: wrap-around on uint32_t, >>> as an unsigned shift.
    const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
    const auto length = static_cast<std::uint32_t>(data.size());
    const std::uint32_t seed = 0x9747b28cU, m = 0x5bd1e995U;
    const int r = 24;
    std::uint32_t h = seed ^ length;
    const std::uint32_t length4 = length / 4;
    for (std::uint32_t i = 0; i < length4; ++i) {
        const std::uint32_t i4 = i * 4;
        std::uint32_t k = bytes[i4] | (static_cast<std::uint32_t>(bytes[i4 + 1]) << 8) |
                          (static_cast<std::uint32_t>(bytes[i4 + 2]) << 16) |
                          (static_cast<std::uint32_t>(bytes[i4 + 3]) << 24);
        k *= m;
        k ^= k >> r;
        k *= m;
        h *= m;
        h ^= k;
    }
    const std::uint32_t tail = length & ~3U;
    switch (length % 4) {
        case 3:
            h ^= static_cast<std::uint32_t>(bytes[tail + 2]) << 16;
            [[fallthrough]];
        case 2:
            h ^= static_cast<std::uint32_t>(bytes[tail + 1]) << 8;
            [[fallthrough]];
        case 1:
            h ^= bytes[tail];
            h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return static_cast<std::int32_t>(h);
}

}  // namespace cdcd::kafka
