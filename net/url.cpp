#include "net/url.h"

#include <cctype>
#include <charconv>

#include "text/ascii.h"

namespace cdcd::net {

namespace {

bool unreserved(unsigned char c) {
    return std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~';
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::optional<Url> fail(std::string* error, std::string message) {
    if (error) *error = std::move(message);
    return std::nullopt;
}

}  // namespace

std::string Url::target() const {
    return query.empty() ? path : path + "?" + query;
}

std::string Url::origin() const {
    std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return scheme + "://" + h + ":" + std::to_string(port);
}

std::string Url::redacted() const {
    return origin() + path;
}

std::optional<Url> parse_url(std::string_view text, std::string* error) {
    Url url;
    auto sep = text.find("://");
    if (sep == std::string_view::npos) return fail(error, "URL has no scheme");
    url.scheme = ascii::to_lower(text.substr(0, sep));
    if (url.scheme != "http" && url.scheme != "https")
        return fail(error, "unsupported URL scheme `" + url.scheme + "` (http or https)");
    std::string_view rest = text.substr(sep + 3);
    if (auto hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
    auto authority_end = rest.find_first_of("/?");
    std::string_view authority = rest.substr(0, authority_end);
    std::string_view tail =
        authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);
    if (authority.find('@') != std::string_view::npos)
        return fail(error, "credentials in URLs are not supported");
    std::string_view port_text;
    if (!authority.empty() && authority.front() == '[') {
        auto close = authority.find(']');
        if (close == std::string_view::npos) return fail(error, "unterminated IPv6 literal");
        url.host.assign(authority.substr(1, close - 1));
        auto after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') return fail(error, "junk after IPv6 literal");
            port_text = after.substr(1);
        }
    } else {
        auto colon = authority.rfind(':');
        if (colon != std::string_view::npos) {
            url.host.assign(authority.substr(0, colon));
            port_text = authority.substr(colon + 1);
        } else {
            url.host.assign(authority);
        }
    }
    if (url.host.empty()) return fail(error, "URL has no host");
    // A host is a name, an IPv4 address or (in brackets) an IPv6 literal with an optional zone:
    // anything else would reach the connection and the Host header as it is.
    const bool bracketed = authority.front() == '[';
    for (char ch : url.host) {
        auto c = static_cast<unsigned char>(ch);
        bool ok = bracketed ? std::isxdigit(c) || c == ':' || c == '.' || c == '%' || unreserved(c)
                            : unreserved(c) || c == '%';
        if (!ok)
            return fail(error, "invalid character in the URL's host (byte " +
                                   std::to_string(static_cast<int>(c)) + ")");
    }
    if (bracketed && url.host.find(':') == std::string::npos)
        return fail(error, "invalid IPv6 literal `" + url.host + "`");
    // Spaces and control characters would split or forge the request line.
    for (char ch : tail)
        if (auto c = static_cast<unsigned char>(ch); c <= 0x20 || c == 0x7f)
            return fail(error, "invalid character in the URL's path or query (byte " +
                                   std::to_string(static_cast<int>(c)) + ")");
    if (!port_text.empty()) {
        unsigned value = 0;
        auto [ptr, ec] =
            std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
        if (ec != std::errc{} || ptr != port_text.data() + port_text.size() || value == 0 ||
            value > 65535)
            return fail(error, "invalid port `" + std::string(port_text) + "`");
        url.port = static_cast<std::uint16_t>(value);
    } else {
        url.port = url.tls() ? 443 : 80;
    }
    auto q = tail.find('?');
    std::string_view path = tail.substr(0, q);
    url.path = path.empty() ? "/" : std::string(path);
    if (q != std::string_view::npos) url.query.assign(tail.substr(q + 1));
    return url;
}

std::string percent_encode(std::string_view text, bool keep_slash) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size() + text.size() / 4);
    for (char ch : text) {
        auto c = static_cast<unsigned char>(ch);
        if (unreserved(c) || (keep_slash && c == '/')) {
            out.push_back(ch);
        } else {
            out.push_back('%');
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 15]);
        }
    }
    return out;
}

std::string percent_decode(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size()) {
            int hi = hex_value(text[i + 1]), lo = hex_value(text[i + 2]);
            if (hi >= 0 && lo >= 0) {
                out.push_back(static_cast<char>(hi * 16 + lo));
                i += 2;
                continue;
            }
        }
        out.push_back(text[i]);
    }
    return out;
}

std::string build_query(const std::vector<std::pair<std::string, std::string>>& params) {
    std::string out;
    for (const auto& [key, value] : params) {
        if (!out.empty()) out.push_back('&');
        out += percent_encode(key);
        out.push_back('=');
        out += percent_encode(value);
    }
    return out;
}

}  // namespace cdcd::net
