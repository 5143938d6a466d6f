#include "pipeline/util/crc32c.h"

#include <array>

namespace cdcd {

namespace {

// Byte-at-a-time table of the reflected polynomial 0x1EDC6F41: fast enough for the few KiB it is
// used on, and portable (no SSE4.2 requirement).
constexpr std::array<std::uint32_t, 256> make_table() {
    std::array<std::uint32_t, 256> table{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[i] = c;
    }
    return table;
}
constexpr auto kTable = make_table();

}  // namespace

std::uint32_t crc32c(std::string_view bytes, std::uint32_t crc) {
    crc = ~crc;
    for (char ch : bytes) crc = kTable[(crc ^ static_cast<unsigned char>(ch)) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

}  // namespace cdcd
