#pragma once
// The lenient base64 MNS message bodies come in, and the fingerprint hash of polling. The digests
// the OSS and MNS signatures need are net/digest.h; strict base64 is pipeline/util/base64.h.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cdcd::oss {

/// Standard or URL-safe alphabet, padding optional, whitespace ignored (as MNS bodies come).
/// nullopt when not base64.
std::optional<std::string> base64_decode(std::string_view text);
/// 64-bit FNV-1a, for fingerprints (not for security).
std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed = 1469598103934665603ULL);

}  // namespace cdcd::oss
