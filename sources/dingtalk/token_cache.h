#pragma once
// The app's access token (POST /v1.0/oauth2/accessToken), cached and renewed before `expireIn`
// runs out, and on demand after the API answered InvalidAuthentication.
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <string>

#include "net/http_client.h"
#include "net/retry.h"

namespace cdcd::dingtalk {

class TokenCache {
  public:
    TokenCache(net::HttpClient& http, std::string endpoint, std::string app_key,
               std::string app_secret, net::RetryPolicy policy,
               std::chrono::milliseconds request_timeout);

    /// A valid token, fetching a new one when none is cached or it is about to expire.
    boost::asio::awaitable<std::string> get();
    /// The API rejected `token`: forget it (unless it was already replaced).
    void invalidate(const std::string& token);

    int fetches() const { return fetches_; }

    /// When to renew a token that lives `expire_in`: 80% of its life, at most 5 minutes early.
    static std::chrono::milliseconds renew_after(std::chrono::seconds expire_in);

  private:
    boost::asio::awaitable<void> fetch();

    net::HttpClient& http_;
    std::string endpoint_, app_key_, app_secret_;
    net::RetryPolicy policy_;
    std::chrono::milliseconds timeout_;
    std::string token_;
    std::chrono::steady_clock::time_point renew_at_{};
    bool fetching_ = false;
    int fetches_ = 0;
};

}  // namespace cdcd::dingtalk
