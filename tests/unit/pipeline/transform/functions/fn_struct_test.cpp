// ARRAY / MAP constructors over nested values of different element types, and ROW subscripts.
#include <catch2/catch.hpp>

#include "tests/unit/pipeline/transform/one_row_eval.h"

using namespace cdcd;
using namespace cdcd::transform;
using cdcd::transform::testing::eval_on_row;

namespace {

const Schema& schema() {
    static const Schema s =
        SchemaBuilder()
            .column("id", DataType::bigint().not_null())
            .column("i", DataType::int_())
            .column("d", DataType::double_())
            .column("r",
                    DataType::row(
                        {RowField{"name", std::make_shared<DataType>(DataType::string()), ""},
                         RowField{"length", std::make_shared<DataType>(DataType::int_()), ""}}))
            .build();
    return s;
}

const Row& row() {
    static const Row r = [] {
        RowBuilder nested(2);
        nested.set_string(0, "Alice").set_long(1, 5);
        Row n = std::move(nested).build();
        RowBuilder b(4);
        b.set_long(0, -1).set_long(1, 7).set_double(2, 2.5).set_row(3, n.view());
        return std::move(b).build();
    }();
    return r;
}

}  // namespace

TEST_CASE("ARRAY of ARRAYs takes the common element type", "[fn_struct]") {
    // specs/nested.yaml:33: ARRAY[ARRAY[1], ARRAY[id_]] is ARRAY<ARRAY<BIGINT>> ([[1], [-1]]):
    // Calcite's leastRestrictive reaches into the element types.
    auto r = eval_on_row("ARRAY[ARRAY[1], ARRAY[id]]", schema(), row());
    CHECK(r.value == "[[1], [-1]]");
    CHECK(r.type == "ARRAY<ARRAY<BIGINT NOT NULL> NOT NULL> NOT NULL");
    r = eval_on_row("ARRAY[ARRAY['a'], ARRAY['bcd', NULL]]", schema(), row());
    CHECK(r.value == "[[a], [bcd, null]]");
    CHECK(r.type == "ARRAY<ARRAY<CHAR(3)> NOT NULL> NOT NULL");
}

TEST_CASE("MAP values of nested types take the common type", "[fn_struct]") {
    auto r = eval_on_row("MAP['a', ARRAY[i], 'b', ARRAY[id]]", schema(), row());
    CHECK(r.value == "{a -> [7], b -> [-1]}");
    CHECK(r.type == "MAP<CHAR(1) NOT NULL, ARRAY<BIGINT> NOT NULL> NOT NULL");
}

TEST_CASE("a NULL element, key or value makes its type nullable", "[fn_struct]") {
    CHECK(eval_on_row("ARRAY[1, NULL]", schema(), row()).type == "ARRAY<INT> NOT NULL");
    auto r = eval_on_row("MAP['a', 1, 'b', NULL]", schema(), row());
    CHECK(r.type == "MAP<CHAR(1) NOT NULL, INT> NOT NULL");
    CHECK(r.value == "{a -> 1, b -> null}");
}

TEST_CASE("nested elements whose values would need converting are rejected", "[fn_struct]") {
    CHECK_THROWS_WITH(eval_on_row("ARRAY[ARRAY[1], ARRAY[d]]", schema(), row()),
                      Catch::Contains("Cannot convert ARRAY<INT NOT NULL> NOT NULL to "
                                      "ARRAY<DOUBLE> NOT NULL") &&
                          Catch::Contains("CAST them to one type"));
}

TEST_CASE("a ROW subscript must be an integer literal", "[fn_struct]") {
    CHECK(eval_on_row("r[1]", schema(), row()).value == "Alice");
    CHECK(eval_on_row("r[2]", schema(), row()).value == "5");
    // specs/nested.yaml:319: Flink rejects complex_row_[1 + 1] ("Cannot infer type of field at
    // position null"): Calcite types the field from the subscript literal.
    CHECK_THROWS_AS(eval_on_row("r[1 + 1]", schema(), row()), CompileError);
    CHECK_THROWS_WITH(eval_on_row("r[1 + 1]", schema(), row()),
                      Catch::Contains("ROW subscript must be an integer literal"));
    CHECK_THROWS_WITH(eval_on_row("r[i]", schema(), row()),
                      Catch::Contains("ROW subscript must be an integer literal"));
}

TEST_CASE("a repeated MAP key keeps its first place and takes the last value", "[fn_struct]") {
    // StructFunctionsTest.java:46: map("one", 1, "two", 2, "one", 3) is {one=3, two=2}
    // (StructFunctions.map fills a LinkedHashMap).
    CHECK(eval_on_row("MAP['one', 1, 'two', 2, 'one', 3]", schema(), row()).value ==
          "{one -> 3, two -> 2}");
    CHECK(eval_on_row("MAP[NULL, 1, 'a', 2, NULL, 3]", schema(), row()).value ==
          "{null -> 3, a -> 2}");
}

TEST_CASE("ARRAY_POSITION matches numbers across types and is NULL for a NULL value",
          "[fn_struct]") {
    // StructFunctionsTest.java:83-88 over [1, null, 2L, 1]: numbers compare by value
    // (StructFunctions.numberEquals), and a NULL value gives NULL.
    CHECK(eval_on_row("ARRAY_POSITION(ARRAY[1, NULL, id, 1], -1)", schema(), row()).value == "3");
    CHECK(eval_on_row("ARRAY_POSITION(ARRAY[CAST(2.50 AS DECIMAL(4, 2))], d)", schema(), row())
              .value == "1");
    CHECK(eval_on_row("ARRAY_POSITION(ARRAY[1.5, 2.0], 2)", schema(), row()).value == "2");
    auto r = eval_on_row("ARRAY_POSITION(ARRAY[1, NULL], CAST(NULL AS INT))", schema(), row());
    CHECK(r.value == "null");
    CHECK(r.type == "INT");
    // ARRAY_CONTAINS does find a NULL element (StructFunctions.arrayContains).
    CHECK(eval_on_row("ARRAY_CONTAINS(ARRAY[1, NULL], CAST(NULL AS INT))", schema(), row()).value ==
          "true");
}
