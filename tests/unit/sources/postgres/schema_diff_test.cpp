// A captured table's columns against the schema downstream was told: why they differ, and the
// schema change events that take one to the other.
#include "sources/postgres/schema_diff.h"

#include <catch2/catch.hpp>

#include "pipeline/event/event_format.h"

using namespace cdcd;
using namespace cdcd::postgres;

namespace {

const TableId kOrders = TableId::of("public", "orders");

Schema announced() {
    return SchemaBuilder()
        .column("id", DataType::int_().not_null())
        .column("pad", DataType::string())
        .column("n", DataType::decimal(38, 0))
        .primary_key({"id"})
        .build();
}

std::string printed(const Event& e) {
    return format_schema_change(*as_schema_change(e));
}

}  // namespace

TEST_CASE("postgres schema diff: the same columns, nullability aside, do not differ") {
    std::vector<Column> now = announced().columns();
    now[0].type = DataType::int_();  // NOT NULL is no change of its own
    CHECK_FALSE(columns_differ(announced(), now));
}

TEST_CASE("postgres schema diff: a column dropped from the middle and a type read otherwise") {
    const std::vector<Column> now = {announced().columns()[0],
                                     Column{"n", DataType::string(), "", std::nullopt}};
    CHECK(columns_differ(announced(), now) == "it has 2 columns, the known schema 3");
    EventBatch out;
    const Schema evolved = append_schema_changes(kOrders, announced(), now, out);
    REQUIRE(out.size() == 2);
    CHECK(printed(out[0]) == "DropColumnEvent{tableId=public.orders, droppedColumnNames=[pad]}");
    CHECK(printed(out[1]) ==
          "AlterColumnTypeEvent{tableId=public.orders, typeMapping={n=STRING}, "
          "oldTypeMapping={n=DECIMAL(38, 0)}, comments={}}");
    CHECK(evolved.column_names() == std::vector<std::string>{"id", "n"});
    CHECK(evolved.primary_keys() == std::vector<std::string>{"id"});
}

TEST_CASE("postgres schema diff: a type change alone, and columns reordered, which no event says") {
    std::vector<Column> now = announced().columns();
    now[2].type = DataType::string();
    CHECK(columns_differ(announced(), now) == "column `n` is STRING, was DECIMAL(38, 0)");
    std::swap(now[1], now[2]);
    CHECK(columns_differ(announced(), now) == "column 2 is `n`, was `pad`");
    EventBatch out;
    CHECK_THROWS_WITH(append_schema_changes(kOrders, announced(), now, out),
                      Catch::Contains("changed in a way no schema change event describes"));
}
