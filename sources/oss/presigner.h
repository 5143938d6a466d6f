#pragma once
// Pre-signed GET URLs for objects (V1: OSSAccessKeyId/Expires/Signature; V4: x-oss-* query),
// the `url` column when oss-objects.pre-sign.enabled is on.
#include <chrono>
#include <string>

#include "sources/oss/credentials.h"

namespace cdcd::oss {

class Presigner {
  public:
    Presigner(std::string endpoint, std::string region, bool v4, Credentials credentials,
              std::chrono::seconds ttl);
    /// A URL valid for the TTL from now_seconds.
    std::string url(const std::string& bucket, const std::string& key, long long now_seconds) const;

  private:
    std::string endpoint_, region_;
    bool v4_;
    Credentials credentials_;
    std::chrono::seconds ttl_;
};

}  // namespace cdcd::oss
