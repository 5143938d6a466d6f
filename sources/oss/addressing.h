#pragma once
// Where an OSS bucket and object live on an endpoint: virtual-hosted ({bucket}.host/{key}) for
// DNS endpoints, path style (host/{bucket}/{key}) for IP literals and localhost, as oss2 does.
#include <string>

namespace cdcd::oss {

struct OssAddress {
    std::string endpoint;  // scheme://host[:port]
};

bool path_style(const std::string& endpoint);
/// URL of an object (key percent-encoded, '/' kept), or of the bucket when key is empty
/// ("…/bucket/" or "bucket.host/"), followed by "?query" when query is non-empty.
std::string object_url(const std::string& endpoint, const std::string& bucket,
                       const std::string& key, const std::string& query = {});

}  // namespace cdcd::oss
