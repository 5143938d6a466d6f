#pragma once
// Authentication of VikingDB requests: the data plane uses `Authorization: Bearer <api key>`
// when an API key is configured and Volcengine V4 (AK/SK) otherwise; the control plane is
// always V4-signed, with Host among the signed headers (vendor-apis.md §5.1).
#include <chrono>
#include <functional>
#include <string>

#include "net/http_client.h"
#include "sinks/vikingdb/options.h"
#include "sinks/vikingdb/signer.h"

namespace cdcd::vikingdb {

enum class Plane { Data, Control };

struct Endpoint {
    std::string scheme;  // http / https
    std::string host;    // host[:port]
};

class Authenticator {
  public:
    using Clock = std::function<std::chrono::system_clock::time_point()>;
    Authenticator(Credentials credentials, std::string region,
                  Clock clock = std::chrono::system_clock::now);

    /// A POST of a JSON `body` to `path` (?`query`) on `endpoint`, authorized for `plane`.
    net::HttpRequest build(Plane plane, const Endpoint& endpoint, const std::string& path,
                           const std::string& query, std::string body,
                           std::chrono::milliseconds timeout) const;

    bool data_plane_uses_api_key() const { return !credentials_.api_key.empty(); }

  private:
    Credentials credentials_;
    V4Signer signer_;
    Clock clock_;
};

}  // namespace cdcd::vikingdb
