// Temporal functions and how temporal values print, against the values Flink CDC pins.
// The columns and their values are those of Flink CDC's spec source (TransformSpecsITCase): the
// expected texts come from flink-cdc-composer/src/test/resources/specs/*.yaml and the Java
// sources cited next to each case (paths relative to flink-cdc-runtime/src/main/java/org/
// apache/flink/cdc/runtime/ unless they name another module).
#include <catch2/catch.hpp>

#include "pipeline/data/field_format.h"
#include "pipeline/data/temporal.h"
#include "pipeline/transform/compile/compiler.h"
#include "pipeline/transform/compile/types.h"
#include "pipeline/transform/syntax/parser.h"
#include "tests/unit/pipeline/transform/one_row_eval.h"

using namespace cdcd;
using namespace cdcd::transform;

namespace {

Schema spec_schema() {
    return SchemaBuilder()
        .column("id_", DataType::bigint().not_null())
        .column("int_", DataType::int_())
        .column("bigint_", DataType::bigint())
        .column("date_", DataType::date())
        .column("time_0_", DataType::time(0))
        .column("timestamp_0_", DataType::timestamp(0))
        .column("timestamp_6_", DataType::timestamp(6))
        .column("timestamp_9_", DataType::timestamp(9))
        .column("timestamp_ltz_0_", DataType::timestamp_ltz(0))
        .column("timestamp_ltz_6_", DataType::timestamp_ltz(6))
        .column("timestamp_ltz_9_", DataType::timestamp_ltz(9))
        .column("timestamp_tz_0_", DataType::timestamp_tz(0))
        .column("null_ts_", DataType::timestamp(3))
        .primary_key({"id_"})
        .build();
}

Timestamp ts(const char* text) {
    return *temporal::parse_timestamp(text);
}

// Record 1 of the spec source.
Row spec_row() {
    RowBuilder b(13);
    b.set_long(0, 1);
    b.set_long(1, 4);
    b.set_long(2, 5);
    b.set_long(3, *temporal::parse_date("2000-12-31"));
    b.set_long(4, *temporal::parse_time("19:43:17"));
    b.set_timestamp(5, ts("1970-01-02 10:17:36.789123456"));
    b.set_timestamp(6, ts("1970-01-03 17:09:27.891234561"));
    b.set_timestamp(7, ts("1970-01-05 00:01:18.912345612"));
    b.set_timestamp(8, ts("1970-01-02 10:17:36.789123456"));
    b.set_timestamp(9, ts("1970-01-03 17:09:27.891234561"));
    b.set_timestamp(10, ts("1970-01-05 00:01:18.912345612"));
    // 1970-01-02T10:17:36.789123456+08:00
    Timestamp utc = ts("1970-01-02 02:17:36.789123456");
    b.set_zoned_timestamp(11, ZonedTimestamp{utc, 8 * 3600});
    return std::move(b).build();
}

using Result = testing::Evaluated;

// The value as the values sink prints it, or "ERROR: ..." / "COMPILE: ..." for a failure.
Result run(const std::string& text, const std::string& tz = "UTC") {
    static const Schema schema = spec_schema();
    static const Row row = spec_row();
    return testing::eval_or_error(text, schema, row, tz);
}

std::string value(const std::string& text, const std::string& tz = "UTC") {
    return run(text, tz).value;
}

bool starts_with(const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
}

}  // namespace

TEST_CASE("TO_TIMESTAMP_LTZ over epoch numbers: millis, or seconds with precision 0") {
    // specs/temporal.yaml:156-170 ("To Timestamp LTZ Function"), bigint_ = 5;
    // functions/impl/TemporalFunctions.java:395-414.
    CHECK(value("TO_TIMESTAMP_LTZ(bigint_)") == "1970-01-01T00:00:00.005");
    CHECK(value("TO_TIMESTAMP_LTZ(bigint_, 0)") == "1970-01-01T00:00:05");
    CHECK(value("TO_TIMESTAMP_LTZ(bigint_, 3)") == "1970-01-01T00:00:00.005");
    CHECK(value("TO_TIMESTAMP_LTZ(-5)") == "1969-12-31T23:59:59.995");
    CHECK(value("TO_TIMESTAMP_LTZ(-5, 0)") == "1969-12-31T23:59:55");
    CHECK(run("TO_TIMESTAMP_LTZ(bigint_, 0)").type == "TIMESTAMP_LTZ(3)");
    // The session zone changes nothing: an instant prints as its UTC date-time.
    CHECK(value("TO_TIMESTAMP_LTZ(bigint_, 0)", "Asia/Shanghai") == "1970-01-01T00:00:05");
    // TemporalFunctions.java:406-413: other precisions fail.
    CHECK(starts_with(value("TO_TIMESTAMP_LTZ(bigint_, 6)"),
                      "COMPILE: TO_TIMESTAMP_LTZ precision must be 0 or 3, but get: 6"));
    CHECK(value("TO_TIMESTAMP_LTZ(bigint_, int_)") ==
          "ERROR: TO_TIMESTAMP_LTZ precision must be 0 or 3, but get: 4");
}

TEST_CASE("TO_TIMESTAMP_LTZ over text: DateTimeFormatter, UTC unless a zone is given") {
    // specs/temporal.yaml:161-166; TemporalFunctions.java:416-428.
    CHECK(value("TO_TIMESTAMP_LTZ('1999-12-31 23:50:23.456')") == "1999-12-31T23:50:23.456");
    CHECK(value("TO_TIMESTAMP_LTZ('1999-12-31 23:50:23.456')", "Asia/Shanghai") ==
          "1999-12-31T23:50:23.456");
    CHECK(value("TO_TIMESTAMP_LTZ('2000:03:29 19-21-48~321', 'yyyy:MM:dd HH-mm-ss~SSS')") ==
          "2000-03-29T19:21:48.321");
    CHECK(value("TO_TIMESTAMP_LTZ('2001-11-23 10:48:25.999', 'yyyy-MM-dd HH:mm:ss.SSS', "
                "'Asia/Shanghai')") == "2001-11-23T02:48:25.999");
    // SSSSSS is a fraction (microseconds) in DateTimeFormatter, not a count of milliseconds.
    CHECK(value("TO_TIMESTAMP_LTZ('2001-11-23 10:48:25.123456', 'yyyy-MM-dd HH:mm:ss.SSSSSS')") ==
          "2001-11-23T10:48:25.123");
    // LocalDateTime.parse throws on text that does not match the whole pattern: the row fails.
    CHECK(starts_with(value("TO_TIMESTAMP_LTZ('1999-12-31 23:50:23')"), "ERROR: "));
    CHECK(starts_with(value("TO_TIMESTAMP_LTZ('1999-12-31 23:50:23.456 trailing')"), "ERROR: "));
}

TEST_CASE("TIMESTAMP_LTZ prints as its UTC date-time, without a zone suffix") {
    // LocalZonedTimestampData.toString() (flink-cdc-common .../data/LocalZonedTimestampData.java
    // :110-131), as the values sink prints it (specs/casting.yaml:16-47, "Cast To String",
    // comp_19..21).
    CHECK(value("timestamp_ltz_9_") == "1970-01-05T00:01:18.912345612");
    CHECK(value("timestamp_ltz_0_") == "1970-01-02T10:17:36.789123456");
    CHECK(value("CAST(timestamp_ltz_6_ AS VARCHAR)") == "1970-01-03T17:09:27.891234561");
    // CastingFunctions.java:48-50: the UTC text whatever the session zone.
    CHECK(value("CAST(timestamp_ltz_0_ AS VARCHAR)", "Asia/Shanghai") ==
          "1970-01-02T10:17:36.789123456");
    CHECK(value("CAST(timestamp_0_ AS VARCHAR)", "Asia/Shanghai") ==
          "1970-01-02T10:17:36.789123456");
    // LocalDateTime.toString() leaves out zero seconds.
    CHECK(value("TO_TIMESTAMP_LTZ(0)") == "1970-01-01T00:00");
    // specs/temporal.yaml:312-318: interval arithmetic keeps the value's fraction.
    CHECK(value("INTERVAL '3' DAY + timestamp_ltz_0_") == "1970-01-05T10:17:36.789123456");
}

TEST_CASE("TIMESTAMP_LTZ plus months follows the UTC calendar") {
    // TemporalFunctions.java:144-149: 1970-01-31T20:00Z + 1 month is 1970-02-28T20:00Z, though in
    // Asia/Shanghai that instant is already 1970-02-01 (whose month has 28 days too).
    CHECK(value("TO_TIMESTAMP_LTZ(2577600000) + INTERVAL '1' MONTH", "Asia/Shanghai") ==
          "1970-02-28T20:00");
    CHECK(value("TO_TIMESTAMP_LTZ(2577600000) + INTERVAL '1' MONTH", "Pacific/Kiritimati") ==
          "1970-02-28T20:00");
}

TEST_CASE("TIMESTAMP_TZ prints as ISO_OFFSET_DATE_TIME") {
    // ZonedTimestampData.toString() (flink-cdc-common .../data/ZonedTimestampData.java:49,153);
    // specs/casting.yaml:16-47 comp_16.
    CHECK(value("timestamp_tz_0_") == "1970-01-02T10:17:36.789123456+08:00");
    CHECK(value("CAST(timestamp_tz_0_ AS VARCHAR)") == "1970-01-02T10:17:36.789123456+08:00");
    // The fraction without trailing zeros, the seconds always.
    CHECK(temporal::format_iso_offset_date_time(ZonedTimestamp{Timestamp{500, 0}, 8 * 3600}) ==
          "1970-01-01T08:00:00.5+08:00");
    CHECK(temporal::format_iso_offset_date_time(ZonedTimestamp{Timestamp{0, 0}, 0}) ==
          "1970-01-01T00:00:00Z");
}

TEST_CASE("DATE_FORMAT of TIMESTAMP_LTZ in the session zone") {
    // specs/temporal.yaml:16-62; TemporalFunctions.java:209-224.
    CHECK(value("DATE_FORMAT(timestamp_ltz_6_, 'yyyy~MM~dd')") == "1970~01~03");
    CHECK(value("DATE_FORMAT(timestamp_ltz_6_, 'yyyy~MM~dd')", "Asia/Shanghai") == "1970~01~04");
    CHECK(value("DATE_FORMAT(timestamp_ltz_9_, 'yyyy->MM->dd HH->mm->ss')", "Asia/Shanghai") ==
          "1970->01->05 08->01->18");
    CHECK(value("DATE_FORMAT(timestamp_9_, 'yyyy->MM->dd HH->mm->ss')", "Asia/Shanghai") ==
          "1970->01->05 00->01->18");
    CHECK(run("DATE_FORMAT(timestamp_0_, 'yyyy')").type == "STRING");
    // specs/temporal.yaml:118-133: TIME by DateTimeFormatter.
    CHECK(value("DATE_FORMAT(time_0_, 'HH::mm::ss.SSS')") == "19::43::17.000");
}

TEST_CASE("DATE_FORMAT_TZ: a TIMESTAMP keeps its wall clock, a TIMESTAMP_LTZ moves to the zone") {
    // specs/temporal.yaml:171-260; TemporalFunctions.java:430-450 (the two-argument form takes
    // the zone, with the pattern 'yyyy-MM-dd HH:mm:ss').
    CHECK(value("DATE_FORMAT_TZ(timestamp_0_, 'Asia/Shanghai')") == "1970-01-02 10:17:36");
    CHECK(value("DATE_FORMAT_TZ(timestamp_0_, 'America/Los_Angeles')") == "1970-01-02 10:17:36");
    CHECK(value("DATE_FORMAT_TZ(timestamp_9_, 'yyyy::MM::dd HH-mm-ss.SSSSSSSSS', "
                "'America/Los_Angeles')") == "1970::01::05 00-01-18.912345612");
    CHECK(value("DATE_FORMAT_TZ(timestamp_ltz_0_, 'Asia/Shanghai')") == "1970-01-02 18:17:36");
    CHECK(value("DATE_FORMAT_TZ(timestamp_ltz_0_, 'America/Los_Angeles')") ==
          "1970-01-02 02:17:36");
    CHECK(value("DATE_FORMAT_TZ(timestamp_ltz_6_, 'yyyy::MM::dd HH-mm-ss.SSSSSS', "
                "'Asia/Shanghai')") == "1970::01::04 01-09-27.891234");
    CHECK(run("DATE_FORMAT_TZ(timestamp_ltz_0_, 'UTC')").type == "STRING");
}

TEST_CASE("TIMESTAMP_DIFF takes its unit as a string") {
    // specs/temporal.yaml:63-79 ("Timestamp Diff Function").
    CHECK(value("TIMESTAMP_DIFF('SECOND', timestamp_0_, timestamp_0_)") == "0");
    CHECK(value("TIMESTAMP_DIFF('MINUTE', timestamp_6_, timestamp_0_)") == "-1851");
    CHECK(value("TIMESTAMP_DIFF('HOUR', timestamp_9_, timestamp_0_)") == "-61");
    CHECK(value("TIMESTAMP_DIFF('DAY', timestamp_ltz_0_, timestamp_ltz_0_)") == "0");
    CHECK(value("TIMESTAMP_DIFF('MONTH', timestamp_ltz_6_, timestamp_ltz_0_)") == "0");
    CHECK(value("TIMESTAMP_DIFF('YEAR', timestamp_ltz_9_, timestamp_ltz_0_)") == "0");
    CHECK(run("TIMESTAMP_DIFF('SECOND', timestamp_0_, timestamp_0_)").type == "INT");
    CHECK(value("TIMESTAMP_DIFF('SECOND', null_ts_, timestamp_0_)") == "null");
    // flink-cdc-common .../utils/DateTimeUtils.java:243-247: the other units fail.
    CHECK(starts_with(value("TIMESTAMP_DIFF('WEEK', timestamp_0_, timestamp_0_)"),
                      "COMPILE: Unsupported timestamp interval unit WEEK."));
}

TEST_CASE("TIMESTAMPDIFF as DateTimeUtils.timestampDiff") {
    // DateTimeUtils.java:237-242: months and years by calendar fields, without regard to days.
    CHECK(value("TIMESTAMPDIFF(MONTH, TIMESTAMP '2024-01-31 00:00:00', "
                "TIMESTAMP '2024-02-01 00:00:00')") == "1");
    CHECK(value("TIMESTAMPDIFF(YEAR, TIMESTAMP '2024-12-31 23:59:59', "
                "TIMESTAMP '2025-01-01 00:00:00')") == "1");
    // TemporalFunctions.java:286-341: a TIMESTAMP is placed in the session zone, a TIMESTAMP_LTZ
    // read in UTC. 1970-01-02T10:17:36 in Asia/Shanghai is 02:17:36Z, 8 hours before the LTZ.
    CHECK(value("TIMESTAMPDIFF(HOUR, timestamp_0_, timestamp_ltz_0_)", "Asia/Shanghai") == "8");
    CHECK(value("TIMESTAMPDIFF(HOUR, timestamp_0_, timestamp_ltz_0_)") == "0");
    // Elapsed time across a daylight-saving change: 4 hours from 00:00 to 05:00 on 2024-03-10.
    CHECK(value("TIMESTAMPDIFF(HOUR, TIMESTAMP '2024-03-10 00:00:00', "
                "TIMESTAMP '2024-03-10 05:00:00')",
                "America/Los_Angeles") == "4");
    // DateTimeUtils.java:218-221: more seconds than an int holds is NULL.
    CHECK(value("TIMESTAMPDIFF(SECOND, TIMESTAMP '1970-01-01 00:00:00', "
                "TIMESTAMP '2100-01-01 00:00:00')") == "null");
    CHECK(starts_with(value("TIMESTAMPDIFF(QUARTER, timestamp_0_, timestamp_0_)"),
                      "COMPILE: Unsupported timestamp interval unit QUARTER."));
}

TEST_CASE("TIMESTAMPADD on whole milliseconds, of the timestamp argument's type") {
    // specs/regression.yaml:16-47 (time-zone Asia/Tokyo) and :71-102 (Australia/Sydney).
    CHECK(value("TIMESTAMPADD(HOUR, 18, timestamp_0_)", "Asia/Tokyo") == "1970-01-03T04:17:36.789");
    CHECK(run("TIMESTAMPADD(HOUR, 18, timestamp_0_)", "Asia/Tokyo").type == "TIMESTAMP(0)");
    CHECK(value("TIMESTAMPADD(HOUR, 18, timestamp_6_)", "Asia/Tokyo") == "1970-01-04T11:09:27.891");
    CHECK(run("TIMESTAMPADD(HOUR, 18, timestamp_6_)", "Asia/Tokyo").type == "TIMESTAMP(3)");
    CHECK(value("TIMESTAMPADD(HOUR, 18, timestamp_ltz_9_)", "Australia/Sydney") ==
          "1970-01-05T18:01:18.912");
    CHECK(run("TIMESTAMPADD(HOUR, 18, timestamp_ltz_9_)").type == "TIMESTAMP_LTZ(3)");
    // DateTimeUtils.java:280-284: the other units fail.
    CHECK(starts_with(value("TIMESTAMPADD(WEEK, 1, timestamp_0_)"),
                      "COMPILE: Unsupported timestamp interval unit WEEK."));
}

TEST_CASE("DATE_ADD gives 'yyyy-MM-dd' text") {
    // specs/temporal.yaml:261-278; TemporalFunctions.java:452-500; TransformSqlOperatorTable
    // .java:596-606 (VARCHAR).
    CHECK(value("DATE_ADD(timestamp_0_, 17)") == "1970-01-19");
    CHECK(value("DATE_ADD(timestamp_ltz_9_, 17)") == "1970-01-22");
    CHECK(value("DATE_ADD(date_, 17)") == "2001-01-17");
    CHECK(value("DATE_ADD('2015-07-23', 17)") == "2015-08-09");
    CHECK(value("DATE_ADD('2015-07-23 21:48:25', 17)") == "2015-08-09");
    CHECK(run("DATE_ADD(date_, 17)").type == "STRING");
    // A TIMESTAMP_LTZ by its date in the session zone.
    CHECK(value("DATE_ADD(timestamp_ltz_9_, 0)", "America/Los_Angeles") == "1970-01-04");
    // TemporalFunctions.java:499: text of another length fails.
    CHECK(value("DATE_ADD('2015-7-23', 1)") == "ERROR: Unparseable timestamp: 2015-7-23");
}

TEST_CASE("EXTRACT: Flink CDC's units, TIMESTAMP_LTZ in the session zone") {
    // specs/temporal.yaml:279-303 (time-zone Asia/Shanghai).
    CHECK(value("EXTRACT(HOUR FROM timestamp_ltz_0_)", "Asia/Shanghai") == "18");
    CHECK(value("EXTRACT(YEAR FROM TO_TIMESTAMP_LTZ('2023-12-31 16:30:00.000'))",
                "Asia/Shanghai") == "2024");
    CHECK(value("HOUR(time_0_)") == "19");
    CHECK(value("HOUR(date_)") == "0");  // TemporalFunctions.java:116-121
    // parser/JaninoCompiler.java:89-92, 354-356.
    CHECK(starts_with(value("EXTRACT(MILLISECOND FROM timestamp_0_)"),
                      "COMPILE: Unsupported EXTRACT unit: MILLISECOND"));
    // TemporalFunctions.java:122-127: LocalTime has no date fields.
    CHECK(starts_with(value("EXTRACT(YEAR FROM time_0_)"), "COMPILE: EXTRACT unit YEAR"));
}

TEST_CASE(
    "TO_DATE: NULL for text that is not exactly a date, and a TIMESTAMP_LTZ by its UTC date") {
    // specs/regression.yaml "TO_DATE chained with FROM_UNIXTIME": bigint_ = 5.
    CHECK(value("TO_DATE(FROM_UNIXTIME(bigint_))") == "null");
    CHECK(value("TO_DATE(FROM_UNIXTIME(bigint_, 'yyyy-MM-dd'))") == "1970-01-01");
    // specs/temporal.yaml:80-94.
    CHECK(value("TO_DATE('2025-01-05')") == "2025-01-05");
    CHECK(value("TO_DATE('2024//02//14', 'yyyy//MM//dd')") == "2024-02-14");
    CHECK(value("TO_DATE('2024 !! 02 !! 14', 'yyyy//MM//dd')") == "null");
    CHECK(run("TO_DATE('2025-01-05')").type == "DATE");
    // flink-cdc-common .../utils/DateTimeUtils.java:100-106: LocalDate.parse, NULL on failure,
    // including a pattern DateTimeFormatter rejects; the SMART resolver clamps the day.
    CHECK(value("TO_DATE('2024-01-01 10:00:00')") == "null");
    CHECK(value("TO_DATE('2024-01-01', 'yyyy-bb-dd')") == "null");
    CHECK(value("TO_DATE('2023-02-30')") == "2023-02-28");
    CHECK(value("TO_DATE('2023-13-01')") == "null");
    CHECK(value("TO_DATE('2023-2-01')") == "null");  // MM takes two digits
    // specs/regression.yaml:104-170 (Pacific/Tarawa); TemporalFunctions.java:264-269.
    CHECK(value("TO_DATE(timestamp_ltz_9_)", "Pacific/Tarawa") == "1970-01-05");
    CHECK(value("TO_DATE(TIMESTAMPADD(HOUR, -12, timestamp_ltz_9_))", "Pacific/Tarawa") ==
          "1970-01-04");
    CHECK(value("TO_DATE(TIMESTAMPADD(HOUR, 11, timestamp_ltz_9_))", "Pacific/Tarawa") ==
          "1970-01-05");
    // specs/regression.yaml:49-69: TIMESTAMP_TZ by its own date.
    CHECK(value("TO_DATE(timestamp_tz_0_)", "America/Los_Angeles") == "1970-01-02");
    // regression.yaml "TO_DATE with TO_TIMESTAMP_LTZ (convert epoch to date)".
    CHECK(value("TO_DATE(TO_TIMESTAMP_LTZ(-5, 0))") == "1969-12-31");
}

TEST_CASE("TO_TIMESTAMP fails on text that does not parse") {
    // specs/temporal.yaml:95-117; TemporalFunctions.java:275-284.
    CHECK(value("TO_TIMESTAMP('2025-01-05 19:59:59')") == "2025-01-05T19:59:59");
    CHECK(value("TO_TIMESTAMP('2024//02//14 23//44//17', 'yyyy//MM//dd HH//mm//ss')") ==
          "2024-02-14T23:44:17");
    CHECK(value("TO_TIMESTAMP('2024 !! 02 !! 14', 'yyyy//MM//dd')") ==
          "ERROR: Unparseable date: \"2024 !! 02 !! 14\"");
    CHECK(value("TO_TIMESTAMP('2024 !! 02 !! 14 11 !! 45 !! 49', 'yyyy//MM//dd')") ==
          "ERROR: Unparseable date: \"2024 !! 02 !! 14 11 !! 45 !! 49\"");
}

TEST_CASE("UNIX_TIMESTAMP divides milliseconds toward zero") {
    // flink-cdc-common .../utils/DateTimeUtils.java:176-183: ts / 1000 on a long.
    CHECK(value("UNIX_TIMESTAMP('1969-12-31 23:59:59.500', 'yyyy-MM-dd HH:mm:ss.SSS')") == "0");
    CHECK(value("UNIX_TIMESTAMP('1970-01-01 00:00:05')") == "5");
}

TEST_CASE("FROM_UNIXTIME in the session zone") {
    // specs/temporal.yaml:134-155.
    CHECK(value("FROM_UNIXTIME(bigint_)") == "1970-01-01 00:00:05");
    CHECK(value("FROM_UNIXTIME(int_, 'yyyy/MM/dd HH;mm;ss')") == "1970/01/01 00;00;04");
    CHECK(value("FROM_UNIXTIME(bigint_)", "Asia/Shanghai") == "1970-01-01 08:00:05");
}

TEST_CASE("DATE ± a day-time INTERVAL stays a DATE and moves by whole days only") {
    // Calcite 1.32 types DATE + INTERVAL HOUR as DATE (SqlTypeFactoryImpl.leastRestrictive:
    // datetime ± interval = the datetime; StandardConvertletTable.convertPlus keeps that type),
    // and JaninoCompiler calls TemporalFunctions.temporalPlusMillis(LocalDate, millis), which adds
    // millis / MILLIS_PER_DAY days (TemporalFunctions.java:151-154,
    // TemporalFunctionsTest.java:117-123).
    CHECK(run("DATE '2024-02-28' + INTERVAL '12' HOUR").type == "DATE NOT NULL");
    CHECK(value("DATE '2024-02-28' + INTERVAL '12' HOUR") == "2024-02-28");
    CHECK(value("DATE '2024-02-28' + INTERVAL '36' HOUR") == "2024-02-29");
    // Java's long division truncates toward zero: -12 hours is no day, -36 hours one.
    CHECK(value("DATE '2024-02-28' - INTERVAL '12' HOUR") == "2024-02-28");
    CHECK(value("DATE '2024-02-28' - INTERVAL '36' HOUR") == "2024-02-27");
    CHECK(value("INTERVAL '1 23:59:59' DAY TO SECOND + DATE '2024-02-28'") == "2024-02-29");
    CHECK(run("date_ + INTERVAL '90' MINUTE").type == "DATE");
}
