#pragma once
// OSS signature V1 (HMAC-SHA1), header form and the pre-signed URL form (vendor-apis.md §4.6-4.7).
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cdcd::oss {

struct V1Request {
    std::string method = "GET";
    std::string content_md5;
    std::string content_type;
    std::string date;  // the Date header, or the Expires seconds for pre-signed URLs
    std::vector<std::pair<std::string, std::string>> headers;  // any; only x-oss-* are signed
    std::string bucket;                                        // empty: service-level resource "/"
    std::string key;                                           // raw, not URL-encoded
    /// Query parameters as sent (raw values; nullopt: no value); only the whitelisted
    /// subresources are signed.
    std::vector<std::pair<std::string, std::optional<std::string>>> query;
};

/// What OSS V1 and MNS sign alike: the verb, Content-MD5, Content-Type and date lines, the headers
/// whose names start with `prefix` (lowercased and sorted, as "name:value" lines), the resource.
std::string v1_style_string_to_sign(const std::string& method, const std::string& content_md5,
                                    const std::string& content_type, const std::string& date,
                                    const std::vector<std::pair<std::string, std::string>>& headers,
                                    std::string_view prefix, const std::string& resource);

/// True for the query keys oss2 signs (ProviderAuth._subresource_key_set).
bool v1_is_subresource(const std::string& key);
std::string v1_canonical_resource(const V1Request& r);
std::string v1_string_to_sign(const V1Request& r);
/// base64(HMAC-SHA1(secret, string-to-sign)).
std::string v1_signature(const std::string& secret, const V1Request& r);
/// "OSS <ak>:<signature>".
std::string v1_authorization(const std::string& access_key_id, const std::string& secret,
                             const V1Request& r);

}  // namespace cdcd::oss
