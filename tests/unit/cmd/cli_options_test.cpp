// Command-line flags: --log-level is read case-insensitively and an unknown level is refused
// (spdlog alone would silently turn logging off).
#include "cmd/cli_options.h"

#include <catch2/catch.hpp>
#include <stdexcept>

using namespace cdcd;
using Catch::Contains;

TEST_CASE("the log level accepts spdlog's levels in any case") {
    CHECK(cli::parse_cli({"validate", "p.yaml"}).log_level == "info");
    CHECK(cli::parse_cli({"validate", "p.yaml", "--log-level", "INFO"}).log_level == "info");
    CHECK(cli::parse_cli({"validate", "--log-level=Debug", "p.yaml"}).log_level == "debug");
    CHECK(cli::parse_cli({"validate", "p.yaml", "--log-level", "warning"}).log_level == "warn");
    CHECK(cli::parse_cli({"validate", "p.yaml", "--log-level", "WARN"}).log_level == "warn");
    CHECK(cli::parse_cli({"validate", "p.yaml", "--log-level", "critical"}).log_level ==
          "critical");
    CHECK(cli::parse_cli({"validate", "p.yaml", "--log-level", "off"}).log_level == "off");
}

TEST_CASE("an unknown --log-level is refused with the valid levels") {
    for (const char* bad : {"verbose", "", "inf", "errors"}) {
        INFO(bad);
        CHECK_THROWS_WITH(cli::parse_cli({"validate", "p.yaml", "--log-level", bad}),
                          Contains("--log-level must be one of trace, debug, info, warn") &&
                              Contains(std::string("not '") + bad + "'"));
    }
}

TEST_CASE("describe --format is text or markdown") {
    CHECK(cli::parse_cli({"describe", "kafka"}).describe_format == "text");
    CHECK(cli::parse_cli({"describe", "--format", "markdown", "kafka"}).describe_format ==
          "markdown");
    CHECK(cli::parse_cli({"describe", "kafka", "--format=text"}).describe_format == "text");
    CHECK_THROWS_WITH(cli::parse_cli({"describe", "--format", "html"}),
                      Contains("--format must be text or markdown, not 'html'"));
}

TEST_CASE("cdcd top takes several addresses, an interval and --once") {
    auto o = cli::parse_cli({"top", "8081", "10.0.0.5:9000", "--interval", "500ms", "--once"});
    CHECK(o.command == "top");
    CHECK(o.addresses == std::vector<std::string>{"8081", "10.0.0.5:9000"});
    CHECK(o.interval == std::chrono::milliseconds(500));
    CHECK(o.once);
    CHECK(cli::parse_cli({"top"}).interval == std::chrono::seconds(1));
    CHECK_THROWS_WITH(cli::parse_cli({"top", "--interval", "10ms"}),
                      "--interval must be a duration from 100ms to 1h (500ms, 2s), not '10ms'");
    CHECK_THROWS_WITH(cli::parse_cli({"top", "--interval=soon"}),
                      "--interval must be a duration from 100ms to 1h (500ms, 2s), not 'soon'");
}
