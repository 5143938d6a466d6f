#include "sources/dingtalk/api_client.h"

#include <algorithm>

#include "metrics/http_observer.h"
#include "net/url.h"
#include "sources/dingtalk/api_responses.h"

namespace cdcd::dingtalk {

const char* to_string(ErrorClass c) {
    switch (c) {
        case ErrorClass::NotFound:
            return "not found";
        case ErrorClass::Skip:
            return "not readable";
        case ErrorClass::Transient:
            return "transient";
        case ErrorClass::Fatal:
            return "fatal";
        case ErrorClass::TooLarge:
            return "too large";
    }
    return "?";
}

ApiError::ApiError(ErrorClass cls, int status, std::string code, const std::string& what)
    : std::runtime_error(what), cls_(cls), status_(status), code_(std::move(code)) {}

bool is_throttled(int status, std::string_view code) {
    if (status == 429) return true;
    return status == 403 && (code.starts_with("Forbidden.AccessDenied.QpsLimit") ||
                             code.starts_with("Forbidden.AccessDenied.QpmLimit"));
}

ErrorClass classify_error(int status, std::string_view code, std::string_view message) {
    if (is_throttled(status, code) || status >= 500) return ErrorClass::Transient;
    if (status == 404 || code == "nodeNotExist" || code == "parentNodeNotExist" ||
        code == "docNotExist" || code == "workspaceNotExist" ||
        code == "invalidRequest.document.deleted" || code == "invalidRequest.workspace.deleted" ||
        code == "invalidRequest.resource.notFound")
        return ErrorClass::NotFound;
    if (code == "forbidden.acrossOrg" || code == "permissionDenied" ||
        code == "forbidden.accessDenied" ||
        (code == "invalidRequest.inputArgs.invalid" &&
         message.find("doc key is illegal") != std::string_view::npos))
        return ErrorClass::Skip;
    // orgAuthLevelNotEnough, Forbidden.AccessDenied.AccessTokenPermissionDenied,
    // ApiCountLimitForOrg, IpNotInWhiteList, invalidClientIdOrSecret, paramError, ...
    return ErrorClass::Fatal;
}

namespace {

bool invalid_authentication(int status, std::string_view code) {
    return status == 401 || (status == 400 && code == "InvalidAuthentication");
}

/// A document or node that no longer exists: the reader handles it (a delete), not an error.
bool not_found_answer(const net::HttpResponse& r) {
    ErrorBody e = parse_error(r.body);
    return classify_error(r.status, e.code, e.message) == ErrorClass::NotFound;
}

net::RetryPolicy retry_policy(const DingTalkOptions& options, std::function<bool()> cancelled,
                              metrics::ConnectorMetrics& metrics) {
    net::RetryPolicy policy;
    policy.max_retries = options.request_max_retries;
    policy.initial_backoff = std::chrono::milliseconds(200);
    policy.max_backoff = std::chrono::milliseconds(30'000);
    policy.retry_after_cap = options.retry_after_max_delay;
    policy.cancelled = std::move(cancelled);
    metrics::observe_retries(policy, metrics, {}, not_found_answer);
    return policy;
}

}  // namespace

DingTalkApi::DingTalkApi(net::HttpClient& http, const DingTalkOptions& options,
                         std::function<bool()> cancelled, metrics::ConnectorMetrics& metrics)
    : http_(http),
      options_(options),
      metrics_(metrics),
      policy_(retry_policy(options, std::move(cancelled), metrics)),
      tokens_(http, options.endpoint, options.app_key, options.app_secret, policy_,
              options.request_timeout) {
    // Shared by every source of the process that uses the same app-key (the quota is the app's).
    const std::string base = "dingtalk:" + options.app_key + ":";
    discovery_ = net::RateLimiterRegistry::get(base + "discovery", options.discovery_rps, 1);
    metadata_ = net::RateLimiterRegistry::get(base + "metadata", options.metadata_rps, 1);
    content_ = net::RateLimiterRegistry::get(base + "content", options.content_rps, 1);
    fetch_ = net::RateLimiterRegistry::get(base + "fetch", options.fetch_rps, 1);
}

boost::asio::awaitable<std::string> DingTalkApi::call(
    const char* endpoint, std::string path_and_query, net::RateLimiter& limiter,
    const char* limiter_label, std::size_t max_bytes, ErrorClass too_large, Deadline deadline) {
    const char* limit_name = too_large == ErrorClass::TooLarge
                                 ? "scan.document.max-bytes (plus 1 MiB for the answer's envelope)"
                                 : "the dingtalk-cdc source's fixed limit on API answers";
    const std::string url = options_.endpoint + path_and_query;
    const std::string shown =
        options_.endpoint + path_and_query.substr(0, path_and_query.find('?'));
    for (int auth_attempt = 0;; ++auth_attempt) {
        std::string token = co_await tokens_.get();
        const std::function<net::HttpRequest()> make = [&] {
            net::HttpRequest req;
            req.method = "GET";
            req.url = url;
            req.headers.set("x-acs-dingtalk-access-token", token);
            req.headers.set("Accept", "application/json");
            req.timeout = options_.request_timeout;
            if (deadline) {
                auto left = std::chrono::ceil<std::chrono::milliseconds>(
                    *deadline - std::chrono::steady_clock::now());
                req.timeout = std::clamp(left, std::chrono::milliseconds(1), req.timeout);
            }
            req.endpoint = endpoint;
            req.max_response_bytes = max_bytes;
            req.response_limit_name = limit_name;
            return req;
        };
        const net::Classifier classify = [](const net::HttpResponse& r) -> net::Classification {
            if (r.status >= 200 && r.status < 300) return {net::Outcome::Success, {}};
            if (r.status >= 500) return {net::Outcome::Retryable, {}};
            if (r.status == 403 || r.status == 429) {
                auto e = parse_error(r.body);
                // DingTalk's QPS windows are 1 s: wait at least that long.
                if (is_throttled(r.status, e.code))
                    return {net::Outcome::Retryable, std::chrono::milliseconds(1000)};
            }
            return {net::Outcome::Permanent, {}};
        };
        net::RetryResult result;
        net::RetryPolicy policy = policy_;  // with this call's limiter named in the metrics
        metrics::observe_retries(policy, metrics_, limiter_label, not_found_answer);
        if (deadline)  // no retry, and no wait for one, past the deadline
            policy.cancelled = [stopping = policy.cancelled, at = *deadline] {
                return (stopping && stopping()) || std::chrono::steady_clock::now() >= at;
            };
        try {
            result = co_await net::send_with_retry(http_, make, classify, policy, &limiter);
        } catch (const net::HttpError& e) {
            // An answer over its limit would come again: the document is too large, or (any
            // other answer) the service is not what the source expects.
            if (e.kind() == net::HttpError::Kind::TooLarge)
                throw ApiError(too_large, 0, "ResponseTooLarge",
                               std::string("dingtalk-cdc: DingTalk ") + endpoint + ": " + e.what());
            throw ApiError(ErrorClass::Transient, 0, "", e.what());
        }
        const auto& r = result.response;
        metrics_.bytes_in.inc(r.body.size());
        if (result.outcome == net::Outcome::Success) co_return r.body;
        ErrorBody e = parse_error(r.body);
        if (invalid_authentication(r.status, e.code) && auth_attempt == 0) {
            tokens_.invalidate(token);  // expired or revoked: fetch a new one and try again
            continue;
        }
        ErrorClass cls = classify_error(r.status, e.code, e.message);
        if (invalid_authentication(r.status, e.code)) cls = ErrorClass::Fatal;
        if (result.outcome == net::Outcome::Retryable) cls = ErrorClass::Transient;
        std::string what =
            "DingTalk " + shown + ": HTTP " + std::to_string(r.status) + " " + e.code;
        if (!e.message.empty()) what += " (" + e.message + ")";
        if (!e.request_id.empty()) what += " request id " + e.request_id;
        if (result.retry_after_too_long)
            what += "; Retry-After exceeds request.retry-after.max-delay";
        else if (result.outcome == net::Outcome::Retryable)
            what += " after " + std::to_string(result.attempts) + " attempts";
        throw ApiError(cls, r.status, e.code, what);
    }
}

boost::asio::awaitable<Page<Workspace>> DingTalkApi::list_workspaces(std::string next_token) {
    std::vector<std::pair<std::string, std::string>> q{{"operatorId", options_.operator_id},
                                                       {"maxResults", "30"}};
    if (!next_token.empty()) q.emplace_back("nextToken", next_token);
    std::string path = "/v2.0/wiki/workspaces?" + net::build_query(q);
    std::string body = co_await call("ListWorkspaces", std::move(path), *discovery_, "discovery");
    co_return parse_workspace_page(body);
}

boost::asio::awaitable<Workspace> DingTalkApi::get_workspace(std::string workspace_id) {
    std::string path = "/v2.0/wiki/workspaces/" + net::percent_encode(workspace_id) + "?" +
                       net::build_query({{"operatorId", options_.operator_id}});
    std::string body = co_await call("GetWorkspace", std::move(path), *discovery_, "discovery");
    co_return parse_workspace(body);
}

boost::asio::awaitable<Page<Node>> DingTalkApi::list_nodes(std::string parent_node_id,
                                                           std::string next_token) {
    std::vector<std::pair<std::string, std::string>> q{{"parentNodeId", parent_node_id},
                                                       {"operatorId", options_.operator_id},
                                                       {"maxResults", "50"}};
    if (!next_token.empty()) q.emplace_back("nextToken", next_token);
    std::string path = "/v2.0/wiki/nodes?" + net::build_query(q);
    std::string body = co_await call("ListNodes", std::move(path), *discovery_, "discovery");
    co_return parse_node_page(body);
}

boost::asio::awaitable<Node> DingTalkApi::get_node(std::string node_id, Deadline deadline) {
    std::string path = "/v2.0/wiki/nodes/" + net::percent_encode(node_id) + "?" +
                       net::build_query({{"operatorId", options_.operator_id}});
    std::string body = co_await call("GetNode", std::move(path), *metadata_, "metadata",
                                     kApiResponseLimit, ErrorClass::Fatal, deadline);
    co_return parse_node(body);
}

boost::asio::awaitable<std::vector<std::string>> DingTalkApi::blocks(std::string doc_key, int start,
                                                                     int end, Deadline deadline) {
    std::string path = "/v1.0/doc/suites/documents/" + net::percent_encode(doc_key) + "/blocks?" +
                       net::build_query({{"startIndex", std::to_string(start)},
                                         {"endIndex", std::to_string(end)},
                                         {"operatorId", options_.operator_id}});
    const std::size_t limit = static_cast<std::size_t>(std::min<std::int64_t>(
                                  options_.document_max_bytes, std::int64_t{1} << 50)) +
                              kBlockPageEnvelope;
    std::string body = co_await call("DocBlocksQuery", std::move(path), *content_, "content", limit,
                                     ErrorClass::TooLarge, deadline);
    co_return parse_blocks(body);
}

}  // namespace cdcd::dingtalk
