#include "pipeline/data/time_zone.h"

#include <catch2/catch.hpp>
#include <limits>
#include <vector>

#include "pipeline/data/temporal.h"

using namespace cdcd;

namespace {
std::int64_t utc(int y, unsigned m, unsigned d, int hh, int mm) {
    return temporal::days_from_civil(y, m, d) * 86400 + hh * 3600 + mm * 60;
}
TimeZone zone(const char* id) {
    std::string error;
    auto z = TimeZone::of(id, &error);
    INFO(error);
    REQUIRE(z.has_value());
    return *z;
}
}  // namespace

TEST_CASE("fixed offsets in ZoneId syntax", "[time_zone]") {
    CHECK(zone("UTC").offset_at(0) == 0);
    CHECK(zone("Z").offset_at(0) == 0);
    CHECK(zone("GMT-08:00").offset_at(0) == -8 * 3600);
    CHECK(zone("GMT-08:00").id() == "GMT-08:00");
    CHECK(zone("UTC+8").offset_at(0) == 8 * 3600);
    CHECK(zone("+05:30").offset_at(0) == 5 * 3600 + 1800);
    CHECK(zone("-0330").offset_at(0) == -(3 * 3600 + 1800));
    CHECK_FALSE(TimeZone::of("+19:00"));
    CHECK_FALSE(TimeZone::of("GMT+8:0"));
    CHECK_FALSE(TimeZone::of("Mars/Olympus"));
    CHECK_FALSE(TimeZone::of("../../etc/passwd"));
}

TEST_CASE("region zones from TZif files, explicit and rule-based transitions", "[time_zone]") {
    TimeZone sh = zone("Asia/Shanghai");
    CHECK(sh.offset_at(utc(2024, 6, 1, 0, 0)) == 8 * 3600);
    CHECK(sh.offset_at(utc(1988, 6, 1, 0, 0)) == 9 * 3600);  // China had DST in 1986-1991

    TimeZone ny = zone("America/New_York");
    CHECK(ny.offset_at(utc(2024, 1, 15, 12, 0)) == -5 * 3600);
    CHECK(ny.offset_at(utc(2024, 7, 15, 12, 0)) == -4 * 3600);
    // Far future: only the POSIX footer rule can answer.
    CHECK(ny.offset_at(utc(2100, 7, 15, 12, 0)) == -4 * 3600);
    CHECK(ny.offset_at(utc(2100, 12, 15, 12, 0)) == -5 * 3600);
    // 2024-03-10 02:00 EST → 03:00 EDT happens at 07:00Z.
    CHECK(ny.offset_at(utc(2024, 3, 10, 6, 59)) == -5 * 3600);
    CHECK(ny.offset_at(utc(2024, 3, 10, 7, 0)) == -4 * 3600);

    // Local → instant, as LocalDateTime.atZone: gap and overlap take the earlier offset.
    CHECK(ny.offset_for_local(utc(2024, 3, 10, 1, 30)) == -5 * 3600);
    CHECK(ny.offset_for_local(utc(2024, 3, 10, 2, 30)) == -5 * 3600);  // gap
    CHECK(ny.offset_for_local(utc(2024, 3, 10, 3, 30)) == -4 * 3600);
    CHECK(ny.offset_for_local(utc(2024, 11, 3, 1, 30)) == -4 * 3600);  // overlap: EDT first
    CHECK(ny.offset_for_local(utc(2024, 11, 3, 2, 30)) == -5 * 3600);
    CHECK(ny.offset_for_local(utc(2100, 11, 7, 1, 30)) == -4 * 3600);  // overlap via footer

    TimeZone syd = zone("Australia/Sydney");  // southern hemisphere: DST spans new year
    CHECK(syd.offset_at(utc(2090, 1, 10, 0, 0)) == 11 * 3600);
    CHECK(syd.offset_at(utc(2090, 6, 10, 0, 0)) == 10 * 3600);

    Timestamp instant{utc(2024, 1, 1, 0, 0) * 1000 + 123, 456000};
    Timestamp local = sh.to_local(instant);
    CHECK(temporal::format_local_date_time(local) == "2024-01-01T08:00:00.123456");
    CHECK(sh.to_instant(local) == instant);
}

// offset_at with a span: callers reuse the offset for every instant of the span, so it must never
// reach past a transition — listed ones, those of the footer rule (DST zones past the table,
// e.g. 2040 and 2100), fixed-offset footers (Asia/Shanghai) and fixed zones.
TEST_CASE("the span of an offset holds that offset and stays between transitions", "[time_zone]") {
    for (const char* id : {"UTC", "+05:30", "Europe/Berlin", "America/New_York", "Asia/Shanghai",
                           "Australia/Lord_Howe", "America/Sao_Paulo"}) {
        INFO(id);
        TimeZone z = zone(id);
        std::vector<std::int64_t> probes;
        for (int y : {1900, 1970, 1988, 2007, 2024, 2037, 2038, 2040, 2100}) {
            for (unsigned m = 1; m <= 12; ++m) {
                for (unsigned d : {1U, 8U, 15U, 22U, 29U})
                    if (m != 2 || d < 29) probes.push_back(utc(y, m, d, 1, 30));
            }
        }
        for (std::int64_t t : probes) {
            std::int64_t from = 0, until = 0;
            int off = z.offset_at(t, &from, &until);
            INFO(t);
            REQUIRE(off == z.offset_at(t));
            REQUIRE(from <= t);
            REQUIRE(t < until);
            // Both ends, and a day inside each end, have the same offset.
            if (from != std::numeric_limits<std::int64_t>::min()) {
                CHECK(z.offset_at(from) == off);
                CHECK(z.offset_at(std::min(from + 86400, t)) == off);
            }
            if (until != std::numeric_limits<std::int64_t>::max()) {
                CHECK(z.offset_at(until - 1) == off);
                CHECK(z.offset_at(std::max(until - 86400, t)) == off);
            }
            // A walk through the span, a week at a time, meets the same offset everywhere.
            std::int64_t lo = std::max<std::int64_t>(from, t - 370LL * 86400);
            std::int64_t hi = std::min<std::int64_t>(until, t + 370LL * 86400);
            for (std::int64_t u = lo; u < hi; u += 7 * 86400 + 3599) CHECK(z.offset_at(u) == off);
        }
    }
}
