#include "pipeline/data/row.h"

#include <catch2/catch.hpp>
#include <cstdio>

#include "pipeline/data/field_format.h"
#include "pipeline/data/temporal.h"

using namespace cdcd;

TEST_CASE("a row stores every kind of field by position") {
    RowBuilder b(7);
    b.set_long(0, 42).set_string(1, "hello").set_double(2, 1.5).set_bool(3, true);
    Decimal d;
    REQUIRE(Decimal::parse("-12.345", 3, d));
    b.set_decimal(4, d).set_timestamp(5, Timestamp{1672531200123, 456000});
    Row row = std::move(b).build();
    CHECK(row.arity() == 7);
    auto v = row.view();
    CHECK(v.get_long(0) == 42);
    CHECK(v.get_string(1) == "hello");
    CHECK(v.get_double(2) == 1.5);
    CHECK(v.get_bool(3));
    CHECK(v.get_decimal(4).to_string(3) == "-12.345");
    CHECK(v.get_timestamp(5) == Timestamp{1672531200123, 456000});
    CHECK(v.is_null(6));
    CHECK_FALSE(v.is_null(0));
}

TEST_CASE("rows with more than 64 fields keep their null bits apart") {
    RowBuilder b(130);
    for (size_t i = 0; i < 130; i += 2) b.set_long(i, static_cast<std::int64_t>(i));
    Row row = std::move(b).build();
    for (size_t i = 0; i < 130; ++i) {
        CHECK(row.is_null(i) == (i % 2 == 1));
        if (i % 2 == 0) CHECK(row.view().get_long(i) == static_cast<std::int64_t>(i));
    }
}

TEST_CASE("equal rows have equal bytes regardless of the order fields were set") {
    RowBuilder a(2), b(2);
    a.set_long(0, 1).set_string(1, "x");
    b.set_string(1, "x").set_long(0, 1);
    // Variable data lands in set order, so only rows written in the same order compare equal;
    // sources write in column order.
    RowBuilder c(2);
    c.set_long(0, 1).set_string(1, "x");
    CHECK(std::move(a).build() == std::move(c).build());
}

TEST_CASE("nested arrays and maps are rows") {
    RowBuilder arr(3);
    arr.set_long(0, 1).set_long(1, 2).set_null(2);
    Row a = std::move(arr).build();
    RowBuilder keys(1), values(1);
    keys.set_string(0, "k");
    values.set_long(0, 9);
    Row k = std::move(keys).build(), vals = std::move(values).build();
    RowBuilder outer(2);
    outer.set_row(0, a).set_map(1, k, vals);
    Row row = std::move(outer).build();
    CHECK(format_field(row, 0, DataType::array(DataType::int_())) == "[1, 2, null]");
    // The values sink's form (Flink CDC's BinaryRecordDataExtractor.java:89).
    CHECK(format_field(row, 1, DataType::map(DataType::string(), DataType::int_())) == "{k -> 9}");
}

TEST_CASE("fields print as Java's toString") {
    CHECK(java_double_to_string(1.0) == "1.0");
    CHECK(java_double_to_string(16.0) == "16.0");
    CHECK(java_double_to_string(0.001) == "0.001");
    CHECK(java_double_to_string(1e-4) == "1.0E-4");
    CHECK(java_double_to_string(12345678.0) == "1.2345678E7");
    CHECK(java_double_to_string(-2.5) == "-2.5");
    CHECK(java_float_to_string(0.1f) == "0.1");
    CHECK(temporal::format_local_date_time(Timestamp{1672531200000, 0}) == "2023-01-01T00:00");
    CHECK(temporal::format_local_date_time(Timestamp{1672531200500, 0}) ==
          "2023-01-01T00:00:00.500");
    CHECK(temporal::format_instant(Timestamp{1672531200000, 0}) == "2023-01-01T00:00:00Z");
    CHECK(temporal::format_date(-1) == "1969-12-31");
    // Years outside 0..9999 carry their sign and at least four digits (LocalDate.toString).
    CHECK(temporal::format_date(-719831) == "-0001-03-04");
    CHECK(temporal::format_date(-1084343) == "-0999-03-04");
    CHECK(temporal::format_date(-4371525) == "-9999-03-04");
    CHECK(temporal::format_date(-5228384) == "-12345-03-04");
    CHECK(temporal::format_date(2932897) == "+10000-01-01");
    CHECK(temporal::format_local_date_time(Timestamp{-719831 * 86'400'000LL + 3'720'000, 0}) ==
          "-0001-03-04T01:02");
    CHECK(temporal::format_sql_timestamp(Timestamp{1672531200120, 0}, 3) ==
          "2023-01-01 00:00:00.12");
}

// The formatters write digits directly; printf, as the Java formats' reference, checks them over
// years of four digits and beyond, both signs, every fraction length and offsets both ways.
TEST_CASE("dates and times print as printf formats them") {
    auto printf_date = [](std::int64_t days) {
        auto c = temporal::civil_from_days(days);
        char buf[64];
        if (c.year >= 0 && c.year <= 9999)
            std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u", static_cast<long long>(c.year),
                          c.month, c.day);
        else
            std::snprintf(buf, sizeof buf, "%+05lld-%02u-%02u", static_cast<long long>(c.year),
                          c.month, c.day);
        return std::string(buf);
    };
    auto printf_fraction = [](std::int64_t nanos) {
        char buf[16] = "";
        if (nanos == 0) return std::string();
        if (nanos % 1'000'000 == 0)
            std::snprintf(buf, sizeof buf, ".%03lld", static_cast<long long>(nanos / 1'000'000));
        else if (nanos % 1'000 == 0)
            std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(nanos / 1'000));
        else
            std::snprintf(buf, sizeof buf, ".%09lld", static_cast<long long>(nanos));
        return std::string(buf);
    };
    const std::vector<std::int64_t> days = {-719528 - 365 * 10,  // year -10
                                            -719528,             // year 0
                                            -1,
                                            0,
                                            19358,
                                            2932896 /* 9999-12-31 */,
                                            2932897 /* 10000-01-01 */,
                                            3652424};
    const std::vector<std::int64_t> nanos_of_day = {0,
                                                    60'000'000'000,
                                                    61'000'000'000,
                                                    3'600'000'000'000 + 500'000'000,
                                                    86'399'999'999'999,
                                                    12'345'678'900'000,
                                                    45'296'000'001'000,
                                                    7'000'000'123};
    for (std::int64_t d : days) {
        CHECK(temporal::format_date(d) == printf_date(d));
        for (std::int64_t nod : nanos_of_day) {
            std::int64_t secs = nod / 1'000'000'000, nanos = nod % 1'000'000'000;
            char hm[16], sec[8];
            std::snprintf(hm, sizeof hm, "%02lld:%02lld", static_cast<long long>(secs / 3600),
                          static_cast<long long>(secs / 60 % 60));
            std::snprintf(sec, sizeof sec, ":%02lld", static_cast<long long>(secs % 60));
            std::string full = std::string(hm) + sec + printf_fraction(nanos);
            std::string short_form = secs % 60 == 0 && nanos == 0 ? hm : full;
            Timestamp ts{d * 86'400'000 + nod / 1'000'000,
                         static_cast<std::int32_t>(nod % 1'000'000)};
            CHECK(temporal::format_time(nod) == short_form);
            CHECK(temporal::format_local_date_time(ts) == printf_date(d) + "T" + short_form);
            CHECK(temporal::format_instant(ts) == printf_date(d) + "T" + full + "Z");
            for (int precision : {0, 3, 6, 9}) {
                char frac[16];
                std::snprintf(frac, sizeof frac, "%09lld", static_cast<long long>(nanos));
                std::string f(frac, static_cast<std::size_t>(precision));
                while (!f.empty() && f.back() == '0') f.pop_back();
                std::string want = printf_date(d) + " " + std::string(hm) + sec +
                                   (nanos != 0 && !f.empty() ? "." + f : "");
                CHECK(temporal::format_sql_timestamp(ts, precision) == want);
            }
            for (int offset : {0, 3600, -9000, 50400}) {
                ZonedTimestamp z{Timestamp{ts.millis - offset * 1000LL, ts.nanos_of_milli}, offset};
                char off[16] = "Z";
                int a = offset < 0 ? -offset : offset;
                if (offset != 0)
                    std::snprintf(off, sizeof off, "%c%02d:%02d", offset < 0 ? '-' : '+', a / 3600,
                                  a / 60 % 60);
                CHECK(temporal::format_offset_date_time(z) == printf_date(d) + "T" + full + off);
            }
        }
    }
}

TEST_CASE("timestamps and dates parse") {
    CHECK(temporal::parse_date("2024-02-29") == temporal::days_from_civil(2024, 2, 29));
    CHECK_FALSE(temporal::parse_date("2023-02-29"));
    auto ts = temporal::parse_timestamp("2023-01-01T00:00:01.5+01:00");
    REQUIRE(ts);
    CHECK(ts->millis == 1672531200000 + 1500 - 3600 * 1000);
    CHECK(temporal::parse_time("10:15:30.000001") ==
          (10 * 3600 + 15 * 60 + 30) * 1'000'000'000LL + 1000);
}

TEST_CASE("a date parses exactly when its day exists in its month, in every year 0000-9999") {
    // Told by the month's length (not a round trip through the day number): pinned against the
    // round trip for every year, month and day 1-31.
    char text[11];
    int wrong = 0;
    for (int y = 0; y <= 9999; ++y)
        for (unsigned m = 1; m <= 12; ++m)
            for (unsigned d = 1; d <= 31; ++d) {
                std::snprintf(text, sizeof text, "%04d-%02u-%02u", y, m, d);
                const std::int64_t days = temporal::days_from_civil(y, m, d);
                const bool exists = temporal::civil_from_days(days).day == d;
                auto parsed = temporal::parse_date(text);
                if (parsed.has_value() != exists || (parsed && *parsed != days)) ++wrong;
            }
    CHECK(wrong == 0);
    CHECK(temporal::parse_date("1900-02-29") == std::nullopt);  // not a leap year
    CHECK(temporal::parse_date("2000-02-29").has_value());      // a leap year
    CHECK(temporal::parse_date("2023-04-31") == std::nullopt);
}

TEST_CASE("decimals parse with rounding and print plainly") {
    Decimal d;
    REQUIRE(Decimal::parse("1.005", 2, d));
    CHECK(d.to_string(2) == "1.01");
    REQUIRE(Decimal::parse("1e3", 0, d));
    CHECK(d.to_string(0) == "1000");
    REQUIRE(Decimal::parse("-0.5", 1, d));
    CHECK(d.to_string(1) == "-0.5");
    CHECK_FALSE(Decimal::parse("abc", 0, d));
    CHECK_FALSE(Decimal::parse("1e40", 0, d));
}
