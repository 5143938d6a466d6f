#include "sources/dingtalk/token_cache.h"

#include <simdjson.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "pipeline/util/json_escape.h"
#include "sources/dingtalk/api_client.h"

namespace cdcd::dingtalk {

using Clock = std::chrono::steady_clock;

TokenCache::TokenCache(net::HttpClient& http, std::string endpoint, std::string app_key,
                       std::string app_secret, net::RetryPolicy policy,
                       std::chrono::milliseconds request_timeout)
    : http_(http),
      endpoint_(std::move(endpoint)),
      app_key_(std::move(app_key)),
      app_secret_(std::move(app_secret)),
      policy_(std::move(policy)),
      timeout_(request_timeout) {}

std::chrono::milliseconds TokenCache::renew_after(std::chrono::seconds expire_in) {
    auto life = std::chrono::duration_cast<std::chrono::milliseconds>(expire_in);
    auto early = std::min<std::chrono::milliseconds>(life / 5, std::chrono::minutes(5));
    return life - early;
}

boost::asio::awaitable<std::string> TokenCache::get() {
    for (;;) {
        if (!token_.empty() && Clock::now() < renew_at_) co_return token_;
        if (!fetching_) break;
        // Another coroutine is fetching: wait for it rather than asking twice.
        co_await net::sleep_for(std::chrono::milliseconds(20));
    }
    fetching_ = true;
    try {
        co_await fetch();
    } catch (...) {
        fetching_ = false;
        throw;
    }
    fetching_ = false;
    co_return token_;
}

void TokenCache::invalidate(const std::string& token) {
    if (token == token_) token_.clear();
}

boost::asio::awaitable<void> TokenCache::fetch() {
    std::string body = "{\"appKey\":" + json::quoted(app_key_) +
                       ",\"appSecret\":" + json::quoted(app_secret_) + "}";
    const std::function<net::HttpRequest()> make = [&] {
        net::HttpRequest req;
        req.method = "POST";
        req.url = endpoint_ + "/v1.0/oauth2/accessToken";
        req.headers.set("Content-Type", "application/json; charset=utf-8");
        req.headers.set("Accept", "application/json");
        req.body = body;
        req.timeout = timeout_;
        req.endpoint = "GetAccessToken";
        req.max_response_bytes = kApiResponseLimit;
        req.response_limit_name = "the dingtalk-cdc source's fixed limit on API answers";
        return req;
    };
    const net::Classifier classify = [](const net::HttpResponse& r) -> net::Classification {
        if (r.status >= 200 && r.status < 300) return {net::Outcome::Success, {}};
        if (r.status >= 500 || r.status == 429)
            return {net::Outcome::Retryable, std::chrono::milliseconds(1000)};
        return {net::Outcome::Permanent, {}};
    };
    auto started = Clock::now();
    net::RetryResult result;
    try {
        result = co_await net::send_with_retry(http_, make, classify, policy_);
    } catch (const net::HttpError& e) {
        // Not worth asking again (the same answer would come); other transport errors are
        // handled like the API's (retried at the next poll).
        if (e.kind() != net::HttpError::Kind::TooLarge) throw;
        throw ApiError(ErrorClass::Fatal, 0, "ResponseTooLarge",
                       std::string("dingtalk-cdc: DingTalk GetAccessToken: ") + e.what());
    }
    const auto& r = result.response;
    simdjson::dom::parser parser;
    simdjson::padded_string padded(r.body);
    auto doc = parser.parse(padded);
    if (result.outcome != net::Outcome::Success) {
        std::string code, message;
        if (!doc.error()) {
            std::string_view v;
            if (!doc["code"].get(v)) code = v;
            if (!doc["message"].get(v)) message = v;
        }
        auto cls =
            result.outcome == net::Outcome::Retryable ? ErrorClass::Transient : ErrorClass::Fatal;
        throw ApiError(cls, r.status, code,
                       "DingTalk access token request for app-key `" + app_key_ +
                           "` failed: HTTP " + std::to_string(r.status) + " " + code + " " +
                           message);
    }
    std::string_view token;
    std::int64_t expire_in = 0;
    if (doc.error() || doc["accessToken"].get(token) || doc["expireIn"].get(expire_in) ||
        token.empty())
        throw ApiError(ErrorClass::Transient, r.status, "",
                       "DingTalk access token response is malformed");
    token_ = std::string(token);
    renew_at_ = started + renew_after(std::chrono::seconds(expire_in));
    ++fetches_;
    spdlog::debug("dingtalk-cdc: access token for app-key {} renewed, expires in {} s", app_key_,
                  expire_in);
}

}  // namespace cdcd::dingtalk
