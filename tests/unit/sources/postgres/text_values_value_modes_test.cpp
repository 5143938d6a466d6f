// Values under the Debezium value modes (debezium.*), as Debezium 1.9.8 converts them and Flink
// CDC emits them: numeric as text or double (NaN and the infinities too), money as a double or
// Java's text of it, bytea encoded, interval as Debezium's ISO text, hstore as a map.
#include <catch2/catch.hpp>

#include "pipeline/data/field_format.h"
#include "sources/postgres/text_values.h"

using namespace cdcd;
using namespace cdcd::postgres;

namespace {

std::string parsed(const DataType& type, std::string_view text, TextForm form) {
    RowBuilder row(1);
    if (auto why = set_text_value(row, 0, type, text, form)) return "refused: " + *why;
    Row built = std::move(row).build();
    return format_field(built, 0, type);
}

const std::string kLong = "12345678901234567890.123456789012345678901234567890";

}  // namespace

TEST_CASE("value modes: a numeric under decimal.handling.mode string is its exact text") {
    const DataType s = DataType::string();
    CHECK(parsed(s, kLong, TextForm::NumericText) == kLong);
    CHECK(parsed(s, "-0.000000000000000000000000000001", TextForm::NumericText) ==
          "-0.000000000000000000000000000001");
    CHECK(parsed(s, "1.2300", TextForm::NumericText) == "1.2300");
    // Debezium's SpecialValueDecimal names.
    CHECK(parsed(s, "NaN", TextForm::NumericText) == "NAN");
    CHECK(parsed(s, "Infinity", TextForm::NumericText) == "POSITIVE_INFINITY");
    CHECK(parsed(s, "-Infinity", TextForm::NumericText) == "NEGATIVE_INFINITY");
    CHECK(parsed(DataType::array(s), "{1.50,NaN,NULL}", TextForm::NumericText) ==
          "[1.50, NAN, null]");
}

TEST_CASE("value modes: a numeric under decimal.handling.mode double is the nearest double") {
    const DataType d = DataType::double_();
    CHECK(parsed(d, kLong, TextForm::Native) == "1.2345678901234567E19");
    CHECK(parsed(d, "0.1", TextForm::Native) == "0.1");
    CHECK(parsed(d, "NaN", TextForm::Native) == "NaN");
    CHECK(parsed(d, "Infinity", TextForm::Native) == "Infinity");
    CHECK(parsed(d, "-Infinity", TextForm::Native) == "-Infinity");
}

TEST_CASE("value modes: a NaN numeric under precise is refused naming the mode") {
    CHECK_THAT(parsed(DataType::decimal(38, 0), "NaN", TextForm::Native),
               Catch::StartsWith("refused: numeric NaN has no DECIMAL value") &&
                   Catch::Contains("decimal.handling.mode"));
}

TEST_CASE("value modes: money as pgjdbc's double of it") {
    CHECK(parsed(DataType::double_(), "$1,234.50", TextForm::MoneyDouble) == "1234.5");
    CHECK(parsed(DataType::double_(), "-$5.00", TextForm::MoneyDouble) == "-5.0");
    // string: Java's Double.toString of that double.
    CHECK(parsed(DataType::string(), "$1,234.50", TextForm::MoneyText) == "1234.5");
    CHECK(parsed(DataType::string(), "$0.00", TextForm::MoneyText) == "0.0");
    CHECK(parsed(DataType::string(), "$12,345,678.90", TextForm::MoneyText) == "1.23456789E7");
    CHECK(parsed(DataType::string(), "-$0.01", TextForm::MoneyText) == "-0.01");
    CHECK_THAT(parsed(DataType::string(), "1.5", TextForm::MoneyText),
               Catch::StartsWith("refused: '1.5' is not money"));
    // precise with money.fraction.digits 0: rounded HALF_UP.
    CHECK(parsed(DataType::decimal(38, 0), "$1,234.50", TextForm::Native) == "1235");
    CHECK(parsed(DataType::decimal(38, 4), "$1,234.50", TextForm::Native) == "1234.5000");
}

TEST_CASE("value modes: bytea under binary.handling.mode base64 and hex") {
    const DataType s = DataType::string();
    CHECK(parsed(s, "\\x0102ff", TextForm::Base64) == "AQL/");
    CHECK(parsed(s, "\\x01", TextForm::Base64) == "AQ==");
    CHECK(parsed(s, "\\x0102", TextForm::Base64) == "AQI=");
    CHECK(parsed(s, "\\x", TextForm::Base64).empty());
    CHECK(parsed(s, "\\x0102ff", TextForm::Hex) == "0102ff");
    CHECK(parsed(s, "\\x", TextForm::Hex).empty());
    CHECK_THAT(parsed(s, "\\x0g", TextForm::Hex), Catch::StartsWith("refused: "));
    CHECK(parsed(DataType::array(s), "{\"\\\\x01\",NULL}", TextForm::Base64) == "[AQ==, null]");
}

TEST_CASE("value modes: interval under interval.handling.mode string is Debezium's ISO text") {
    const DataType s = DataType::string();
    // The seconds are new BigDecimal(PGInterval.getSeconds()), the double 6 + 0.789 exactly
    // (6.78899999999999970...), cut to 9 decimals toward zero.
    CHECK(parsed(s, "1 year 2 mons -3 days 04:05:06.789", TextForm::IntervalIso) ==
          "P1Y2M-3DT4H5M6.788999999S");
    CHECK(parsed(s, "04:05:06.3", TextForm::IntervalIso) == "P0Y0M0DT4H5M6.299999999S");
    CHECK(parsed(s, "-04:05:06.5", TextForm::IntervalIso) == "P0Y0M0DT-4H-5M-6.5S");
    CHECK(parsed(s, "04:05:06.25", TextForm::IntervalIso) == "P0Y0M0DT4H5M6.25S");
    CHECK(parsed(s, "00:00:00", TextForm::IntervalIso) == "P0Y0M0DT0H0M0S");
    CHECK(parsed(s, "3 days", TextForm::IntervalIso) == "P0Y0M3DT0H0M0S");
    CHECK(parsed(s, "00:00:59.000001", TextForm::IntervalIso) == "P0Y0M0DT0H0M59.000000999S");
    CHECK(parsed(s, "-00:00:00.000001", TextForm::IntervalIso) == "P0Y0M0DT0H0M-0.000000999S");
    CHECK(parsed(s, "2562047788 hours", TextForm::IntervalIso).rfind("refused: ", 0) == 0);
    CHECK(parsed(s, "-178000000 years", TextForm::IntervalIso) == "P-178000000Y0M0DT0H0M0S");
}

TEST_CASE("value modes: hstore under hstore.handling.mode map") {
    const DataType m = DataType::map(DataType::string(), DataType::string());
    // In the server's order (shorter keys first), read into a HashMap as pgjdbc does.
    CHECK(parsed(m, "\"size\"=>NULL, \"color\"=>\"blue\"", TextForm::HstoreMap) ==
          "{size -> null, color -> blue}");
    CHECK(parsed(m, "", TextForm::HstoreMap) == "{}");
    CHECK_THAT(parsed(m, "\"a\"=>", TextForm::HstoreMap), Catch::StartsWith("refused: "));
}
