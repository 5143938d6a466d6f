#include "pipeline/types/type_merging.h"

#include <catch2/catch.hpp>

#include "pipeline/event/event_format.h"

using namespace cdcd;

namespace {
DataType T(const char* text) {
    auto t = DataType::parse(text);
    REQUIRE(t.has_value());
    return *t;
}
}  // namespace

TEST_CASE("type merging tree lists Flink's widening order", "[type_merging]") {
    auto tree = [](TypeRoot r) {
        std::string s;
        for (const auto& t : type_merging_tree(r)) s += (s.empty() ? "" : ", ") + t.to_string();
        return s;
    };
    CHECK(tree(TypeRoot::TinyInt) ==
          "TINYINT, SMALLINT, INT, BIGINT, DECIMAL(38, 0), FLOAT, DOUBLE, STRING");
    CHECK(tree(TypeRoot::SmallInt) ==
          "SMALLINT, INT, BIGINT, DECIMAL(38, 0), FLOAT, DOUBLE, STRING");
    CHECK(tree(TypeRoot::Int) == "INT, BIGINT, DECIMAL(38, 0), DOUBLE, STRING");
    CHECK(tree(TypeRoot::BigInt) == "BIGINT, DECIMAL(38, 0), DOUBLE, STRING");
    CHECK(tree(TypeRoot::Float) == "FLOAT, DOUBLE, STRING");
    CHECK(tree(TypeRoot::Double) == "DOUBLE, STRING");
    CHECK(tree(TypeRoot::Decimal) == "STRING");
    CHECK(tree(TypeRoot::Varchar) == "STRING");
    CHECK(tree(TypeRoot::Boolean) == "STRING");
    CHECK(tree(TypeRoot::Time) == "STRING");
    CHECK(tree(TypeRoot::Date) ==
          "DATE, TIMESTAMP(9), TIMESTAMP_LTZ(9), TIMESTAMP(9) WITH TIME ZONE, STRING");
    CHECK(tree(TypeRoot::Timestamp) ==
          "TIMESTAMP(9), TIMESTAMP_LTZ(9), TIMESTAMP(9) WITH TIME ZONE, STRING");
    CHECK(tree(TypeRoot::TimestampLtz) == "TIMESTAMP_LTZ(9), TIMESTAMP(9) WITH TIME ZONE, STRING");
    CHECK(tree(TypeRoot::TimestampTz) == "TIMESTAMP(9) WITH TIME ZONE, STRING");
    CHECK(tree(TypeRoot::Array) == "STRING");
}

TEST_CASE("can_widen follows the tree exactly, nullability included", "[type_merging]") {
    struct Case {
        const char *from, *to;
        bool ok;
    };
    const Case cases[] = {
        {"INT", "INT", true},
        {"INT", "BIGINT", true},
        {"INT", "DOUBLE", true},
        {"INT", "FLOAT", false},
        {"INT", "DECIMAL(38, 0)", true},
        {"INT", "DECIMAL(10, 0)", false},
        {"BIGINT", "INT", false},
        {"TINYINT", "FLOAT", true},
        {"FLOAT", "DOUBLE", true},
        {"DOUBLE", "FLOAT", false},
        {"VARCHAR(10)", "STRING", true},
        {"VARCHAR(10)", "VARCHAR(20)", false},
        {"DATE", "TIMESTAMP(9)", true},
        {"DATE", "TIMESTAMP(6)", false},
        {"TIMESTAMP(3)", "TIMESTAMP_LTZ(9)", true},
        {"TIMESTAMP_LTZ(3)", "TIMESTAMP(9)", false},
        {"INT NOT NULL", "BIGINT", true},
        {"INT", "BIGINT NOT NULL", false},
        {"BOOLEAN", "STRING", true},
        {"DECIMAL(10, 2)", "DECIMAL(12, 2)", false},
    };
    for (const auto& c : cases) {
        INFO(c.from << " -> " << c.to);
        CHECK(can_widen(T(c.from), T(c.to)) == c.ok);
    }
}

TEST_CASE("least common type: every rule of getLeastCommonType", "[type_merging]") {
    struct Case {
        const char *a, *b, *expected;
    };
    const Case cases[] = {
        // equal, nullability
        {"INT", "INT", "INT"},
        {"INT NOT NULL", "INT NOT NULL", "INT NOT NULL"},
        {"INT NOT NULL", "INT", "INT"},
        {"INT NOT NULL", "BIGINT NOT NULL", "BIGINT NOT NULL"},
        {"INT NOT NULL", "BIGINT", "BIGINT"},
        // integer / floating trees
        {"INT", "BIGINT", "BIGINT"},
        {"BIGINT", "INT", "BIGINT"},
        {"TINYINT", "SMALLINT", "SMALLINT"},
        {"INT", "FLOAT", "DOUBLE"},
        {"SMALLINT", "FLOAT", "FLOAT"},
        {"FLOAT", "DOUBLE", "DOUBLE"},
        {"BIGINT", "DOUBLE", "DOUBLE"},
        // strings and others
        {"VARCHAR(10)", "VARCHAR(20)", "STRING"},
        {"CHAR(3)", "VARCHAR(3)", "STRING"},
        {"BOOLEAN", "INT", "STRING"},
        {"INT", "BOOLEAN", "STRING"},
        {"BINARY(4)", "VARBINARY(8)", "STRING"},
        {"TIME(0)", "TIME(3)", "STRING"},
        {"DATE", "INT", "STRING"},
        {"DATE", "TIMESTAMP(3)", "TIMESTAMP(9)"},
        {"ARRAY<INT>", "ARRAY<BIGINT>", "STRING"},
        // timestamps: level = max(TIMESTAMP, LTZ, TZ), precision = max
        {"TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(6)"},
        {"TIMESTAMP(6)", "TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(6)"},
        {"TIMESTAMP_LTZ(9)", "TIMESTAMP(0)", "TIMESTAMP_LTZ(9)"},
        {"TIMESTAMP(3) WITH TIME ZONE", "TIMESTAMP_LTZ(6)", "TIMESTAMP(6) WITH TIME ZONE"},
        // decimals
        {"DECIMAL(10, 2)", "DECIMAL(12, 4)", "DECIMAL(12, 4)"},
        {"DECIMAL(10, 5)", "DECIMAL(20, 0)", "DECIMAL(25, 5)"},
        {"DECIMAL(38, 0)", "DECIMAL(38, 10)", "DECIMAL(38, 0)"},
        {"DECIMAL(30, 0)", "DECIMAL(20, 15)", "DECIMAL(38, 8)"},
        {"DECIMAL(5, 2)", "INT", "DECIMAL(12, 2)"},
        {"TINYINT", "DECIMAL(2, 1)", "DECIMAL(4, 1)"},
        {"DECIMAL(20, 0)", "SMALLINT", "DECIMAL(20, 0)"},
        {"DECIMAL(30, 20)", "BIGINT", "STRING"},
        {"DECIMAL(10, 2)", "DOUBLE", "STRING"},
        {"FLOAT", "DECIMAL(10, 2)", "STRING"},
        {"DECIMAL(10, 2) NOT NULL", "INT NOT NULL", "DECIMAL(12, 2) NOT NULL"},
    };
    for (const auto& c : cases) {
        INFO(c.a << " + " << c.b);
        CHECK(least_common_type(T(c.a), T(c.b)).to_string() == c.expected);
    }
}

TEST_CASE("least common schema keeps order, widens, appends", "[type_merging]") {
    Schema current = SchemaBuilder()
                         .column("id", DataType::int_().not_null())
                         .column("name", DataType::varchar(10))
                         .column("only_current", DataType::boolean())
                         .primary_key({"id"})
                         .build();
    Schema upcoming = SchemaBuilder()
                          .column("extra", DataType::double_())
                          .column("name", DataType::varchar(20))
                          .column("id", DataType::bigint().not_null())
                          .build();
    Schema merged = least_common_schema(current, upcoming);
    CHECK(merged.to_string() ==
          "columns={`id` BIGINT NOT NULL,`name` STRING,`only_current` BOOLEAN,`extra` DOUBLE}, "
          "primaryKeys=id, options=()");
    CHECK(least_common_schema(nullptr, upcoming) == upcoming);
    // The tree holds nullable types: INT NOT NULL does not "fit" BIGINT NOT NULL, as in Flink,
    // yet merging again changes nothing.
    CHECK_FALSE(is_schema_compatible(&merged, current));
    CHECK(least_common_schema(merged, current) == merged);
    Schema nullable = SchemaBuilder().column("id", DataType::int_()).build();
    Schema wide =
        SchemaBuilder().column("id", DataType::bigint()).column("x", DataType::int_()).build();
    CHECK(is_schema_compatible(&wide, nullable));
    CHECK(least_common_schema(wide, nullable) == wide);
    CHECK_FALSE(is_schema_compatible(nullptr, current));
}

TEST_CASE("schema difference: add with positions, alter with old types, drop", "[type_merging]") {
    TableId t = TableId::of("db", "sink");
    Schema before = SchemaBuilder()
                        .column("id", DataType::int_())
                        .column("name", DataType::varchar(10))
                        .column("gone", DataType::boolean())
                        .column("gone2", DataType::boolean())
                        .build();
    Schema after = SchemaBuilder()
                       .column("first", DataType::date())
                       .column("id", DataType::bigint())
                       .column("name", DataType::string())
                       .column("mid", DataType::double_())
                       .build();
    std::vector<std::string> printed;
    for (const auto& e : schema_difference(t, before, after))
        printed.push_back(format_schema_change(e));
    REQUIRE(printed.size() == 3);
    CHECK(printed[0] ==
          "AddColumnEvent{tableId=db.sink, addedColumns=[ColumnWithPosition{column=`first` DATE, "
          "position=FIRST, existedColumnName=null}, ColumnWithPosition{column=`mid` DOUBLE, "
          "position=AFTER, existedColumnName=name}]}");
    CHECK(printed[1] ==
          "AlterColumnTypeEvent{tableId=db.sink, typeMapping={name=STRING, id=BIGINT}, "
          "oldTypeMapping={name=VARCHAR(10), id=INT}, comments={}}");
    CHECK(printed[2] == "DropColumnEvent{tableId=db.sink, droppedColumnNames=[gone2, gone]}");
    auto create = schema_difference(t, nullptr, after);
    REQUIRE(create.size() == 1);
    CHECK(std::holds_alternative<CreateTableEvent>(create[0]));
    CHECK(schema_difference(t, after, after).empty());
}
