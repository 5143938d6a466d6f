#include "sources/oss/signer_v4.h"

#include <algorithm>
#include <cctype>
#include <ctime>

#include "net/digest.h"
#include "text/ascii.h"

namespace cdcd::oss {
namespace {

std::vector<std::string> sorted_additional(const V4Request& r) {
    std::vector<std::string> names;
    for (const auto& h : r.additional_headers) {
        std::string n = ascii::to_lower(h);
        if (n.rfind("x-oss-", 0) == 0 || n == "content-type" || n == "content-md5") continue;
        bool present = std::any_of(r.headers.begin(), r.headers.end(),
                                   [&](const auto& kv) { return ascii::to_lower(kv.first) == n; });
        if (present && std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

std::string v4_uri_encode(const std::string& s, bool keep_slash) {
    static const char* digits = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
            (keep_slash && c == '/')) {
            out.push_back(static_cast<char>(c));
        } else {
            out.push_back('%');
            out.push_back(digits[c >> 4]);
            out.push_back(digits[c & 15]);
        }
    }
    return out;
}

std::string v4_scope(const V4Request& r) {
    return r.datetime.substr(0, 8) + "/" + r.region + "/" + r.product + "/aliyun_v4_request";
}

std::string v4_canonical_request(const V4Request& r) {
    std::string uri = "/";
    if (!r.bucket.empty()) uri += r.bucket + "/" + r.key;
    std::string s = r.method + "\n" + v4_uri_encode(uri, true) + "\n";

    std::vector<std::pair<std::string, std::string>> q;  // encoded key, encoded "k[=v]"
    for (const auto& [k, v] : r.query) {
        std::string ek = v4_uri_encode(k, false);
        q.emplace_back(ek, v && !v->empty() ? ek + "=" + v4_uri_encode(*v, false) : ek);
    }
    std::sort(q.begin(), q.end());
    for (std::size_t i = 0; i < q.size(); ++i) s += (i ? "&" : "") + q[i].second;
    s += "\n";

    auto additional = sorted_additional(r);
    std::vector<std::pair<std::string, std::string>> headers;
    std::string payload = "UNSIGNED-PAYLOAD";
    for (const auto& [k, v] : r.headers) {
        std::string n = ascii::to_lower(k);
        if (n == "x-oss-content-sha256") payload = ascii::trim(v, " \t");
        if (n.rfind("x-oss-", 0) == 0 || n == "content-type" || n == "content-md5" ||
            std::find(additional.begin(), additional.end(), n) != additional.end())
            headers.emplace_back(n, ascii::trim(v, " \t"));
    }
    std::sort(headers.begin(), headers.end());
    for (const auto& [k, v] : headers) s += k + ":" + v + "\n";
    s += "\n";
    for (std::size_t i = 0; i < additional.size(); ++i) s += (i ? ";" : "") + additional[i];
    s += "\n" + payload;
    return s;
}

std::string v4_string_to_sign(const V4Request& r) {
    return "OSS4-HMAC-SHA256\n" + r.datetime + "\n" + v4_scope(r) + "\n" +
           net::hex_lower(net::sha256(v4_canonical_request(r)));
}

std::string v4_signature(const std::string& secret, const V4Request& r) {
    std::string k = net::hmac_sha256("aliyun_v4" + secret, r.datetime.substr(0, 8));
    k = net::hmac_sha256(k, r.region);
    k = net::hmac_sha256(k, r.product);
    k = net::hmac_sha256(k, "aliyun_v4_request");
    return net::hex_lower(net::hmac_sha256(k, v4_string_to_sign(r)));
}

std::string v4_authorization(const std::string& access_key_id, const std::string& secret,
                             const V4Request& r) {
    std::string auth = "OSS4-HMAC-SHA256 Credential=" + access_key_id + "/" + v4_scope(r);
    auto additional = sorted_additional(r);
    if (!additional.empty()) {
        auth += ",AdditionalHeaders=";
        for (std::size_t i = 0; i < additional.size(); ++i) auth += (i ? ";" : "") + additional[i];
    }
    return auth + ",Signature=" + v4_signature(secret, r);
}

std::string v4_presign(const std::string& access_key_id, const std::string& secret,
                       const std::string& token, long long expires_seconds, V4Request& r) {
    r.query.emplace_back("x-oss-signature-version", "OSS4-HMAC-SHA256");
    r.query.emplace_back("x-oss-date", r.datetime);
    r.query.emplace_back("x-oss-expires", std::to_string(expires_seconds));
    r.query.emplace_back("x-oss-credential", access_key_id + "/" + v4_scope(r));
    if (!token.empty()) r.query.emplace_back("x-oss-security-token", token);
    auto additional = sorted_additional(r);
    if (!additional.empty()) {
        std::string names;
        for (std::size_t i = 0; i < additional.size(); ++i) names += (i ? ";" : "") + additional[i];
        r.query.emplace_back("x-oss-additional-headers", names);
    }
    return v4_signature(secret, r);
}

std::string iso8601_basic(long long unix_seconds) {
    std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

}  // namespace cdcd::oss
