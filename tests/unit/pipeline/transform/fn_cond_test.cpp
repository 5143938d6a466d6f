// Result nullability of IFNULL and COALESCE: NOT NULL when an argument cannot be NULL
// (TransformSqlReturnTypes.IF_NULL, Calcite's COALESCE LEAST_NULLABLE); a constant folded to a
// value counts as NOT NULL as Calcite types it (CAST(0 AS DECIMAL(1, 0)) is NOT NULL there).
#include <catch2/catch.hpp>

#include "one_row_eval.h"

using namespace cdcd;
using namespace cdcd::transform;
using cdcd::transform::testing::eval_on_row;

namespace {

const Schema& schema() {
    static const Schema s = SchemaBuilder()
                                .column("dec", DataType::decimal(20, 2))
                                .column("dec_null", DataType::decimal(20, 2))
                                .column("i", DataType::int_())
                                .build();
    return s;
}

const Row& row() {
    static const Row r = [] {
        RowBuilder b(3);
        b.set_decimal(0, Decimal{12345}).set_long(2, 3);
        return std::move(b).build();
    }();
    return r;
}

}  // namespace

TEST_CASE("IFNULL with a constant DECIMAL replacement is NOT NULL", "[fn_cond]") {
    // specs/decimal.yaml:44: IFNULL(decimal_20_2_ + CAST(1 AS DECIMAL(1, 0)),
    // CAST(0 AS DECIMAL(1, 0))) is DECIMAL(21, 2) NOT NULL.
    auto r = eval_on_row("IFNULL(dec + CAST(1 AS DECIMAL(1, 0)), CAST(0 AS DECIMAL(1, 0)))",
                         schema(), row());
    CHECK(r.type == "DECIMAL(21, 2) NOT NULL");
    CHECK(r.value == "124.45");
    r = eval_on_row("IFNULL(dec_null, CAST(0 AS DECIMAL(1, 0)))", schema(), row());
    CHECK(r.type == "DECIMAL(20, 2) NOT NULL");
    CHECK(r.value == "0.00");
}

TEST_CASE("IFNULL and COALESCE stay nullable when every argument can be NULL", "[fn_cond]") {
    CHECK(eval_on_row("IFNULL(dec_null, dec)", schema(), row()).type == "DECIMAL(20, 2)");
    CHECK(eval_on_row("COALESCE(dec_null, dec, NULL)", schema(), row()).type == "DECIMAL(20, 2)");
    CHECK(eval_on_row("IFNULL(i, CAST(NULL AS INT))", schema(), row()).type == "INT");
}

TEST_CASE("COALESCE with a constant argument is NOT NULL", "[fn_cond]") {
    auto r = eval_on_row("COALESCE(dec_null, CAST(7 AS DECIMAL(1, 0)))", schema(), row());
    CHECK(r.type == "DECIMAL(20, 2) NOT NULL");
    CHECK(r.value == "7.00");
    CHECK(eval_on_row("COALESCE(i, 1)", schema(), row()).type == "INT NOT NULL");
}
