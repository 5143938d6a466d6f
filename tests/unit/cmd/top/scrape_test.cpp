// Which URL `cdcd top` reads for each address typed, and that a daemon it cannot reach is
// reported, not thrown.
#include "cmd/top/scrape.h"

#include <catch2/catch.hpp>
#include <stdexcept>

using namespace cdcd::top;

TEST_CASE("addresses as --admin-address takes them, or http URLs") {
    CHECK(metrics_url("8081") == "http://127.0.0.1:8081/metrics");
    CHECK(metrics_url("10.1.2.3:9000") == "http://10.1.2.3:9000/metrics");
    CHECK(metrics_url("[::1]:9000") == "http://[::1]:9000/metrics");
    CHECK(metrics_url("http://host:9000") == "http://host:9000/metrics");
    CHECK(metrics_url("http://host:9000/cdcd/metrics") == "http://host:9000/cdcd/metrics");
    CHECK_THROWS_AS(metrics_url("https://host:9000"), std::invalid_argument);
    CHECK_THROWS_AS(metrics_url("0"), std::invalid_argument);
    CHECK_THROWS_AS(metrics_url("host:port"), std::invalid_argument);
}

TEST_CASE("a daemon that does not answer is a scrape with an error") {
    // Port 1 on loopback: nothing listens there (connection refused at once).
    auto scrapes = scrape_all({"127.0.0.1:1", "not an address"}, std::chrono::milliseconds(2000));
    REQUIRE(scrapes.size() == 2);
    CHECK(scrapes[0].address == "127.0.0.1:1");
    REQUIRE(scrapes[0].error);
    CHECK(scrapes[0].samples.empty());
    REQUIRE(scrapes[1].error);
}
