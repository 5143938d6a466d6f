// `cdcd top` reads the admin endpoint's /metrics as Prometheus does: samples with their labels
// and values; a malformed line is an error naming its line and column.
#include "cmd/top/prometheus_text.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace cdcd::top;

TEST_CASE("samples with labels, comments skipped, values of every spelling") {
    auto samples = parse_prometheus_text(
        "# HELP cdcd_records_out_total Records passed on\n"
        "# TYPE cdcd_records_out_total counter\n"
        "cdcd_records_out_total{pipeline=\"demo\",role=\"source\",connector=\"values\"} 8001\n"
        "\n"
        "cdcd_ready{pipeline=\"demo\"} 1 1700000000000\r\n"
        "up 1.5e3\n"
        "cdcd_checkpoint_duration_seconds_bucket{le=\"+Inf\",} +Inf\n"
        "weird{a=\"quote \\\" slash \\\\ newline \\n\"} NaN\n"
        "neg -2\n");
    REQUIRE(samples.size() == 6);
    CHECK(samples[0].name == "cdcd_records_out_total");
    CHECK(samples[0].label("role") == "source");
    CHECK(samples[0].label("connector") == "values");
    CHECK(samples[0].label("absent").empty());
    CHECK(samples[0].value == 8001);
    CHECK(samples[1].value == 1);  // the timestamp is read and left
    CHECK(samples[2].labels.empty());
    CHECK(samples[2].value == 1500);
    CHECK(std::isinf(samples[3].value));
    CHECK(samples[3].label("le") == "+Inf");
    CHECK(samples[4].label("a") == "quote \" slash \\ newline \n");
    CHECK(std::isnan(samples[4].value));
    CHECK(samples[5].value == -2);
}

TEST_CASE("a series key tells series apart by every label") {
    auto samples = parse_prometheus_text("m{a=\"1\"} 1\nm{a=\"2\"} 1\nm{a=\"1\"} 3\n");
    CHECK(samples[0].series() != samples[1].series());
    CHECK(samples[0].series() == samples[2].series());
}

TEST_CASE("a malformed line names its line and column") {
    auto error_of = [](const char* text) -> std::string {
        try {
            parse_prometheus_text(text);
        } catch (const ExpositionError& e) {
            return e.what();
        }
        return "no error";
    };
    CHECK(error_of("ok 1\n{x=\"1\"} 2\n") == "line 2, column 1: expected a metric name");
    CHECK(error_of("m{x=1} 2") == "line 1, column 5: expected '\"'");
    CHECK(error_of("m{x=\"1\" y=\"2\"} 2") == "line 1, column 9: expected ',' or '}'");
    CHECK(error_of("m{x=\"1") == "line 1, column 7: unterminated label value");
    CHECK(error_of("m{x=\"\\t\"} 1") == "line 1, column 7: unknown escape \\t in label value");
    CHECK(error_of("m") == "line 1, column 2: expected a value");
    CHECK(error_of("m 0x10") == "line 1, column 3: expected a value, not '0x10'");
    CHECK(error_of("m 1 2 3") == "line 1, column 7: unexpected text after the timestamp");
    CHECK(error_of("m abc") == "line 1, column 3: expected a value, not 'abc'");
}
