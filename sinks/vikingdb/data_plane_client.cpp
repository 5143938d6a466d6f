#include "sinks/vikingdb/data_plane_client.h"

#include "formats/json/json_writer.h"
#include "sinks/vikingdb/control_plane_client.h"

namespace cdcd::vikingdb {

namespace {

void address(json::Writer& w, const WriteTarget& t) {
    if (t.resource_id)
        w.key("resource_id").string(*t.resource_id);
    else
        w.key("collection_name").string(t.collection);
    w.key("project_name").string(t.project);
}

std::string describe(const net::RetryResult& r, int max_retries) {
    auto [code, message] = parse_error_body(r.response.body);
    std::string out = "HTTP " + std::to_string(r.response.status);
    if (!code.empty()) out += " " + code;
    if (!message.empty()) out += ": " + message;
    return out + cause_note(code) + attempts_note(r, max_retries);
}

/// A 400 refusing the data itself (a wrong type or dimension, a string too long, a missing
/// field: InvalidParameter, or a code about data): a single record may be to blame, so the batch
/// is worth splitting. Not: credentials (401, InvalidTimestamp), a missing collection (404),
/// throttling (429), a malformed request (MissingParameter), or a 400 without a VikingDB code
/// (a proxy's answer says nothing about a record).
bool rejects_data(const net::RetryResult& r) {
    if (r.outcome != net::Outcome::Permanent || r.response.status != 400) return false;
    auto code = parse_error_body(r.response.body).first;
    return code == "InvalidParameter" || code.find("Data") != std::string::npos;
}

std::string key_range(const Batch& b, std::size_t begin, std::size_t end) {
    if (end - begin == 1) return b.keys[begin];
    return b.keys[begin] + " … " + b.keys[end - 1] + " (" + std::to_string(end - begin) +
           " records)";
}

}  // namespace

DataPlaneClient::DataPlaneClient(net::HttpClient& http, const Authenticator& auth,
                                 Endpoint endpoint, std::chrono::milliseconds timeout,
                                 net::RetryPolicy policy, WriteOptions options)
    : http_(http),
      auth_(auth),
      endpoint_(std::move(endpoint)),
      timeout_(timeout),
      policy_(std::move(policy)),
      options_(options) {}

std::string DataPlaneClient::upsert_body(const WriteTarget& target,
                                         std::string_view items_json) const {
    std::string out;
    out.reserve(items_json.size() + 128);
    json::Writer w(out);
    w.begin_object();
    address(w, target);
    w.key("data").raw(items_json);
    if (options_.ttl_seconds) w.key("ttl").integer(*options_.ttl_seconds);
    if (options_.async_upsert) w.key("async").boolean(true);
    w.end_object();
    return out;
}

std::string DataPlaneClient::delete_body(const WriteTarget& target,
                                         std::string_view ids_json) const {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    address(w, target);
    w.key("ids").raw(ids_json);
    w.end_object();
    return out;
}

ApiError DataPlaneClient::api_error(const std::string& what, const net::RetryResult& r) const {
    auto [code, message] = parse_error_body(r.response.body);
    return ApiError(what + ": " + describe(r, policy_.max_retries), r.response.status, code,
                    message);
}

boost::asio::awaitable<net::RetryResult> DataPlaneClient::post(const std::string& path,
                                                               std::string body) {
    auto make = [&]() {
        ++stats_.requests;
        net::HttpRequest req = auth_.build(Plane::Data, endpoint_, path, "", body, timeout_);
        req.endpoint = path;  // a fixed path (metrics label)
        return req;
    };
    net::Classifier classify = classify_response;
    net::RetryResult r = co_await net::send_with_retry(http_, make, classify, policy_);
    if (r.attempts > 1 + r.throttled)
        stats_.retries += static_cast<std::uint64_t>(r.attempts - 1 - r.throttled);
    if (metrics_ && r.outcome == net::Outcome::Success) metrics_->bytes_out.inc(body.size());
    co_return r;
}

boost::asio::awaitable<std::optional<ApiError>> DataPlaneClient::send_range(
    const WriteTarget& target, const Batch& batch, std::size_t begin, std::size_t end) {
    const bool upsert = batch.kind == OpKind::Upsert;
    const auto& items = upsert ? batch.payloads : batch.keys;
    std::string array = "[";
    for (std::size_t i = begin; i < end; ++i) {
        if (i > begin) array.push_back(',');
        array += items[i];
    }
    array.push_back(']');
    std::string body = upsert ? upsert_body(target, array) : delete_body(target, array);
    net::RetryResult r = co_await post(
        upsert ? "/api/vikingdb/data/upsert" : "/api/vikingdb/data/delete", std::move(body));
    if (r.outcome == net::Outcome::Success) {
        (upsert ? stats_.rows_upserted : stats_.ids_deleted) += end - begin;
        if (metrics_) metrics_->records_out.inc(end - begin);
        co_return std::nullopt;
    }
    std::string what = upsert ? "VikingDB upsert into collection '" + target.collection +
                                    "' failed for primary key " + key_range(batch, begin, end)
                              : "VikingDB delete from collection '" + target.collection +
                                    "' (primary keys " + key_range(batch, begin, end) + ") failed";
    if (policy_.cancelled && policy_.cancelled())
        throw std::runtime_error(what +
                                 ": the pipeline is stopping, so its waits end (last answer " +
                                 describe(r, policy_.max_retries) +
                                 "); the records are replayed from the last checkpoint");
    if (rejects_data(r)) co_return api_error(what, r);
    throw api_error(what, r);
}

boost::asio::awaitable<void> DataPlaneClient::send(WriteTarget target, const Batch& batch,
                                                   OnRejected rejected) {
    if (!rejected) rejected = [](std::size_t, const ApiError& e) { throw e; };
    SendRange range = [&](std::size_t begin, std::size_t end) {
        return send_range(target, batch, begin, end);
    };
    co_await send_isolating(0, batch.size(), range, rejected);
}

boost::asio::awaitable<void> DataPlaneClient::delete_all(WriteTarget target) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    address(w, target);
    w.key("del_all").boolean(true);
    w.end_object();
    net::RetryResult r = co_await post("/api/vikingdb/data/delete", std::move(out));
    if (r.outcome != net::Outcome::Success)
        throw api_error(
            "VikingDB delete-all (TRUNCATE TABLE) of collection '" + target.collection + "' failed",
            r);
}

}  // namespace cdcd::vikingdb
