#include "sources/oss/mns_client.h"

#include <chrono>

#include "net/digest.h"
#include "net/url.h"
#include "pipeline/util/base64.h"
#include "sources/oss/mns_signer.h"
#include "sources/oss/oss_client.h"
#include "sources/oss/xml.h"

namespace cdcd::oss {
namespace {

std::int64_t to_ll(const std::string& s) {
    return std::strtoll(s.c_str(), nullptr, 10);
}

bool throttled(const net::HttpResponse& r) {
    return r.status == 429 || r.body.find("QpsLimitExceeded") != std::string::npos ||
           r.body.find("TooManyRequests") != std::string::npos;
}

net::Classification classify(const net::HttpResponse& r) {
    if (r.status >= 200 && r.status < 300) return {net::Outcome::Success, {}};
    if (throttled(r)) return {net::Outcome::Retryable, std::chrono::milliseconds(500)};
    if (r.status >= 500 || r.status == 408) return {net::Outcome::Retryable, {}};
    return {net::Outcome::Permanent, {}};
}

// "MNS <what>: HTTP <status> <code> (<message>)"; a request refused for its Date (TimeExpired)
// names the host's clock.
std::string error_text(const std::string& what, int status, const std::string& code,
                       const std::string& message) {
    std::string text = "MNS " + what + ": HTTP " + std::to_string(status) + " " + code;
    if (!message.empty()) text += " (" + message + ")";
    if (code == "TimeExpired") text += skewed_clock_note("MNS");
    return text;
}

MnsMessage message_of(const XmlElement& m) {
    MnsMessage out;
    out.message_id = m.child_text("MessageId");
    out.receipt_handle = m.child_text("ReceiptHandle");
    out.body = m.child_text("MessageBody");
    out.enqueue_time_ms = to_ll(m.child_text("EnqueueTime", "0"));
    out.next_visible_time_ms = to_ll(m.child_text("NextVisibleTime", "0"));
    out.dequeue_count = static_cast<int>(to_ll(m.child_text("DequeueCount", "0")));
    return out;
}

}  // namespace

std::vector<MnsMessage> parse_messages(const std::string& body) {
    XmlElement root = parse_xml(body);
    std::vector<MnsMessage> out;
    if (root.name == "Message") {
        out.push_back(message_of(root));
    } else if (root.name == "Messages") {
        for (const auto* m : root.children_named("Message")) out.push_back(message_of(*m));
    } else {
        throw XmlError("MNS: unexpected root <" + root.name + ">");
    }
    for (const auto& m : out)
        if (m.receipt_handle.empty()) throw XmlError("MNS: message without ReceiptHandle");
    return out;
}

std::string batch_delete_body(const std::vector<std::string>& handles) {
    std::string b =
        R"(<?xml version="1.0" encoding="UTF-8"?><ReceiptHandles xmlns="http://mns.aliyuncs.com/doc/v1/">)";
    for (const auto& h : handles) b += "<ReceiptHandle>" + xml_escape(h) + "</ReceiptHandle>";
    return b + "</ReceiptHandles>";
}

std::vector<std::pair<std::string, std::string>> parse_batch_delete_errors(
    const std::string& body) {
    std::vector<std::pair<std::string, std::string>> out;
    XmlElement root = parse_xml(body);
    if (root.name != "Errors") return out;
    for (const auto* e : root.children_named("Error"))
        out.emplace_back(e->child_text("ReceiptHandle"), e->child_text("ErrorCode"));
    return out;
}

MnsClient::MnsClient(net::HttpClient& http, std::string endpoint, std::string queue,
                     Credentials credentials, std::function<bool()> cancelled,
                     std::chrono::milliseconds request_timeout)
    : http_(http),
      endpoint_(std::move(endpoint)),
      queue_(std::move(queue)),
      credentials_(std::move(credentials)),
      policy_(service_retry_policy(std::move(cancelled))),
      request_timeout_(request_timeout) {}

net::HttpRequest MnsClient::sign(const std::string& method, const std::string& target,
                                 const std::string& body, long long now) const {
    net::HttpRequest req;
    req.method = method;
    req.url = endpoint_ + target;
    MnsSignInput in;
    in.method = method;
    in.date = http_date(now);
    in.resource = target;
    in.headers = {{"x-mns-version", "2015-06-06"}};
    if (!body.empty()) {
        in.content_type = "text/xml;charset=UTF-8";
        in.content_md5 = base64_encode(net::md5(body));
        req.headers.add("Content-Type", in.content_type);
        req.headers.add("Content-MD5", in.content_md5);
        req.body = body;
    }
    req.headers.add("Date", in.date);
    req.headers.add("x-mns-version", "2015-06-06");
    if (!credentials_.security_token.empty())
        req.headers.add("security-token", credentials_.security_token);
    req.headers.add("Authorization", mns_authorization(credentials_.access_key_id,
                                                       credentials_.access_key_secret, in));
    return req;
}

boost::asio::awaitable<net::RetryResult> MnsClient::send(std::function<net::HttpRequest()> make,
                                                         const std::string& what,
                                                         std::chrono::milliseconds timeout) {
    auto timed = [make, timeout, what] {
        net::HttpRequest r = make();
        r.timeout = timeout;
        r.endpoint = what;  // the operation name (metrics label)
        r.max_response_bytes = kMnsResponseLimit;
        r.response_limit_name = "the oss-cdc source's fixed limit on MNS answers";
        return r;
    };
    net::RetryResult result;
    try {
        result = co_await net::send_with_retry(http_, timed, classify, policy_);
    } catch (const net::HttpError& e) {
        // An answer over its limit would come again: not worth retrying.
        const bool too_large = e.kind() == net::HttpError::Kind::TooLarge;
        throw MnsError(0, too_large ? "ResponseTooLarge" : "", "MNS " + what + ": " + e.what(),
                       !too_large);
    }
    if (result.outcome == net::Outcome::Success && bytes_in_)
        bytes_in_->inc(result.response.body.size());
    co_return result;
}

boost::asio::awaitable<std::vector<MnsMessage>> MnsClient::receive(int n, int wait_seconds) {
    std::string target = "/queues/" + queue_ + "/messages?numOfMessages=" + std::to_string(n) +
                         "&waitseconds=" + std::to_string(wait_seconds);
    auto make = [this, target] { return sign("GET", target, "", now_seconds()); };
    // A long poll answers after up to wait_seconds by design: only what comes after is late.
    net::RetryResult res =
        co_await send(make, "BatchReceiveMessage",
                      std::chrono::milliseconds(wait_seconds * 1000) + request_timeout_);
    const auto& r = res.response;
    if (r.status == 200) {
        try {
            co_return parse_messages(r.body);
        } catch (const XmlError& e) {
            throw MnsError(200, "MalformedResponse",
                           std::string("MNS BatchReceiveMessage: ") + e.what(), true);
        }
    }
    auto [code, message] = parse_error_body(r.body);
    if (r.status == 404 && code == "MessageNotExist") co_return std::vector<MnsMessage>{};
    throw MnsError(r.status, code, error_text("BatchReceiveMessage", r.status, code, message),
                   res.outcome == net::Outcome::Retryable);
}

namespace {

// Adds the refused handles of one delete response to failures; throws MnsError when the whole
// call failed for another reason.
void collect_delete_result(const net::RetryResult& res, const std::vector<std::string>& chunk,
                           std::vector<DeleteFailure>& failures) {
    const auto& r = res.response;
    if (r.status == 204 || r.status == 200) return;
    auto [code, message] = parse_error_body(r.body);
    if (res.outcome == net::Outcome::Retryable)
        throw MnsError(r.status, code, error_text("delete", r.status, code, message), true);
    std::vector<std::pair<std::string, std::string>> errors;
    try {
        errors = parse_batch_delete_errors(r.body);
    } catch (const XmlError&) {
    }
    if (!errors.empty()) {
        for (auto& [h, c] : errors) failures.push_back({h, c});
        return;
    }
    if (code == "MessageNotExist" || code == "ReceiptHandleError") {
        for (const auto& h : chunk) failures.push_back({h, code});
        return;
    }
    throw MnsError(r.status, code, error_text("delete", r.status, code, message), false);
}

}  // namespace

boost::asio::awaitable<net::RetryResult> MnsClient::delete_chunk(std::vector<std::string> chunk,
                                                                 bool batch) {
    std::function<net::HttpRequest()> make;
    std::string what;
    if (batch) {
        std::string body = batch_delete_body(chunk);
        std::string target = "/queues/" + queue_ + "/messages";
        make = [this, target, body] { return sign("DELETE", target, body, now_seconds()); };
        what = "BatchDeleteMessage";
    } else {
        std::string target =
            "/queues/" + queue_ + "/messages?ReceiptHandle=" + net::percent_encode(chunk[0]);
        make = [this, target] { return sign("DELETE", target, "", now_seconds()); };
        what = "DeleteMessage";
    }
    co_return co_await send(make, what, request_timeout_);
}

boost::asio::awaitable<std::vector<DeleteFailure>> MnsClient::remove(
    std::vector<std::string> handles, bool batch) {
    std::vector<DeleteFailure> failures;
    std::size_t step = batch ? 16 : 1;
    for (std::size_t i = 0; i < handles.size(); i += step) {
        std::vector<std::string> chunk(
            handles.begin() + static_cast<std::ptrdiff_t>(i),
            handles.begin() + static_cast<std::ptrdiff_t>(std::min(handles.size(), i + step)));
        net::RetryResult res = co_await delete_chunk(chunk, batch);
        collect_delete_result(res, chunk, failures);
    }
    co_return failures;
}

boost::asio::awaitable<MnsMessage> MnsClient::change_visibility(std::string handle, int seconds) {
    std::string target = "/queues/" + queue_ +
                         "/messages?receiptHandle=" + net::percent_encode(handle) +
                         "&visibilityTimeout=" + std::to_string(seconds);
    auto make = [this, target] { return sign("PUT", target, "", now_seconds()); };
    net::RetryResult res = co_await send(make, "ChangeMessageVisibility", request_timeout_);
    const auto& r = res.response;
    if (r.status == 200) {
        XmlElement root = parse_xml(r.body);
        MnsMessage m;
        m.receipt_handle = root.child_text("ReceiptHandle");
        m.next_visible_time_ms =
            std::strtoll(root.child_text("NextVisibleTime", "0").c_str(), nullptr, 10);
        co_return m;
    }
    auto [code, message] = parse_error_body(r.body);
    throw MnsError(r.status, code, error_text("ChangeMessageVisibility", r.status, code, message),
                   res.outcome == net::Outcome::Retryable);
}

}  // namespace cdcd::oss
