#pragma once
// The hashes and HMACs request signers compute, and the hex spelling of their bytes: the one
// implementation every signer uses (oss-cdc's OSS V1/V4 and MNS signatures, VikingDB's V4).
// OpenSSL underneath, confined to digest.cpp.
#include <string>
#include <string_view>

namespace cdcd::net {

std::string sha256(std::string_view data);                             // raw 32 bytes
std::string md5(std::string_view data);                                // raw 16 bytes
std::string hmac_sha1(std::string_view key, std::string_view data);    // raw 20 bytes
std::string hmac_sha256(std::string_view key, std::string_view data);  // raw 32 bytes

/// Two hex digits per byte, 0-9a-f (what SigV4-style signatures use).
std::string hex_lower(std::string_view bytes);
/// Two hex digits per byte, 0-9A-F.
std::string hex_upper(std::string_view bytes);

}  // namespace cdcd::net
