#include "admin/address.h"

#include <charconv>
#include <stdexcept>

namespace cdcd::admin {

std::string Address::to_string() const {
    bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Address parse_address(std::string_view text) {
    auto bad = [&](const std::string& why) {
        return std::invalid_argument("invalid admin address '" + std::string(text) + "': " + why +
                                     " (expected HOST:PORT, [IPv6]:PORT or PORT)");
    };
    Address a;
    std::string_view port = text;
    if (text.starts_with("[")) {
        auto close = text.find(']');
        if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
            throw bad("unbalanced brackets");
        a.host = std::string(text.substr(1, close - 1));
        port = text.substr(close + 2);
    } else if (auto colon = text.rfind(':'); colon != std::string_view::npos) {
        if (text.find(':') != colon) throw bad("an IPv6 host needs brackets");
        if (colon > 0) a.host = std::string(text.substr(0, colon));
        port = text.substr(colon + 1);
    }
    if (a.host.empty()) throw bad("empty host");
    unsigned value = 0;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || ptr != port.data() + port.size() || value > 65535)
        throw bad("port must be a number from 0 to 65535");
    a.port = static_cast<std::uint16_t>(value);
    return a;
}

std::string endpoint_base_url(std::string_view address, std::string* path) {
    const std::string text(address);
    if (path) path->clear();
    if (text.starts_with("https://"))
        throw std::invalid_argument(text + ": the admin endpoint speaks plain HTTP (http://...)");
    if (text.starts_with("http://")) {
        std::string rest = text.substr(7);
        if (rest.empty() || rest.front() == '/')
            throw std::invalid_argument(text + ": no host in the URL");
        const std::size_t slash = rest.find('/');
        if (path && slash != std::string::npos) *path = rest.substr(slash);
        return "http://" + rest.substr(0, slash);
    }
    Address parsed = parse_address(text);
    if (parsed.port == 0)
        throw std::invalid_argument(text +
                                    ": port 0 names no daemon (give the port it listens on)");
    return "http://" + parsed.to_string();
}

}  // namespace cdcd::admin
