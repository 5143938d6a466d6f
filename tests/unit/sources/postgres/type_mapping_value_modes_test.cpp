// The Debezium value modes (debezium.*) Flink CDC's PostgresTypeUtils maps types by: each mode's
// types, and the text form each mode reads values with.
#include <catch2/catch.hpp>

#include "sources/postgres/type_mapping.h"

using namespace cdcd;
using namespace cdcd::postgres;

namespace {

std::string mapped(Oid type, std::int32_t typmod, const ValueModes& modes,
                   const std::string& name = "t") {
    auto m = map_type({type, typmod, false, name}, modes);
    if (auto* refusal = std::get_if<TypeRefusal>(&m)) return "refused: " + refusal->reason;
    return std::get<DataType>(m).to_string();
}

std::int32_t numeric(int p, int s) {
    return ((p << 16) | (s & 0x7ff)) + 4;
}

ValueModes decimal(ValueModes::Decimal mode) {
    ValueModes m;
    m.decimal = mode;
    return m;
}

constexpr Oid kNumericArray = 1231, kByteaArray = 1001, kIntervalArray = 1187;
constexpr Oid kHstoreOid = 16500;  // an extension's type: known by name

}  // namespace

TEST_CASE("value modes: decimal.handling.mode precise is the default mapping") {
    const ValueModes precise;
    CHECK(mapped(oid::kNumeric, -1, precise) == "DECIMAL(38, 0)");
    CHECK(mapped(oid::kNumeric, numeric(10, 2), precise) == "DECIMAL(10, 2)");
    CHECK(mapped(oid::kNumeric, numeric(50, 5), precise) == "DECIMAL(38, 0)");
    CHECK(mapped(oid::kMoney, -1, precise) == "DECIMAL(38, 2)");
    CHECK(text_form({oid::kNumeric, -1, false, "numeric"}, precise) == TextForm::Native);
    CHECK(text_form({oid::kMoney, -1, false, "money"}, precise) == TextForm::Native);
}

TEST_CASE("value modes: decimal.handling.mode double makes numeric and money DOUBLE") {
    const ValueModes m = decimal(ValueModes::Decimal::Double);
    CHECK(mapped(oid::kNumeric, -1, m) == "DOUBLE");
    CHECK(mapped(oid::kNumeric, numeric(10, 2), m) == "DOUBLE");
    CHECK(mapped(oid::kNumeric, numeric(5, -2), m) == "DOUBLE");
    CHECK(mapped(oid::kMoney, -1, m) == "DOUBLE");
    CHECK(mapped(kNumericArray, -1, m) == "ARRAY<DOUBLE>");
    CHECK(text_form({oid::kNumeric, -1, false, "numeric"}, m) == TextForm::Native);
    CHECK(text_form({oid::kMoney, -1, false, "money"}, m) == TextForm::MoneyDouble);
}

TEST_CASE("value modes: decimal.handling.mode string makes numeric and money STRING") {
    const ValueModes m = decimal(ValueModes::Decimal::String);
    CHECK(mapped(oid::kNumeric, -1, m) == "STRING");
    CHECK(mapped(oid::kNumeric, numeric(10, 2), m) == "STRING");
    CHECK(mapped(oid::kMoney, -1, m) == "STRING");
    CHECK(mapped(kNumericArray, -1, m) == "ARRAY<STRING>");
    CHECK_THAT(mapped(oid::kNumeric, numeric(5, -2), m),
               Catch::StartsWith("refused: type t is not supported: a numeric with a negative "
                                 "scale"));
    CHECK(text_form({oid::kNumeric, -1, false, "numeric"}, m) == TextForm::NumericText);
    CHECK(text_form({kNumericArray, -1, false, "numeric[]"}, m) == TextForm::NumericText);
    CHECK(text_form({oid::kMoney, -1, false, "money"}, m) == TextForm::MoneyText);
}

TEST_CASE("value modes: money.fraction.digits is money's scale under precise") {
    ValueModes m;
    m.money_fraction_digits = 0;
    CHECK(mapped(oid::kMoney, -1, m) == "DECIMAL(38, 0)");
    m.money_fraction_digits = 38;
    CHECK(mapped(oid::kMoney, -1, m) == "DECIMAL(38, 38)");
    m.decimal = ValueModes::Decimal::String;
    CHECK(mapped(oid::kMoney, -1, m) == "STRING");
}

TEST_CASE("value modes: binary.handling.mode base64 and hex make bytea STRING") {
    ValueModes m;
    CHECK(mapped(oid::kBytea, -1, m) == "BYTES");
    m.binary = ValueModes::Binary::Base64;
    CHECK(mapped(oid::kBytea, -1, m) == "STRING");
    CHECK(mapped(kByteaArray, -1, m) == "ARRAY<STRING>");
    CHECK(text_form({oid::kBytea, -1, false, "bytea"}, m) == TextForm::Base64);
    // bit strings keep Debezium's bytes: the mode is bytea's only.
    CHECK(mapped(oid::kBit, 8, m) == "BINARY(8)");
    m.binary = ValueModes::Binary::Hex;
    CHECK(mapped(oid::kBytea, -1, m) == "STRING");
    CHECK(text_form({oid::kBytea, -1, false, "bytea"}, m) == TextForm::Hex);
}

TEST_CASE("value modes: interval.handling.mode string makes interval STRING") {
    ValueModes m;
    CHECK(mapped(oid::kInterval, -1, m) == "BIGINT");
    m.interval = ValueModes::Interval::String;
    CHECK(mapped(oid::kInterval, -1, m) == "STRING");
    CHECK(mapped(kIntervalArray, -1, m) == "ARRAY<STRING>");
    CHECK(text_form({oid::kInterval, -1, false, "interval"}, m) == TextForm::IntervalIso);
}

TEST_CASE("value modes: hstore.handling.mode map makes hstore a MAP") {
    ValueModes m;
    CHECK(mapped(kHstoreOid, -1, m, "public.hstore") == "STRING");
    CHECK(text_form({kHstoreOid, -1, false, "hstore"}, m) == TextForm::Hstore);
    m.hstore = ValueModes::Hstore::Map;
    CHECK(mapped(kHstoreOid, -1, m, "public.hstore") == "MAP<STRING, STRING>");
    CHECK(text_form({kHstoreOid, -1, false, "hstore"}, m) == TextForm::HstoreMap);
}
