#include <catch2/catch.hpp>

#include "formats/csv/csv_key.h"
#include "formats/json/change_key.h"
#include "formats/json/change_serializers.h"

using namespace cdcd;

namespace {

Schema table1() {
    return SchemaBuilder()
        .column("col1", DataType::string())
        .column("col2", DataType::string())
        .primary_key({"col1"})
        .build();
}

Row row(std::string_view a, std::string_view b) {
    RowBuilder r(2);
    r.set_string(0, a).set_string(1, b);
    return std::move(r).build();
}

const TableId kTable = TableId::of("default_namespace", "default_schema", "table1");

}  // namespace

TEST_CASE("json key: TableId first, then primary-key columns (reference 6.3)") {
    auto key = json::KeyColumns::of(table1());
    std::string out;
    json::write_json_key(out, DataChangeEvent::insert(kTable, row("1", "1")), key, {});
    CHECK(out == R"({"TableId":"default_namespace.default_schema.table1","col1":"1"})");
    out.clear();
    json::write_json_key(out, DataChangeEvent::remove(kTable, row("2", "2")), key, {});
    CHECK(out == R"({"TableId":"default_namespace.default_schema.table1","col1":"2"})");
}

TEST_CASE("json key: the TableId member rendered once per table writes what each event would") {
    auto per_event = json::KeyColumns::of(table1());
    auto rendered_once = json::KeyColumns::of(table1(), kTable);
    for (const TableId& table : {kTable, TableId::of("other")}) {  // a key of another table too
        std::string a, b;
        auto e = DataChangeEvent::insert(table, row("1", "x"));
        json::write_json_key(a, e, per_event, {});
        json::write_json_key(b, e, rendered_once, {});
        CHECK(b == a);
    }
    std::string out;
    json::write_json_key(out, DataChangeEvent::insert(TableId::of("we\"ird"), row("1", "x")),
                         json::KeyColumns::of(table1(), TableId::of("we\"ird")), {});
    CHECK(out == R"({"TableId":"we\"ird","col1":"1"})");
}

TEST_CASE("json key without primary key is only the TableId") {
    Schema s = SchemaBuilder().column("a", DataType::int_()).build();
    std::string out;
    RowBuilder r(1);
    r.set_long(0, 5);
    json::write_json_key(out, DataChangeEvent::insert(TableId::of("t"), std::move(r).build()),
                         json::KeyColumns::of(s), {});
    CHECK(out == R"({"TableId":"t"})");
}

TEST_CASE("csv key: Jackson minimal quoting (long or unsafe strings quoted, numbers bare)") {
    Schema s = SchemaBuilder()
                   .column("id", DataType::int_())
                   .column("v", DataType::string())
                   .primary_key({"id"})
                   .build();
    RowBuilder r(2);
    r.set_long(0, 1).set_string(1, "x");
    std::string out;
    csv::write_csv_key(out, DataChangeEvent::insert(kTable, std::move(r).build()),
                       json::KeyColumns::of(s));
    CHECK(out == R"("default_namespace.default_schema.table1",1)");

    std::string col;
    csv::append_column(col, "short.id");
    CHECK(col == "short.id");
    col.clear();
    csv::append_column(col, "has space");
    CHECK(col == "\"has space\"");
    col.clear();
    csv::append_column(col, "a\"b,c");
    CHECK(col == "\"a\"\"b,c\"");
    col.clear();
    csv::append_column(col, "exactly-24-characters-xx");
    CHECK(col == "exactly-24-characters-xx");
    col.clear();
    csv::append_column(col, "twenty-five-characters-xx");
    CHECK(col == "\"twenty-five-characters-xx\"");
}

TEST_CASE("debezium-json and canal-json values (reference 6.4, 6.5)") {
    Schema s = table1();
    std::string out;
    json::write_debezium_json(out, DataChangeEvent::update(kTable, row("1", "1"), row("1", "x")), s,
                              {});
    CHECK(
        out ==
        R"({"before":{"col1":"1","col2":"1"},"after":{"col1":"1","col2":"x"},"op":"u","source":{"db":"default_schema","table":"table1"}})");
    out.clear();
    json::write_canal_json(out, DataChangeEvent::update(kTable, row("1", "1"), row("1", "x")), s,
                           {});
    CHECK(
        out ==
        R"({"old":[{"col1":"1","col2":"1"}],"data":[{"col1":"1","col2":"x"}],"type":"UPDATE","database":"default_schema","table":"table1","pkNames":["col1"]})");
}

TEST_CASE("JSON timestamps, dates and decimals as Flink writes them") {
    Schema s = SchemaBuilder()
                   .column("ts", DataType::timestamp(6))
                   .column("d", DataType::date())
                   .column("m", DataType::decimal(10, 3))
                   .column("tiny", DataType::decimal(12, 9))
                   .column("ltz", DataType::timestamp_ltz(3))
                   .build();
    RowBuilder r(5);
    r.set_timestamp(0, Timestamp{1672531200123, 456000});  // 2023-01-01 00:00:00.123456
    r.set_long(1, 19358);                                  // 2023-01-01
    Decimal m;
    REQUIRE(Decimal::parse("-7.12", 3, m));
    r.set_decimal(2, m);
    Decimal tiny;
    REQUIRE(Decimal::parse("0.000000123", 9, tiny));
    r.set_decimal(3, tiny);
    r.set_timestamp(4, Timestamp{1672531200000, 0});
    std::string out;
    json::Writer w(out);
    json::write_row_object(w, std::move(r).build().view(), s, {});
    CHECK(
        out ==
        R"({"ts":"2023-01-01 00:00:00.123456","d":"2023-01-01","m":-7.120,"tiny":1.23E-7,"ltz":"2023-01-01 00:00:00Z"})");
}

TEST_CASE("a table's names and keys rendered once write what each event would") {
    // The sinks keep a TableRendering per table instead of rendering its names per event.
    Schema s = table1();
    json::DebeziumJsonOptions o;
    for (const TableId& table :
         {kTable, TableId::of("t"), TableId::of("db", "orders"), TableId::of("we\"ird", "ta\\ble"),
          TableId::of("ns", "schéma", "名前")}) {
        const auto rendering = json::TableRendering::of(table, s);
        for (const DataChangeEvent& e :
             {DataChangeEvent::insert(table, row("1", "a")),
              DataChangeEvent::update(table, row("1", "a"), row("1", "b")),
              DataChangeEvent::remove(table, row("1", "b"))}) {
            std::string per_event, rendered_once;
            json::write_debezium_json(per_event, e, s, o, {}, nullptr);
            json::write_debezium_json(rendered_once, e, s, o, {}, &rendering);
            CHECK(rendered_once == per_event);
            per_event.clear();
            rendered_once.clear();
            json::write_canal_json(per_event, e, s, o.json, nullptr);
            json::write_canal_json(rendered_once, e, s, o.json, &rendering);
            CHECK(rendered_once == per_event);
        }
    }
    const auto weird = json::TableRendering::of(TableId::of("we\"ird", "x"), s);
    CHECK(weird.debezium_source == R"({"db":"we\"ird","table":"x"})");
    CHECK(weird.canal_table == R"("database":"we\"ird","table":"x","pkNames":["col1"])");
    CHECK(json::TableRendering::of(TableId::of("t"), s).debezium_source ==
          R"({"db":null,"table":"t"})");
}
