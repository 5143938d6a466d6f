#include <catch2/catch.hpp>

#include "pipeline/data/field_format.h"

using namespace cdcd;

// Nested values as Flink CDC's values sink prints them: BinaryRecordDataExtractor#extractRecord
// (flink-cdc-runtime/.../runtime/typeutils/BinaryRecordDataExtractor.java:62-131), pinned by
// BinaryRecordDataExtractorTest.java:170-193 and specs/nested.yaml:33 and :298. CAST(x AS STRING)
// sees Java's toString of the generic data objects instead (GenericMapData.java:126,
// GenericRecordData.java:208): format_field_java.

namespace {

Row map_int_string(std::initializer_list<std::pair<std::int64_t, const char*>> entries) {
    RowBuilder keys(entries.size()), values(entries.size());
    std::size_t i = 0;
    for (const auto& [k, v] : entries) {
        keys.set_long(i, k);
        if (v)
            values.set_string(i, v);
        else
            values.set_null(i);
        ++i;
    }
    Row k = std::move(keys).build(), vals = std::move(values).build();
    RowBuilder outer(1);
    outer.set_map(0, k.view(), vals.view());
    return std::move(outer).build();
}

const DataType kMapIntString = DataType::map(DataType::int_(), DataType::string());

DataType name_length_row() {
    return DataType::row({RowField{"name", std::make_shared<DataType>(DataType::string()), ""},
                          RowField{"length", std::make_shared<DataType>(DataType::int_()), ""}});
}

Row one_row(const char* name, std::int64_t length) {
    RowBuilder nested(2);
    nested.set_string(0, name).set_long(1, length);
    Row n = std::move(nested).build();
    RowBuilder outer(1);
    outer.set_row(0, n.view());
    return std::move(outer).build();
}

}  // namespace

TEST_CASE("a MAP prints as {key -> value, ...}", "[field_format]") {
    Row r = map_int_string({{1, "one"}, {2, "two"}, {3, nullptr}});
    CHECK(format_field(r.view(), 0, kMapIntString) == "{1 -> one, 2 -> two, 3 -> null}");
}

TEST_CASE("an empty MAP prints as {}", "[field_format]") {
    Row r = map_int_string({});
    CHECK(format_field(r.view(), 0, kMapIntString) == "{}");
}

TEST_CASE("a ROW prints its fields as {name: TYPE -> value, ...}", "[field_format]") {
    Row r = one_row("Alice", 5);
    CHECK(format_field(r.view(), 0, name_length_row()) ==
          "{name: STRING -> Alice, length: INT -> 5}");
}

TEST_CASE("a ROW field's type prints NOT NULL and nested types", "[field_format]") {
    // BinaryRecordDataExtractorTest: row_col: ROW<`f0` INT, `f1` DOUBLE> -> {f0: INT -> 3, ...};
    // specs/nested.yaml:33: {f0: BIGINT -> 1, f1: ARRAY<STRING> -> [From A to Z is Lie, Zorro]}.
    RowBuilder arr(2);
    arr.set_string(0, "a").set_null(1);
    Row a = std::move(arr).build();
    RowBuilder nested(2);
    nested.set_long(0, 7).set_row(1, a.view());
    Row n = std::move(nested).build();
    RowBuilder outer(1);
    outer.set_row(0, n.view());
    Row r = std::move(outer).build();
    DataType t = DataType::row(
        {RowField{"f0", std::make_shared<DataType>(DataType::bigint().not_null()), ""},
         RowField{"f1", std::make_shared<DataType>(DataType::array(DataType::string())), ""}});
    CHECK(format_field(r.view(), 0, t) ==
          "{f0: BIGINT NOT NULL -> 7, f1: ARRAY<STRING> -> [a, null]}");
}

TEST_CASE("CAST to STRING sees Java's toString of a MAP and a ROW", "[field_format]") {
    Row m = map_int_string({{1, "one"}, {2, "two"}});
    CHECK(format_field_java(m.view(), 0, kMapIntString) == "{1=one, 2=two}");
    Row r = one_row("Alice", 5);
    CHECK(format_field_java(r.view(), 0, name_length_row()) == "(Alice,5)");
}
