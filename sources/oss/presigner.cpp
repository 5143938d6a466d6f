#include "sources/oss/presigner.h"

#include "net/url.h"
#include "sources/oss/addressing.h"
#include "sources/oss/signer_v1.h"
#include "sources/oss/signer_v4.h"

namespace cdcd::oss {

Presigner::Presigner(std::string endpoint, std::string region, bool v4, Credentials credentials,
                     std::chrono::seconds ttl)
    : endpoint_(std::move(endpoint)),
      region_(std::move(region)),
      v4_(v4),
      credentials_(std::move(credentials)),
      ttl_(ttl) {}

std::string Presigner::url(const std::string& bucket, const std::string& key, long long now) const {
    const auto& c = credentials_;
    if (v4_) {
        V4Request r;
        r.method = "GET";
        r.bucket = bucket;
        r.key = key;
        r.region = region_;
        r.datetime = iso8601_basic(now);
        std::string sig =
            v4_presign(c.access_key_id, c.access_key_secret, c.security_token, ttl_.count(), r);
        std::string qs;
        for (const auto& [k, v] : r.query)
            qs += (qs.empty() ? "" : "&") + net::percent_encode(k) + "=" + net::percent_encode(*v);
        qs += "&x-oss-signature=" + sig;
        return object_url(endpoint_, bucket, key, qs);
    }
    V1Request r;
    r.method = "GET";
    r.date = std::to_string(now + ttl_.count());
    r.bucket = bucket;
    r.key = key;
    if (!c.security_token.empty()) r.query.emplace_back("security-token", c.security_token);
    std::string sig = v1_signature(c.access_key_secret, r);
    std::string qs = "OSSAccessKeyId=" + net::percent_encode(c.access_key_id) +
                     "&Expires=" + r.date + "&Signature=" + net::percent_encode(sig);
    if (!c.security_token.empty()) qs += "&security-token=" + net::percent_encode(c.security_token);
    return object_url(endpoint_, bucket, key, qs);
}

}  // namespace cdcd::oss
