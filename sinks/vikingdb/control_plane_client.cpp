#include "sinks/vikingdb/control_plane_client.h"

#include <simdjson.h>

#include <cstdio>

#include "formats/json/json_writer.h"

namespace cdcd::vikingdb {

namespace {

constexpr const char* kVersion = "2025-06-09";

std::string str_of(simdjson::dom::element e, const char* key) {
    std::string_view v;
    if (e[key].get(v) == simdjson::SUCCESS) return std::string(v);
    return {};
}

std::string body_for(const std::string& project, const std::string& name) {
    std::string out;
    json::Writer w(out);
    w.begin_object()
        .key("ProjectName")
        .string(project)
        .key("CollectionName")
        .string(name)
        .end_object();
    return out;
}

bool is_not_found(const std::string& code) {
    return code.find("NotFound") != std::string::npos || code == "CollectionNotExists";
}

}  // namespace

ApiError::ApiError(const std::string& what, int status, std::string code, std::string message)
    : std::runtime_error(what),
      status_(status),
      code_(std::move(code)),
      message_(std::move(message)) {}

std::pair<std::string, std::string> parse_error_body(const std::string& body) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(body).get(doc) != simdjson::SUCCESS || !doc.is_object()) return {};
    simdjson::dom::element err;
    if (doc["ResponseMetadata"]["Error"].get(err) == simdjson::SUCCESS)
        return {str_of(err, "Code"), str_of(err, "Message")};
    return {str_of(doc, "code"), str_of(doc, "message")};
}

std::string cause_note(std::string_view code) {
    if (code == "InvalidTimestamp")
        return " (this host's clock is more than 15 minutes from VikingDB's; set it right (NTP): "
               "nothing is lost, a restart resumes from the last checkpoint)";
    return "";
}

std::string attempts_note(const net::RetryResult& r, int max_retries) {
    std::string throttled =
        r.throttled > 0 ? ", " + std::to_string(r.throttled) + " of them throttled" : "";
    if (r.retry_after_too_long)
        return " (Retry-After above the cap, retry.max-backoff; after " +
               std::to_string(r.attempts) + " attempts" + throttled + ")";
    if (r.outcome == net::Outcome::Retryable) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.1f",
                      std::chrono::duration<double>(r.elapsed).count());
        return " (max-retries: " + std::to_string(max_retries) +
               " exhausted: " + std::to_string(r.attempts) +
               (r.attempts == 1 ? " attempt" : " attempts") + " over " + seconds + " s" +
               throttled + ")";
    }
    if (r.attempts > 1)
        return " (after " + std::to_string(r.attempts) + " attempts" + throttled + ")";
    return "";
}

bool is_throttling_code(std::string_view code) {
    return code == "RequestLimitExceeded" || code == "FlowLimitExceeded" || code == "Throttling" ||
           code.starts_with("Throttling.");
}

net::Classification classify_response(const net::HttpResponse& r) {
    if (r.status >= 200 && r.status < 300) return {net::Outcome::Success, {}};
    if (r.status == 429) return {net::Outcome::Throttled, {}};
    auto [code, message] = parse_error_body(r.body);
    if (is_throttling_code(code)) return {net::Outcome::Throttled, {}};
    if (r.status >= 500 || r.status == 408) return {net::Outcome::Retryable, {}};
    if (code.find("LimitExceeded") != std::string::npos || code == "ServiceUnavailable" ||
        code == "Timeout" || code == "InternalError")
        return {net::Outcome::Retryable, {}};
    return {net::Outcome::Permanent, {}};
}

CollectionInfo parse_collection_info(const std::string& response_body) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc, result;
    if (parser.parse(response_body).get(doc) != simdjson::SUCCESS ||
        doc["Result"].get(result) != simdjson::SUCCESS || !result.is_object())
        throw std::runtime_error("GetVikingdbCollection: malformed response (no Result object)");
    CollectionInfo info;
    info.name = str_of(result, "CollectionName");
    info.resource_id = str_of(result, "ResourceId");
    info.primary_key = str_of(result, "PrimaryKey");
    simdjson::dom::element vectorize;
    info.vectorize = result["Vectorize"].get(vectorize) == simdjson::SUCCESS &&
                     vectorize.is_object() && simdjson::dom::object(vectorize).size() > 0;
    simdjson::dom::array fields;
    if (result["Fields"].get(fields) == simdjson::SUCCESS) {
        for (simdjson::dom::element f : fields) {
            ExistingField field;
            field.name = str_of(f, "FieldName");
            field.type = str_of(f, "FieldType");
            std::int64_t dim = 0;
            if (f["Dim"].get(dim) == simdjson::SUCCESS) field.dim = static_cast<int>(dim);
            bool pk = false;
            if (f["IsPrimaryKey"].get(pk) == simdjson::SUCCESS) field.primary_key = pk;
            if (field.primary_key && info.primary_key.empty()) info.primary_key = field.name;
            info.fields.push_back(std::move(field));
        }
    }
    for (auto& f : info.fields)
        if (f.name == info.primary_key) f.primary_key = true;
    return info;
}

ControlPlaneClient::ControlPlaneClient(net::HttpClient& http, const Authenticator& auth,
                                       Endpoint endpoint, std::chrono::milliseconds timeout,
                                       net::RetryPolicy policy)
    : http_(http),
      auth_(auth),
      endpoint_(std::move(endpoint)),
      timeout_(timeout),
      policy_(std::move(policy)) {}

boost::asio::awaitable<net::RetryResult> ControlPlaneClient::call(const std::string& action,
                                                                  std::string body) {
    std::string query = "Action=" + action + "&Version=" + kVersion;
    auto make = [&]() {
        net::HttpRequest req = auth_.build(Plane::Control, endpoint_, "/", query, body, timeout_);
        req.endpoint = action;  // the Action (metrics label), not the query
        return req;
    };
    net::Classifier classify = classify_response;
    net::RetryResult r = co_await net::send_with_retry(http_, make, classify, policy_);
    co_return r;
}

ApiError ControlPlaneClient::failure(const std::string& action, const std::string& name,
                                     const net::RetryResult& r) const {
    auto [code, message] = parse_error_body(r.response.body);
    std::string what = "VikingDB " + action + " of collection '" + name + "' failed: HTTP " +
                       std::to_string(r.response.status) + (code.empty() ? "" : " " + code) +
                       (message.empty() ? "" : ": " + message) + cause_note(code) +
                       attempts_note(r, policy_.max_retries);
    return ApiError(what, r.response.status, code, message);
}

boost::asio::awaitable<std::optional<CollectionInfo>> ControlPlaneClient::get_collection(
    std::string project, std::string name) {
    net::RetryResult r = co_await call("GetVikingdbCollection", body_for(project, name));
    if (r.outcome == net::Outcome::Success) co_return parse_collection_info(r.response.body);
    auto [code, message] = parse_error_body(r.response.body);
    if (r.response.status == 404 || is_not_found(code)) co_return std::nullopt;
    throw failure("GetVikingdbCollection", name, r);
}

boost::asio::awaitable<bool> ControlPlaneClient::create_collection(std::string body) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    std::string name;
    if (parser.parse(body).get(doc) == simdjson::SUCCESS) name = str_of(doc, "CollectionName");
    net::RetryResult r = co_await call("CreateVikingdbCollection", body);
    if (r.outcome == net::Outcome::Success) co_return true;
    auto [code, message] = parse_error_body(r.response.body);
    if (code.find("AlreadyExists") != std::string::npos) co_return false;
    throw failure("CreateVikingdbCollection", name, r);
}

boost::asio::awaitable<bool> ControlPlaneClient::delete_collection(std::string project,
                                                                   std::string name) {
    net::RetryResult r = co_await call("DeleteVikingdbCollection", body_for(project, name));
    if (r.outcome == net::Outcome::Success) co_return true;
    auto [code, message] = parse_error_body(r.response.body);
    if (r.response.status == 404 || is_not_found(code)) co_return false;
    throw failure("DeleteVikingdbCollection", name, r);
}

}  // namespace cdcd::vikingdb
