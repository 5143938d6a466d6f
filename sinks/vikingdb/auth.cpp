#include "sinks/vikingdb/auth.h"

namespace cdcd::vikingdb {

Authenticator::Authenticator(Credentials credentials, std::string region, Clock clock)
    : credentials_(std::move(credentials)),
      signer_(credentials_.access_key, credentials_.secret_key, std::move(region)),
      clock_(std::move(clock)) {}

net::HttpRequest Authenticator::build(Plane plane, const Endpoint& endpoint,
                                      const std::string& path, const std::string& query,
                                      std::string body, std::chrono::milliseconds timeout) const {
    net::HttpRequest req;
    req.method = "POST";
    req.url = endpoint.scheme + "://" + endpoint.host + path + (query.empty() ? "" : "?" + query);
    req.timeout = timeout;
    req.headers.add("Accept", "application/json");
    req.headers.add("Content-Type", "application/json");
    if (plane == Plane::Data && !credentials_.api_key.empty()) {
        req.headers.add("Authorization", "Bearer " + credentials_.api_key);
    } else {
        SignRequest s;
        s.method = "POST";
        s.path = path;
        s.query = query;
        s.headers.emplace_back("Content-Type", "application/json");
        // The data SDK does not sign Host; the control-plane SDK and the docs do.
        if (plane == Plane::Control) s.headers.emplace_back("Host", endpoint.host);
        s.body = body;
        signer_.sign_in_place(s, clock_());
        for (std::size_t i = 1; i < s.headers.size(); ++i) {
            if (s.headers[i].first == "Host") continue;  // the HTTP client sets Host itself
            req.headers.set(s.headers[i].first, s.headers[i].second);
        }
    }
    req.body = std::move(body);
    return req;
}

}  // namespace cdcd::vikingdb
