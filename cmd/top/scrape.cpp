#include "cmd/top/scrape.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <stdexcept>

#include "admin/address.h"
#include "net/http_client.h"

namespace cdcd::top {

std::string metrics_url(const std::string& address) {
    std::string path;
    std::string base = admin::endpoint_base_url(address, &path);
    return base + (path.empty() ? "/metrics" : path);
}

namespace {

double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
double wall_seconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

boost::asio::awaitable<void> scrape_one(net::HttpClient& client, std::string url,
                                        std::chrono::milliseconds timeout, Scrape& out) {
    try {
        net::HttpRequest request;
        request.url = std::move(url);
        request.timeout = timeout;
        net::HttpResponse response = co_await client.send(std::move(request));
        out.at = steady_seconds();
        out.wall = wall_seconds();
        if (response.status != 200) {
            out.error = "HTTP " + std::to_string(response.status) + " from /metrics";
            co_return;
        }
        out.samples = parse_prometheus_text(response.body);
    } catch (const std::exception& e) {
        out.samples.clear();
        out.error = e.what();
    }
}

}  // namespace

std::vector<Scrape> scrape_all(const std::vector<std::string>& addresses,
                               std::chrono::milliseconds timeout) {
    std::vector<Scrape> scrapes(addresses.size());
    boost::asio::io_context io;
    net::HttpClientOptions options;
    options.user_agent = "cdcd-top";
    net::HttpClient client(io, options);
    for (std::size_t i = 0; i < addresses.size(); ++i) {
        scrapes[i].address = addresses[i];
        scrapes[i].at = steady_seconds();
        scrapes[i].wall = wall_seconds();
        std::string url;
        try {
            url = metrics_url(addresses[i]);
        } catch (const std::exception& e) {
            scrapes[i].error = e.what();
            continue;
        }
        boost::asio::co_spawn(io, scrape_one(client, std::move(url), timeout, scrapes[i]),
                              boost::asio::detached);
    }
    io.run();
    return scrapes;
}

}  // namespace cdcd::top
