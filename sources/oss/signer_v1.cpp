#include "sources/oss/signer_v1.h"

#include <algorithm>
#include <set>

#include "net/digest.h"
#include "pipeline/util/base64.h"
#include "text/ascii.h"

namespace cdcd::oss {
namespace {}  // namespace

bool v1_is_subresource(const std::string& key) {
    static const std::set<std::string> keys = {"response-content-type",
                                               "response-content-language",
                                               "response-cache-control",
                                               "logging",
                                               "response-content-encoding",
                                               "acl",
                                               "uploadId",
                                               "uploads",
                                               "partNumber",
                                               "group",
                                               "link",
                                               "delete",
                                               "website",
                                               "location",
                                               "objectInfo",
                                               "objectMeta",
                                               "response-expires",
                                               "response-content-disposition",
                                               "cors",
                                               "lifecycle",
                                               "restore",
                                               "qos",
                                               "referer",
                                               "stat",
                                               "bucketInfo",
                                               "append",
                                               "position",
                                               "security-token",
                                               "live",
                                               "comp",
                                               "status",
                                               "vod",
                                               "startTime",
                                               "endTime",
                                               "x-oss-process",
                                               "symlink",
                                               "callback",
                                               "callback-var",
                                               "tagging",
                                               "encryption",
                                               "versions",
                                               "versioning",
                                               "versionId",
                                               "policy",
                                               "requestPayment",
                                               "x-oss-traffic-limit",
                                               "qosInfo",
                                               "asyncFetch",
                                               "x-oss-request-payer",
                                               "sequential",
                                               "inventory",
                                               "inventoryId",
                                               "continuation-token",
                                               "worm",
                                               "wormId",
                                               "wormExtend",
                                               "replication",
                                               "replicationLocation",
                                               "replicationProgress",
                                               "transferAcceleration",
                                               "cname",
                                               "metaQuery",
                                               "x-oss-ac-source-ip",
                                               "x-oss-ac-subnet-mask",
                                               "x-oss-ac-vpc-id",
                                               "x-oss-ac-forward-allow",
                                               "resourceGroup",
                                               "style",
                                               "styleName",
                                               "x-oss-async-process",
                                               "regionList",
                                               "x-oss-write-get-object-response",
                                               "bucketArchiveDirectRead",
                                               "httpsConfig",
                                               "redundancyTransition",
                                               "x-oss-target-redundancy-type",
                                               "x-oss-redundancy-transition-taskid",
                                               "accessPoint",
                                               "accessPointPolicy",
                                               "publicAccessBlock",
                                               "x-oss-access-point-name",
                                               "requesterQosInfo",
                                               "qosRequester",
                                               "resourcePoolInfo",
                                               "resourcePool",
                                               "resourcePoolBuckets"};
    return keys.count(key) > 0;
}

std::string v1_canonical_resource(const V1Request& r) {
    std::string res = "/";
    if (!r.bucket.empty()) res += r.bucket + "/" + r.key;
    std::vector<std::pair<std::string, std::optional<std::string>>> sub;
    for (const auto& q : r.query)
        if (v1_is_subresource(q.first)) sub.push_back(q);
    std::sort(sub.begin(), sub.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i < sub.size(); ++i) {
        res += i == 0 ? "?" : "&";
        res += sub[i].first;
        if (sub[i].second && !sub[i].second->empty()) res += "=" + *sub[i].second;
    }
    return res;
}

std::string v1_style_string_to_sign(const std::string& method, const std::string& content_md5,
                                    const std::string& content_type, const std::string& date,
                                    const std::vector<std::pair<std::string, std::string>>& headers,
                                    std::string_view prefix, const std::string& resource) {
    std::vector<std::pair<std::string, std::string>> signed_headers;
    for (const auto& [k, v] : headers) {
        std::string name = ascii::to_lower(k);
        if (name.starts_with(prefix)) signed_headers.emplace_back(name, v);
    }
    std::sort(signed_headers.begin(), signed_headers.end());
    std::string s = method + "\n" + content_md5 + "\n" + content_type + "\n" + date + "\n";
    for (const auto& [k, v] : signed_headers) s += k + ":" + v + "\n";
    return s + resource;
}

std::string v1_string_to_sign(const V1Request& r) {
    return v1_style_string_to_sign(r.method, r.content_md5, r.content_type, r.date, r.headers,
                                   "x-oss-", v1_canonical_resource(r));
}

std::string v1_signature(const std::string& secret, const V1Request& r) {
    return base64_encode(net::hmac_sha1(secret, v1_string_to_sign(r)));
}

std::string v1_authorization(const std::string& access_key_id, const std::string& secret,
                             const V1Request& r) {
    return "OSS " + access_key_id + ":" + v1_signature(secret, r);
}

}  // namespace cdcd::oss
