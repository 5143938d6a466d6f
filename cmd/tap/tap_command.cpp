#include "cmd/tap/tap_command.h"

#include <csignal>
#include <cstdio>
#include <stdexcept>

#include "admin/address.h"
#include "cmd/tap/tap_stream.h"
#include "net/url.h"

namespace cdcd::tap {

std::string tap_url(const TapOptions& options) {
    std::string address = options.address.empty() ? "127.0.0.1:8081" : options.address;
    const std::string base = admin::endpoint_base_url(address);  // a URL's path is not used
    std::vector<std::pair<std::string, std::string>> query{{"point", options.point}};
    if (!options.table.empty()) query.emplace_back("table", options.table);
    if (options.rate > 0) query.emplace_back("rate", std::to_string(options.rate));
    if (options.limit > 0) query.emplace_back("limit", std::to_string(options.limit));
    return base + "/tap?" + net::build_query(query);
}

int tap_command(const TapOptions& options) {
    std::string url = tap_url(options);
    // A reader that stops (`cdcd tap | head`) ends the tap quietly, as a write error.
    std::signal(SIGPIPE, SIG_IGN);
    bool output_closed = false;
    StreamResult result = stream_get(url, [&output_closed](std::string_view piece) {
        if (std::fwrite(piece.data(), 1, piece.size(), stdout) != piece.size() ||
            std::fflush(stdout) != 0) {
            output_closed = true;
            return false;
        }
        return true;
    });
    if (output_closed) return 0;
    if (result.status == 200 && result.complete) return 0;
    if (result.status == 200) {
        std::fprintf(stderr, "cdcd tap: %s\n", result.error.c_str());
        return 1;
    }
    if (result.status == 0)
        std::fprintf(stderr, "cdcd tap: %s (is the daemon running with --admin-address?)\n",
                     result.error.c_str());
    else
        std::fprintf(stderr, "cdcd tap: HTTP %d: %s\n", result.status, result.error.c_str());
    return 1;
}

}  // namespace cdcd::tap
