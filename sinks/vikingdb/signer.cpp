#include "sinks/vikingdb/signer.h"

#include <algorithm>
#include <ctime>
#include <map>

#include "net/digest.h"
#include "net/url.h"
#include "text/ascii.h"

namespace cdcd::vikingdb {

namespace {

std::string sha256_hex(std::string_view data) {
    return net::hex_lower(net::sha256(data));
}

bool signed_header(const std::string& lname) {
    return lname == "content-type" || lname == "content-md5" || lname == "host" ||
           lname.rfind("x-", 0) == 0;
}

/// The host without a default port (":80" / ":443"), as the SDK signs it.
std::string host_value(std::string_view v) {
    std::string h(ascii::trim(v));
    for (std::string_view port : {":80", ":443"}) {
        if (h.size() > port.size() && h.compare(h.size() - port.size(), port.size(), port) == 0) {
            h.resize(h.size() - port.size());
            break;
        }
    }
    return h;
}

}  // namespace

std::string x_date(std::chrono::system_clock::time_point when) {
    std::time_t t = std::chrono::system_clock::to_time_t(when);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

V4Signer::V4Signer(std::string access_key, std::string secret_key, std::string region,
                   std::string service)
    : access_key_(std::move(access_key)),
      secret_key_(std::move(secret_key)),
      region_(std::move(region)),
      service_(std::move(service)) {}

std::string V4Signer::canonical_query(std::string_view query) {
    std::vector<std::pair<std::string, std::string>> params;
    std::size_t start = 0;
    while (start < query.size()) {
        std::size_t end = query.find('&', start);
        if (end == std::string_view::npos) end = query.size();
        std::string_view item = query.substr(start, end - start);
        if (!item.empty()) {
            auto eq = item.find('=');
            std::string k = net::percent_decode(item.substr(0, eq));
            std::string v =
                eq == std::string_view::npos ? "" : net::percent_decode(item.substr(eq + 1));
            params.emplace_back(std::move(k), std::move(v));
        }
        start = end + 1;
    }
    std::stable_sort(params.begin(), params.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string out;
    for (const auto& [k, v] : params) {
        if (!out.empty()) out.push_back('&');
        out += net::percent_encode(k);
        out.push_back('=');
        out += net::percent_encode(v);
    }
    return out;
}

SignedParts V4Signer::sign(const SignRequest& request, const std::string& date) const {
    SignedParts parts;
    parts.content_sha256 = sha256_hex(request.body);
    std::map<std::string, std::string> headers;
    for (const auto& [name, value] : request.headers) {
        std::string l = ascii::to_lower(name);
        if (!signed_header(l)) continue;
        headers[l] = l == "host" ? host_value(value) : std::string(ascii::trim(value));
    }
    headers["x-date"] = date;
    headers["x-content-sha256"] = parts.content_sha256;

    std::string canonical_headers;
    for (const auto& [name, value] : headers) {
        canonical_headers += name + ":" + value + "\n";
        if (!parts.signed_headers.empty()) parts.signed_headers.push_back(';');
        parts.signed_headers += name;
    }
    parts.canonical_request = request.method + "\n" + net::percent_encode(request.path, true) +
                              "\n" + canonical_query(request.query) + "\n" + canonical_headers +
                              "\n" + parts.signed_headers + "\n" + parts.content_sha256;
    std::string day = date.substr(0, 8);
    std::string scope = day + "/" + region_ + "/" + service_ + "/request";
    parts.string_to_sign =
        "HMAC-SHA256\n" + date + "\n" + scope + "\n" + sha256_hex(parts.canonical_request);
    std::string k = net::hmac_sha256(secret_key_, day);
    k = net::hmac_sha256(k, region_);
    k = net::hmac_sha256(k, service_);
    k = net::hmac_sha256(k, "request");
    parts.authorization = "HMAC-SHA256 Credential=" + access_key_ + "/" + scope +
                          ", SignedHeaders=" + parts.signed_headers + ", Signature=" +
                          net::hex_lower(net::hmac_sha256(k, parts.string_to_sign));
    return parts;
}

void V4Signer::sign_in_place(SignRequest& request,
                             std::chrono::system_clock::time_point now) const {
    std::string date = x_date(now);
    SignedParts parts = sign(request, date);
    request.headers.emplace_back("X-Date", date);
    request.headers.emplace_back("X-Content-Sha256", parts.content_sha256);
    request.headers.emplace_back("Authorization", parts.authorization);
}

}  // namespace cdcd::vikingdb
