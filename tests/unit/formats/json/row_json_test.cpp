#include "formats/json/row_json.h"

#include <catch2/catch.hpp>

using namespace cdcd;

namespace {

// Field 0 of a one-column row as the JSON format writes it.
std::string json_of(const DataType& type, Timestamp ts, bool iso8601) {
    RowBuilder b(1);
    b.set_timestamp(0, ts);
    Row row = std::move(b).build();
    json::JsonFormatOptions o;
    o.iso8601_timestamps = iso8601;
    std::string out;
    json::Writer w(out);
    json::write_field(w, row.view(), 0, type, o);
    return out;
}

std::string json_of_date(std::int64_t epoch_days) {
    RowBuilder b(1);
    b.set_long(0, epoch_days);
    Row row = std::move(b).build();
    std::string out;
    json::Writer w(out);
    json::write_field(w, row.view(), 0, DataType::date(), {});
    return out;
}

struct TimestampCase {
    Timestamp ts;
    int precision;     // the column's: the text follows the value, as Flink's formatters do
    const char* text;  // SQL standard; ISO-8601 has 'T' for the separator
};

}  // namespace

// Flink's JSON format (flink-json TimeFormats): DATE is ISO_LOCAL_DATE, TIMESTAMP is ISO_LOCAL_DATE
// ' ' HH:mm:ss plus the nanosecond fraction without trailing zeros (ISO-8601: ISO_LOCAL_DATE_TIME,
// the same text with 'T'), TIMESTAMP_LTZ the same in UTC with 'Z'. ISO_LOCAL_DATE prints a year
// outside 0..9999 with its sign and at least four digits, so the date part is not always ten
// characters long: the separator follows it wherever it ends.
TEST_CASE("JSON dates and timestamps at the edges of four-digit years") {
    CHECK(json_of_date(-719893) == R"("-0001-01-01")");
    CHECK(json_of_date(-719529) == R"("-0001-12-31")");
    CHECK(json_of_date(-719528) == R"("0000-01-01")");
    CHECK(json_of_date(-719469) == R"("0000-02-29")");
    CHECK(json_of_date(-719162) == R"("0001-01-01")");
    CHECK(json_of_date(2932896) == R"("9999-12-31")");
    CHECK(json_of_date(2932897) == R"("+10000-01-01")");
    CHECK(json_of_date(106751990939) == R"("+292278994-01-01")");
    CHECK(json_of_date(106751991167) == R"("+292278994-08-17")");

    const TimestampCase cases[] = {
        // Long.MIN_VALUE milliseconds, the first representable instant (Java:
        // Instant.ofEpochMilli(Long.MIN_VALUE) is -292275055-05-16T16:47:04.192Z).
        {{-9223372036854775807LL - 1, 0}, 3, "-292275055-05-16 16:47:04.192"},
        {{-62167219201000LL, 0}, 0, "-0001-12-31 23:59:59"},
        {{-62198755199500LL, 0}, 1, "-0001-01-01 00:00:00.5"},
        {{-62198755199500LL, 0}, 9, "-0001-01-01 00:00:00.5"},
        {{-62167219200000LL, 0}, 0, "0000-01-01 00:00:00"},
        {{-62162076599877LL, 0}, 3, "0000-02-29 12:30:00.123"},
        {{-62135596800000LL, 1}, 9, "0001-01-01 00:00:00.000000001"},
        {{-62121311449877LL, 456000}, 6, "0001-06-15 08:09:10.123456"},
        {{253402300799999LL, 999999}, 9, "9999-12-31 23:59:59.999999999"},
        {{253402300799000LL, 0}, 3, "9999-12-31 23:59:59"},
        {{253402300800000LL, 0}, 0, "+10000-01-01 00:00:00"},
        {{253402300800000LL, 100000}, 6, "+10000-01-01 00:00:00.0001"},
        {{253402300800120LL, 0}, 3, "+10000-01-01 00:00:00.12"},
        {{9223372017129600000LL, 0}, 0, "+292278994-01-01 00:00:00"},
        // Long.MAX_VALUE milliseconds, the last representable instant.
        {{9223372036854775807LL, 0}, 3, "+292278994-08-17 07:12:55.807"},
        {{9223372036854775807LL, 999999}, 9, "+292278994-08-17 07:12:55.807999999"},
    };
    for (const auto& c : cases) {
        std::string sql = c.text;
        std::string iso = sql;
        iso[iso.find(' ')] = 'T';
        INFO(sql << " at precision " << c.precision);
        CHECK(json_of(DataType::timestamp(c.precision), c.ts, false) == "\"" + sql + "\"");
        CHECK(json_of(DataType::timestamp(c.precision), c.ts, true) == "\"" + iso + "\"");
        CHECK(json_of(DataType::timestamp_ltz(c.precision), c.ts, false) == "\"" + sql + "Z\"");
        CHECK(json_of(DataType::timestamp_ltz(c.precision), c.ts, true) == "\"" + iso + "Z\"");
    }
}

TEST_CASE("ISO-8601 JSON timestamps put the T right after a date of any length") {
    // Literal texts, so a separator written at a fixed position shows.
    CHECK(json_of(DataType::timestamp(3), {-62198755199500LL, 0}, true) ==
          R"("-0001-01-01T00:00:00.5")");
    CHECK(json_of(DataType::timestamp_ltz(9), {-62135596800000LL, 1}, true) ==
          R"("0001-01-01T00:00:00.000000001Z")");
    CHECK(json_of(DataType::timestamp(0), {253402300800000LL, 0}, true) ==
          R"("+10000-01-01T00:00:00")");
    CHECK(json_of(DataType::timestamp_ltz(6), {253402300800000LL, 100000}, true) ==
          R"("+10000-01-01T00:00:00.0001Z")");
    CHECK(json_of(DataType::timestamp(9), {9223372036854775807LL, 999999}, true) ==
          R"("+292278994-08-17T07:12:55.807999999")");
    CHECK(json_of(DataType::timestamp_ltz(3), {9223372036854775807LL, 0}, true) ==
          R"("+292278994-08-17T07:12:55.807Z")");
}
