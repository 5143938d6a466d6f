// cdcd tap: the /tap URL from the address and flags, and the flags themselves.
#include "cmd/tap/tap_command.h"

#include <catch2/catch.hpp>
#include <stdexcept>

#include "cmd/cli_options.h"

using namespace cdcd;
using Catch::Contains;

TEST_CASE("cdcd tap asks the address's /tap with the flags as its query") {
    CHECK(tap::tap_url({}) == "http://127.0.0.1:8081/tap?point=transform");
    CHECK(tap::tap_url({"9000", "sink", "app\\.*.orders", 50, 10}) ==
          "http://127.0.0.1:9000/tap?point=sink&table=app%5C.%2A.orders&rate=50&limit=10");
    CHECK(tap::tap_url({"[::1]:81", "source", "", 0, 0}) == "http://[::1]:81/tap?point=source");
    CHECK(tap::tap_url({"http://daemon:81/metrics", "transform", "", 0, 0}) ==
          "http://daemon:81/tap?point=transform");
    CHECK_THROWS_AS(tap::tap_url({"https://daemon:81", "transform", "", 0, 0}),
                    std::invalid_argument);
    CHECK_THROWS_WITH(tap::tap_url({"0", "transform", "", 0, 0}),
                      Contains("port 0 names no daemon"));
}

TEST_CASE("cdcd tap's flags are checked when parsed") {
    auto o = cli::parse_cli(
        {"tap", "8082", "--point", "sink", "--table=db.t", "--rate", "5", "--limit", "3"});
    CHECK(o.command == "tap");
    CHECK(o.argument == "8082");
    CHECK(o.tap_point == "sink");
    CHECK(o.tap_table == "db.t");
    CHECK(o.tap_rate == 5);
    CHECK(o.tap_limit == 3);
    CHECK(cli::parse_cli({"tap"}).tap_point == "transform");
    CHECK_THROWS_WITH(cli::parse_cli({"tap", "--point", "middle"}),
                      Contains("--point must be source, transform or sink"));
    CHECK_THROWS_WITH(cli::parse_cli({"tap", "--rate", "0"}),
                      Contains("--rate must be a number of events a second from 1 to 1000"));
    CHECK_THROWS_WITH(cli::parse_cli({"tap", "--rate", "2000"}), Contains("not '2000'"));
    CHECK_THROWS_WITH(cli::parse_cli({"tap", "--limit", "x"}), Contains("--limit must be"));
    CHECK_THROWS_WITH(cli::parse_cli({"tap", "1", "2"}), Contains("unexpected argument '2'"));
}
