#pragma once
// OSS signature V4 (OSS4-HMAC-SHA256), header and query (pre-signed) forms (vendor-apis.md
// §4.8-4.9).
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cdcd::oss {

struct V4Request {
    std::string method = "GET";
    std::string bucket;  // empty: "/"
    std::string key;     // raw
    /// Query parameters, raw (unencoded); nullopt: key without value.
    std::vector<std::pair<std::string, std::optional<std::string>>> query;
    std::vector<std::pair<std::string, std::string>> headers;  // as sent
    std::vector<std::string> additional_headers;               // extra signed header names
    std::string region;                                        // bare: cn-hangzhou
    std::string datetime;                                      // 20231216T162057Z
    std::string product = "oss";
};

/// RFC 3986 encoding with upper-case hex; '/' kept when keep_slash.
std::string v4_uri_encode(const std::string& s, bool keep_slash);
std::string v4_scope(const V4Request& r);  // yyyymmdd/region/oss/aliyun_v4_request
std::string v4_canonical_request(const V4Request& r);
std::string v4_string_to_sign(const V4Request& r);
/// hex(HMAC-SHA256(signing key, string-to-sign)).
std::string v4_signature(const std::string& secret, const V4Request& r);
/// The Authorization header value.
std::string v4_authorization(const std::string& access_key_id, const std::string& secret,
                             const V4Request& r);
/// Adds the pre-signing query parameters (signature version, date, expires, credential, token,
/// additional headers) to r.query and returns the signature for x-oss-signature.
std::string v4_presign(const std::string& access_key_id, const std::string& secret,
                       const std::string& token, long long expires_seconds, V4Request& r);

/// "20231216T162057Z" for a Unix time in seconds.
std::string iso8601_basic(long long unix_seconds);

}  // namespace cdcd::oss
