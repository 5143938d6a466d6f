// Admin addresses as daemons take them (--admin-address) and as clients (cdcd top, cdcd tap)
// turn them into the endpoint's URL.
#include "admin/address.h"

#include <catch2/catch.hpp>

using namespace cdcd::admin;
using Catch::Matchers::Contains;

TEST_CASE("a port alone is loopback, a host and an IPv6 host are kept", "[admin][address]") {
    CHECK(parse_address("8081").to_string() == "127.0.0.1:8081");
    CHECK(parse_address("0.0.0.0:9000").to_string() == "0.0.0.0:9000");
    CHECK(parse_address("[::1]:8081").to_string() == "[::1]:8081");
}

TEST_CASE("a client's endpoint URL from an address or an http:// URL", "[admin][address]") {
    CHECK(endpoint_base_url("8081") == "http://127.0.0.1:8081");
    CHECK(endpoint_base_url("[::1]:8082") == "http://[::1]:8082");
    std::string path = "left over";
    CHECK(endpoint_base_url("http://daemon:9100", &path) == "http://daemon:9100");
    CHECK(path.empty());
    CHECK(endpoint_base_url("http://daemon:9100/custom/metrics", &path) == "http://daemon:9100");
    CHECK(path == "/custom/metrics");
}

TEST_CASE("addresses no client can reach are refused, saying why", "[admin][address][errors]") {
    auto error = [](const char* address) {
        try {
            endpoint_base_url(address);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK_THAT(error("https://daemon:8081"), Contains("speaks plain HTTP"));
    CHECK_THAT(error("http:///metrics"), Contains("no host in the URL"));
    CHECK_THAT(error("0"), Contains("port 0 names no daemon"));
}
