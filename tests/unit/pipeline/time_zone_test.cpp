#include "pipeline/data/time_zone.h"

#include <catch2/catch.hpp>

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
