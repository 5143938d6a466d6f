#include "sources/oss/addressing.h"

#include <cctype>

#include "net/url.h"

namespace cdcd::oss {

bool path_style(const std::string& endpoint) {
    auto url = net::parse_url(endpoint);
    if (!url) return true;
    const std::string& h = url->host;
    if (h == "localhost" || h.find(':') != std::string::npos) return true;
    for (char c : h)
        if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
    return true;
}

std::string object_url(const std::string& endpoint, const std::string& bucket,
                       const std::string& key, const std::string& query) {
    std::string out;
    std::string path = net::percent_encode(key, true);
    if (path_style(endpoint)) {
        out = endpoint + "/" + bucket + "/" + path;
    } else {
        auto url = net::parse_url(endpoint);
        std::string port;
        if (url && !((url->scheme == "https" && url->port == 443) ||
                     (url->scheme == "http" && url->port == 80)))
            port = ":" + std::to_string(url->port);
        out = (url ? url->scheme + "://" + bucket + "." + url->host + port : endpoint) + "/" + path;
    }
    if (!query.empty()) out += "?" + query;
    return out;
}

}  // namespace cdcd::oss
