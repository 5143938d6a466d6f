#pragma once
// The hashes and encodings the OSS and MNS signatures need (OpenSSL underneath).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cdcd::oss {

std::string hmac_sha1(std::string_view key, std::string_view data);    // raw 20 bytes
std::string hmac_sha256(std::string_view key, std::string_view data);  // raw 32 bytes
std::string sha256(std::string_view data);                             // raw 32 bytes
std::string md5(std::string_view data);                                // raw 16 bytes
std::string hex_lower(std::string_view bytes);
std::string hex_upper(std::string_view bytes);
std::string base64_encode(std::string_view bytes);
/// Standard alphabet with padding; whitespace ignored. nullopt when not base64.
std::optional<std::string> base64_decode(std::string_view text);
/// 64-bit FNV-1a, for fingerprints (not for security).
std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed = 1469598103934665603ULL);

}  // namespace cdcd::oss
