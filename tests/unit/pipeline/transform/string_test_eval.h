#pragma once
// One expression evaluated against one fixed row, printed as the values sink prints it: what
// fn_string_test.cpp and fn_regex_test.cpp compare with the values Flink CDC pins.
#include <string>

#include "pipeline/data/temporal.h"
#include "tests/unit/pipeline/transform/one_row_eval.h"

namespace cdcd::transform::testing {

// Columns: s = 'Alice', n_null = NULL, bad = '(' (a pattern Java rejects), good = 'l+',
// i = 7, b = 10000000000, d = 2.5, dec = 12.34, flag = true, dt = 2024-03-15,
// ts = 2024-03-15 10:20:30.123, tm = 10:20:30, bin = x'0102'.
inline Schema string_test_schema() {
    return SchemaBuilder()
        .column("id", DataType::int_().not_null())
        .column("s", DataType::string())
        .column("n_null", DataType::string())
        .column("bad", DataType::string())
        .column("good", DataType::string())
        .column("i", DataType::int_())
        .column("b", DataType::bigint())
        .column("d", DataType::double_())
        .column("dec", DataType::decimal(10, 2))
        .column("flag", DataType::boolean())
        .column("dt", DataType::date())
        .column("ts", DataType::timestamp(3))
        .column("tm", DataType::time(0))
        .column("bin", DataType::bytes())
        .primary_key({"id"})
        .build();
}

inline Row string_test_row() {
    RowBuilder b(14);
    b.set_long(0, 1);
    b.set_string(1, "Alice");
    b.set_string(3, "(");
    b.set_string(4, "l+");
    b.set_long(5, 7);
    b.set_long(6, 10000000000LL);
    b.set_double(7, 2.5);
    b.set_decimal(8, Decimal{1234});
    b.set_bool(9, true);
    b.set_long(10, *temporal::parse_date("2024-03-15"));
    b.set_timestamp(11, *temporal::parse_timestamp("2024-03-15 10:20:30.123"));
    b.set_long(12, *temporal::parse_time("10:20:30"));
    b.set_bytes(13, std::string_view("\x01\x02", 2));
    return std::move(b).build();
}

/// The printed value ("null" for NULL), "ERROR: <message>" when the row fails, and
/// "COMPILE: <message>" / "SYNTAX: <message>" when the expression is refused before any row.
inline std::string eval_printed(const std::string& text) {
    static const Schema schema = string_test_schema();
    static const Row row = string_test_row();
    return eval_or_error(text, schema, row).value;
}

}  // namespace cdcd::transform::testing
