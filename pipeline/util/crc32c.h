#pragma once
// CRC-32C (Castagnoli, as in iSCSI, ext4 and Kafka record batches): a checksum of bytes that can
// be extended piece by piece, crc32c(b, crc32c(a)) == crc32c(a + b).
#include <cstdint>
#include <string_view>

namespace cdcd {

std::uint32_t crc32c(std::string_view bytes, std::uint32_t crc = 0);

}  // namespace cdcd
