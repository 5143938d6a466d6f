#include "sources/oss/oss_client.h"

#include <algorithm>
#include <chrono>
#include <ctime>

#include "net/url.h"
#include "sources/oss/addressing.h"
#include "sources/oss/mns_signer.h"
#include "sources/oss/signer_v1.h"
#include "sources/oss/signer_v4.h"
#include "sources/oss/xml.h"

namespace cdcd::oss {
namespace {

std::string strip_quotes(std::string s) {
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
    return s;
}

net::Classification classify(const net::HttpResponse& r) {
    if (r.status >= 200 && r.status < 300) return {net::Outcome::Success, {}};
    if (r.status == 404) return {net::Outcome::Success, {}};  // the caller decides (NoSuchKey)
    if (r.status == 429 || r.status == 503)
        return {net::Outcome::Retryable, std::chrono::milliseconds(500)};
    if (r.status >= 500) return {net::Outcome::Retryable, {}};
    if (r.status == 403 && r.body.find("RequestTimeTooSkewed") != std::string::npos)
        return {net::Outcome::Retryable, {}};
    return {net::Outcome::Permanent, {}};
}

}  // namespace

std::optional<std::int64_t> parse_iso8601_ms(const std::string& t) {
    int y, mo, d, h, mi, s;
    if (t.size() < 19 ||
        std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) != 6)
        return std::nullopt;
    int ms = 0;
    if (t.size() > 20 && t[19] == '.') {
        int digits = 0;
        for (std::size_t i = 20; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]));
             ++i, ++digits)
            if (digits < 3) ms = ms * 10 + (t[i] - '0');
        for (int k = digits; k < 3; ++k) ms *= 10;
    }
    // days from civil (Howard Hinnant)
    y -= mo <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + static_cast<unsigned>(d) - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    long long days = static_cast<long long>(era) * 146097 + static_cast<long long>(doe) - 719468;
    return ((days * 24 + h) * 60 + mi) * 60000LL + s * 1000LL + ms;
}

std::pair<std::string, std::string> parse_error_body(const std::string& body) {
    try {
        XmlElement e = parse_xml(body);
        return {e.child_text("Code"), e.child_text("Message")};
    } catch (const XmlError&) {
        return {};
    }
}

ListPage parse_list_page(const std::string& body) {
    XmlElement root = parse_xml(body);
    if (root.name != "ListBucketResult")
        throw XmlError("ListObjectsV2: unexpected root <" + root.name + ">");
    bool url_encoded = root.child_text("EncodingType") == "url";
    auto dec = [&](const std::string& s) { return url_encoded ? net::percent_decode(s) : s; };
    ListPage page;
    page.truncated = root.child_text("IsTruncated") == "true";
    page.next_continuation_token = dec(root.child_text("NextContinuationToken"));
    page.objects.reserve(root.children.size());
    for (const auto& c : root.children) {
        if (c.name != "Contents") continue;
        ObjectInfo o;
        o.key = dec(c.child_text("Key"));
        o.etag = strip_quotes(c.child_text("ETag"));
        const std::string size = c.child_text("Size", "0");
        o.size = std::strtoll(size.c_str(), nullptr, 10);
        o.mtime_ms = parse_iso8601_ms(c.child_text("LastModified")).value_or(0);
        page.objects.push_back(std::move(o));
    }
    if (page.truncated && page.next_continuation_token.empty())
        throw XmlError("ListObjectsV2: truncated page without NextContinuationToken");
    return page;
}

OssClient::OssClient(net::HttpClient& http, OssClientConfig config, std::function<bool()> cancelled)
    : http_(http),
      config_(std::move(config)),
      policy_(service_retry_policy(std::move(cancelled))) {}

net::HttpRequest OssClient::sign(
    const std::string& method, const std::string& bucket, const std::string& key,
    const std::vector<std::pair<std::string, std::optional<std::string>>>& query,
    long long now) const {
    net::HttpRequest req;
    req.method = method;
    std::string qs;
    for (const auto& [k, v] : query) {
        if (!qs.empty()) qs += "&";
        qs += net::percent_encode(k);
        if (v) qs += "=" + net::percent_encode(*v);
    }
    req.url = object_url(config_.endpoint, bucket, key, qs);
    const auto& c = config_.credentials;
    if (config_.v4) {
        V4Request r;
        r.method = method;
        r.bucket = bucket;
        r.key = key;
        r.query = query;
        r.region = config_.region;
        r.datetime = iso8601_basic(now);
        r.headers = {{"x-oss-date", r.datetime}, {"x-oss-content-sha256", "UNSIGNED-PAYLOAD"}};
        if (!c.security_token.empty())
            r.headers.emplace_back("x-oss-security-token", c.security_token);
        for (const auto& [k, v] : r.headers) req.headers.add(k, v);
        req.headers.add("Authorization", v4_authorization(c.access_key_id, c.access_key_secret, r));
    } else {
        V1Request r;
        r.method = method;
        r.date = http_date(now);
        r.bucket = bucket;
        r.key = key;
        r.query = query;
        if (!c.security_token.empty())
            r.headers.emplace_back("x-oss-security-token", c.security_token);
        req.headers.add("Date", r.date);
        for (const auto& [k, v] : r.headers) req.headers.add(k, v);
        req.headers.add("Authorization", v1_authorization(c.access_key_id, c.access_key_secret, r));
    }
    return req;
}

boost::asio::awaitable<net::RetryResult> OssClient::send(std::function<net::HttpRequest()> make,
                                                         const std::string& what,
                                                         std::size_t max_bytes,
                                                         const std::string& limit_name) {
    // The operation names the request in the metrics: `what` up to its first space.
    const std::function<net::HttpRequest()> named =
        [make, endpoint = what.substr(0, what.find(' ')), timeout = config_.request_timeout,
         deadline = config_.deadline, max_bytes, limit_name] {
            net::HttpRequest r = make();
            r.endpoint = endpoint;
            r.timeout = timeout;
            if (deadline) {
                auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    *deadline - std::chrono::steady_clock::now());
                r.timeout = std::clamp(left, std::chrono::milliseconds(1), timeout);
            }
            r.max_response_bytes = max_bytes;
            r.response_limit_name = limit_name;
            return r;
        };
    net::RetryResult result;
    try {
        result = co_await net::send_with_retry(http_, named, classify, policy_);
    } catch (const net::HttpError& e) {
        // An answer over its limit would come again: not worth retrying.
        const bool too_large = e.kind() == net::HttpError::Kind::TooLarge;
        throw OssError(0, too_large ? "ResponseTooLarge" : "", "OSS " + what + ": " + e.what(),
                       !too_large);
    }
    const auto& r = result.response;
    if (result.outcome == net::Outcome::Success && bytes_in_) bytes_in_->inc(r.body.size());
    if (result.outcome == net::Outcome::Success) co_return result;
    auto [code, message] = parse_error_body(r.body);
    std::string text = "OSS " + what + ": HTTP " + std::to_string(r.status) + " " + code;
    if (!message.empty()) text += " (" + message + ")";
    if (result.outcome == net::Outcome::Retryable)
        text += " after " + std::to_string(result.attempts) + " attempts";
    if (code == "RequestTimeTooSkewed") text += skewed_clock_note("OSS");
    throw OssError(r.status, code, text, result.outcome == net::Outcome::Retryable);
}

boost::asio::awaitable<ListPage> OssClient::list_objects_v2(std::string bucket, std::string prefix,
                                                            std::string start_after,
                                                            std::string continuation_token,
                                                            int max_keys) {
    std::vector<std::pair<std::string, std::optional<std::string>>> query{{"list-type", "2"}};
    if (!prefix.empty()) query.emplace_back("prefix", prefix);
    if (!continuation_token.empty())
        query.emplace_back("continuation-token", continuation_token);
    else if (!start_after.empty())
        query.emplace_back("start-after", start_after);
    query.emplace_back("max-keys", std::to_string(max_keys));
    query.emplace_back("encoding-type", "url");
    auto make = [this, bucket, query] { return sign("GET", bucket, "", query, now_seconds()); };
    net::RetryResult result =
        co_await send(make, "ListObjectsV2 " + bucket, kListResponseLimit,
                      "the oss-cdc source's fixed limit on ListObjectsV2 answers");
    if (result.response.status == 404) {
        auto [code, message] = parse_error_body(result.response.body);
        throw OssError(404, code,
                       "OSS ListObjectsV2 " + bucket + ": HTTP 404 " + code + " (" + message + ")",
                       false);
    }
    try {
        co_return parse_list_page(result.response.body);
    } catch (const XmlError& e) {
        throw OssError(result.response.status, "MalformedResponse",
                       std::string("OSS ListObjectsV2: ") + e.what(), true);
    }
}

boost::asio::awaitable<std::optional<std::string>> OssClient::get_ranged(
    std::function<net::HttpRequest()> make, std::string what, std::uint64_t max_bytes) {
    auto ranged = [make, max_bytes] {
        net::HttpRequest r = make();
        r.headers.set("Range", "bytes=0-" + std::to_string(max_bytes));
        return r;
    };
    // Range asks for max_bytes + 1 bytes: the body limit allows those and no more, in case the
    // server ignores the Range and sends the whole object.
    const std::size_t body_limit =
        static_cast<std::size_t>(std::min<std::uint64_t>(max_bytes, SIZE_MAX - 1)) + 1;
    net::RetryResult result;
    try {
        result = co_await send(ranged, what, body_limit, "fetch-content.max-size");
    } catch (const OssError& e) {
        if (e.code() != "ResponseTooLarge") throw;
        const std::string prefix = "OSS " + what + ": ";
        std::string_view http_error = e.what();
        if (http_error.starts_with(prefix)) http_error.remove_prefix(prefix.size());
        throw OssError(0, "ObjectTooLarge",
                       prefix + "object exceeds fetch-content.max-size (" +
                           std::to_string(max_bytes) + "); " + std::string(http_error),
                       false);
    }
    const auto& r = result.response;
    if (r.status == 404) co_return std::nullopt;
    if (r.status == 206) {
        std::string range = r.header("Content-Range");
        auto slash = range.rfind('/');
        if (slash != std::string::npos && range.substr(slash + 1) != "*") {
            std::uint64_t total = std::strtoull(range.c_str() + slash + 1, nullptr, 10);
            if (total > max_bytes)
                throw OssError(206, "ObjectTooLarge",
                               "OSS " + what + ": object of " + std::to_string(total) +
                                   " bytes exceeds fetch-content.max-size (" +
                                   std::to_string(max_bytes) + ")",
                               false);
        }
    }
    if (r.body.size() > max_bytes)
        throw OssError(r.status, "ObjectTooLarge",
                       "OSS " + what + ": object exceeds fetch-content.max-size (" +
                           std::to_string(max_bytes) + ")",
                       false);
    co_return r.body;
}

boost::asio::awaitable<std::optional<std::string>> OssClient::get_object(std::string bucket,
                                                                         std::string key,
                                                                         std::uint64_t max_bytes) {
    auto make = [this, bucket, key] { return sign("GET", bucket, key, {}, now_seconds()); };
    co_return co_await get_ranged(make, "GetObject oss://" + bucket + "/" + key, max_bytes);
}

boost::asio::awaitable<std::optional<std::string>> OssClient::get_url(std::string url,
                                                                      std::uint64_t max_bytes) {
    auto parsed = net::parse_url(url);
    std::string shown = parsed ? parsed->redacted() : std::string("<invalid url>");
    auto make = [url] {
        net::HttpRequest r;
        r.url = url;
        return r;
    };
    co_return co_await get_ranged(make, "GetObject " + shown, max_bytes);
}

}  // namespace cdcd::oss
