#pragma once
// The MNS request signature (HMAC-SHA1 over verb, MD5, type, date, x-mns-* headers and the raw
// request target; vendor-apis.md §2.2).
#include <string>
#include <utility>
#include <vector>

namespace cdcd::oss {

struct MnsSignInput {
    std::string method;
    std::string content_md5;
    std::string content_type;
    std::string date;
    std::vector<std::pair<std::string, std::string>> headers;  // only x-mns-* are signed
    std::string resource;                                      // path + "?" + query as sent
};

std::string mns_string_to_sign(const MnsSignInput& in);
std::string mns_signature(const std::string& secret, const MnsSignInput& in);
/// "MNS <ak>:<signature>".
std::string mns_authorization(const std::string& access_key_id, const std::string& secret,
                              const MnsSignInput& in);
/// RFC 1123 GMT date for a Unix time ("Thu, 09 Jul 2015 03:01:34 GMT").
std::string http_date(long long unix_seconds);

}  // namespace cdcd::oss
