#pragma once
// Typed calls to the DingTalk OpenAPI endpoints the reader uses, with the token, the shared
// per-app-key rate limiters, the retry policy and the spec's error classes.
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "metrics/connector_metrics.h"
#include "net/http_client.h"
#include "net/rate_limiter.h"
#include "net/retry.h"
#include "sources/dingtalk/model.h"
#include "sources/dingtalk/options.h"
#include "sources/dingtalk/token_cache.h"

namespace cdcd::dingtalk {

/// How the reader reacts to an API error.
enum class ErrorClass {
    NotFound,   // nodeNotExist & co: the object is gone, skip it
    Skip,       // the operator may not read this object (acrossOrg, permission, illegal doc key)
    Transient,  // throttled / 5xx / transport, retries exhausted: try again next poll
    Fatal,      // the app or configuration is wrong (bad secret, missing scope, org auth level)
    TooLarge,   // a page of a document's blocks over its limit: the document is too large
};

/// The most bytes an API answer other than a block page may hold (a token, a page of 30
/// workspaces or 50 nodes, one node: KiB in practice). Over it the answer is ErrorClass::Fatal.
inline constexpr std::size_t kApiResponseLimit = 4u << 20;
/// A block page may hold scan.document.max-bytes of blocks plus this much of envelope.
inline constexpr std::size_t kBlockPageEnvelope = 1u << 20;

const char* to_string(ErrorClass c);

class ApiError : public std::runtime_error {
  public:
    ApiError(ErrorClass cls, int status, std::string code, const std::string& what);
    ErrorClass cls() const { return cls_; }
    int status() const { return status_; }
    const std::string& code() const { return code_; }

  private:
    ErrorClass cls_;
    int status_;
    std::string code_;
};

/// Classifies an error response by HTTP status, `code` and `message` (vendor-apis.md §1.5).
ErrorClass classify_error(int status, std::string_view code, std::string_view message);
/// True for the QPS/QPM throttling answers (403 Forbidden.AccessDenied.Qp*, 429).
bool is_throttled(int status, std::string_view code);

/// When a document fetch must end (scan.document.fetch.max-duration): a request made for it
/// waits at most until then, and is not retried past it.
using Deadline = std::optional<std::chrono::steady_clock::time_point>;

class DingTalkApi {
  public:
    /// Counts retries, failed responses, rate-limiter waits and response bytes on `metrics`
    /// (requests by endpoint come from `http`'s observer).
    DingTalkApi(net::HttpClient& http, const DingTalkOptions& options,
                std::function<bool()> cancelled, metrics::ConnectorMetrics& metrics);

    boost::asio::awaitable<Page<Workspace>> list_workspaces(std::string next_token);
    boost::asio::awaitable<Workspace> get_workspace(std::string workspace_id);
    boost::asio::awaitable<Page<Node>> list_nodes(std::string parent_node_id,
                                                  std::string next_token);
    boost::asio::awaitable<Node> get_node(std::string node_id, Deadline deadline = {});
    /// Top-level blocks start..end (inclusive), each as minified JSON text.
    boost::asio::awaitable<std::vector<std::string>> blocks(std::string doc_key, int start, int end,
                                                            Deadline deadline = {});

    /// One token per document fetch attempt (scan.fetch.rate-limit).
    net::RateLimiter& fetch_limiter() { return *fetch_; }
    metrics::ConnectorMetrics& metrics() { return metrics_; }
    TokenCache& tokens() { return tokens_; }

  private:
    /// `endpoint`: the operation's name (metrics label); `limiter_label`: the limiter's. An answer
    /// over `max_bytes` (named `limit_name`) is an ApiError of class `too_large`.
    boost::asio::awaitable<std::string> call(const char* endpoint, std::string path_and_query,
                                             net::RateLimiter& limiter, const char* limiter_label,
                                             std::size_t max_bytes = kApiResponseLimit,
                                             ErrorClass too_large = ErrorClass::Fatal,
                                             Deadline deadline = {});

    net::HttpClient& http_;
    const DingTalkOptions& options_;
    metrics::ConnectorMetrics& metrics_;
    net::RetryPolicy policy_;
    TokenCache tokens_;
    std::shared_ptr<net::RateLimiter> discovery_, metadata_, content_, fetch_;
};

}  // namespace cdcd::dingtalk
