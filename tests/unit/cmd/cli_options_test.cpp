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
