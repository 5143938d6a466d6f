#include "config/units.h"

#include <catch2/catch.hpp>

using namespace std::chrono_literals;
using cdcd::config::format_duration;
using cdcd::config::parse_duration;
using cdcd::config::parse_memory_size;

TEST_CASE("durations parse like Flink's TimeUtils, plus ISO-8601", "[config][units]") {
    struct Case {
        const char* text;
        std::chrono::milliseconds expected;
    };
    const Case cases[] = {
        {"10s", 10s},
        {"10 s", 10s},
        {"1min", 1min},
        {"500 ms", 500ms},
        {"2 h", 2h},
        {"1d", 24h},
        {"PT10S", 10s},
        {"1500", 1500ms},
        {"0", 0ms},
        {"3 MIN", 3min},
        {"5m", 5min},
        {"7 millis", 7ms},
        {"1 millisecond", 1ms},
        {"2milliseconds", 2ms},
        {"4 sec", 4s},
        {"4 secs", 4s},
        {"1 second", 1s},
        {"9 seconds", 9s},
        {"2 minute", 2min},
        {"3 minutes", 3min},
        {"1 hour", 1h},
        {"5 hours", 5h},
        {"1 day", 24h},
        {"2 days", 48h},
        {"  42s  ", 42s},
        {"pt3m", 3min},
        {"PT1M30S", 90s},
        {"PT0.5S", 500ms},
        {"P1DT2H", 26h},
        {"P2D", 48h},
        {"PT1H1M1.001S", 3661001ms},
    };
    for (const auto& c : cases) {
        INFO("input: `" << c.text << "`");
        auto d = parse_duration(c.text);
        REQUIRE(d.has_value());
        CHECK(*d == c.expected);
    }
}

TEST_CASE("malformed durations are rejected with a reason", "[config][units]") {
    struct Case {
        const char* text;
        const char* reason_part;
    };
    const Case cases[] = {
        {"", "empty"},
        {"abc", "whole number"},
        {"10 parsecs", "unknown unit `parsecs`"},
        {"1.5s", "unknown unit `.5s`"},
        {"-5s", "whole number"},
        {"10 s s", "unknown unit `s s`"},
        {"PT", "ISO-8601"},
        {"P1H", "ISO-8601"},     // hours need the T
        {"PT1S1M", "ISO-8601"},  // wrong order
        {"PT1.5M", "ISO-8601"},  // fractions only on seconds
        {"99999999999999999999s", "too large"},
        {"9999999999999999 d", "too large"},
    };
    for (const auto& c : cases) {
        INFO("input: `" << c.text << "`");
        std::string why;
        CHECK_FALSE(parse_duration(c.text, &why).has_value());
        CHECK_THAT(why, Catch::Contains(c.reason_part));
    }
}

TEST_CASE("durations format back to the shortest exact unit", "[config][units]") {
    CHECK(format_duration(180s) == "3min");
    CHECK(format_duration(10s) == "10s");
    CHECK(format_duration(1500ms) == "1500ms");
    CHECK(format_duration(48h) == "2d");
    CHECK(format_duration(0ms) == "0ms");
}

TEST_CASE("memory sizes parse like Flink's MemorySize (binary units)", "[config][units]") {
    struct Case {
        const char* text;
        std::uint64_t bytes;
    };
    const Case cases[] = {
        {"1024", 1024},         {"64mb", 64ULL << 20},       {"1 gb", 1ULL << 30},
        {"512k", 512ULL << 10}, {"512 KB", 512ULL << 10},    {"7b", 7},
        {"7 bytes", 7},         {"3m", 3ULL << 20},          {"2 mebibytes", 2ULL << 20},
        {"1g", 1ULL << 30},     {"1 gibibytes", 1ULL << 30}, {"2t", 2ULL << 40},
        {"1 TB", 1ULL << 40},   {"4 kibibytes", 4096},       {"0", 0},
    };
    for (const auto& c : cases) {
        INFO("input: `" << c.text << "`");
        auto v = parse_memory_size(c.text);
        REQUIRE(v.has_value());
        CHECK(*v == c.bytes);
    }
}

TEST_CASE("malformed memory sizes are rejected", "[config][units]") {
    const char* bad[] = {"", "mb", "12 zb", "1.5gb", "-1", "20000000t", "64 m b"};
    for (const char* text : bad) {
        INFO("input: `" << text << "`");
        std::string why;
        CHECK_FALSE(parse_memory_size(text, &why).has_value());
        CHECK_FALSE(why.empty());
    }
}
