// pgoutput messages of captured tables into events: schemas on first sight, before and after
// images per replica identity, unchanged TOAST values, truncates, filtered tables, bad values
// and changed tables.
#include "sources/postgres/change_decoder.h"

#include <catch2/catch.hpp>

#include "pipeline/event/event_format.h"
#include "sources/postgres/type_mapping.h"
#include "tests/unit/sources/postgres/pgoutput_bytes.h"

using namespace cdcd;
using namespace cdcd::postgres;
using cdcd::postgres::testing::Bytes;

namespace {

constexpr Oid kOrders = 16400, kOther = 16500;

Schema orders_schema() {
    return SchemaBuilder()
        .column("id", DataType::int_().not_null())
        .column("note", DataType::string())
        .column("price", DataType::decimal(10, 2))
        .primary_key({"id"})
        .build();
}

std::string orders_relation(char identity = 'd') {
    return testing::relation(kOrders, "public", "orders",
                             {{"id", oid::kInt4, -1, true},
                              {"note", oid::kText, -1, false},
                              {"price", oid::kNumeric, ((10 << 16) | 2) + 4, false}},
                             identity);
}

struct Decoded {
    EventBatch events;
    std::vector<BadRecord> bad;
    std::size_t changes = 0;
};

struct Fixture {
    int lookups = 0;
    Schema catalog = orders_schema();  // what the catalog answers
    ChangeDecoder decoder{TableFilter("shop", "shop.public.orders", std::nullopt, false),
                          [this](const RelationMessage& m) {
                              ++lookups;
                              CHECK(m.relation_oid == kOrders);
                              return catalog;
                          }};

    Decoded decode(std::string_view bytes) {
        Decoded d;
        d.changes = decoder.decode(decode_pgoutput(bytes), d.events, d.bad);
        return d;
    }
    std::string text(std::string_view bytes) {
        Decoded d = decode(bytes);
        std::string out;
        for (const Event& e : d.events) {
            if (const auto* change = std::get_if<DataChangeEvent>(&e)) {
                out += format_data_change(*change, orders_schema()) + "\n";
            } else {
                out += format_schema_change(*as_schema_change(e)) + "\n";
            }
        }
        return out;
    }
};

}  // namespace

TEST_CASE("change decoder: a table's first Relation announces it, once") {
    Fixture f;
    Decoded first = f.decode(orders_relation());
    REQUIRE(first.events.size() == 1);
    const auto& create = std::get<CreateTableEvent>(first.events[0]);
    CHECK(create.table == TableId::of("public", "orders"));
    CHECK(create.schema == orders_schema());
    CHECK(first.changes == 0);
    CHECK(f.decode(orders_relation()).events.empty());
    CHECK(f.lookups == 1);
}

TEST_CASE("change decoder: a table known from the snapshot is not announced again") {
    Fixture f;
    f.decoder.add_known(TableId::of("public", "orders"), orders_schema());
    CHECK(f.decode(orders_relation()).events.empty());
    CHECK(f.lookups == 0);
}

TEST_CASE("change decoder: insert, update and delete under REPLICA IDENTITY DEFAULT") {
    Fixture f;
    f.decode(orders_relation());
    CHECK(f.text(Bytes().tag('I').u32(kOrders).tag('N').u16(3).text("1").text("a").text("9.5")) ==
          "DataChangeEvent{tableId=public.orders, before=[], after=[1, a, 9.50], op=INSERT, "
          "meta=()}\n");
    // No old tuple: Debezium's update has no before image.
    CHECK(f.text(Bytes().tag('U').u32(kOrders).tag('N').u16(3).text("1").null().text("1")) ==
          "DataChangeEvent{tableId=public.orders, before=[], after=[1, null, 1.00], op=UPDATE, "
          "meta=()}\n");
    // The key changed: as Debezium's (and so Flink CDC's), a delete of the old key (the key
    // only, the others NULL) and an insert of the new row, from the one message.
    Decoded moved = f.decode(Bytes()
                                 .tag('U')
                                 .u32(kOrders)
                                 .tag('K')
                                 .u16(3)
                                 .text("1")
                                 .null()
                                 .null()
                                 .tag('N')
                                 .u16(3)
                                 .text("2")
                                 .text("b")
                                 .null());
    CHECK(moved.changes == 2);
    REQUIRE(moved.events.size() == 2);
    CHECK(format_data_change(std::get<DataChangeEvent>(moved.events[0]), orders_schema()) ==
          "DataChangeEvent{tableId=public.orders, before=[1, null, null], after=[], op=DELETE, "
          "meta=()}");
    CHECK(format_data_change(std::get<DataChangeEvent>(moved.events[1]), orders_schema()) ==
          "DataChangeEvent{tableId=public.orders, before=[], after=[2, b, null], op=INSERT, "
          "meta=()}");
    Decoded del = f.decode(Bytes().tag('D').u32(kOrders).tag('K').u16(3).text("2").null().null());
    CHECK(del.changes == 1);
    CHECK(format_data_change(std::get<DataChangeEvent>(del.events[0]), orders_schema()) ==
          "DataChangeEvent{tableId=public.orders, before=[2, null, null], after=[], op=DELETE, "
          "meta=()}");
}

TEST_CASE("change decoder: REPLICA IDENTITY FULL gives whole before images and TOAST values") {
    Fixture f;
    f.decode(orders_relation('f'));
    // The unchanged TOASTed note comes from the old row.
    CHECK(f.text(Bytes()
                     .tag('U')
                     .u32(kOrders)
                     .tag('O')
                     .u16(3)
                     .text("1")
                     .text("long")
                     .text("2")
                     .tag('N')
                     .u16(3)
                     .text("1")
                     .toast()
                     .text("3")) ==
          "DataChangeEvent{tableId=public.orders, before=[1, long, 2.00], after=[1, long, 3.00], "
          "op=UPDATE, meta=()}\n");
    // The key changed: the whole old row deleted, the new one inserted (its unchanged TOASTed
    // note from the old row).
    CHECK(f.text(Bytes()
                     .tag('U')
                     .u32(kOrders)
                     .tag('O')
                     .u16(3)
                     .text("1")
                     .text("long")
                     .text("3")
                     .tag('N')
                     .u16(3)
                     .text("5")
                     .toast()
                     .text("3")) ==
          "DataChangeEvent{tableId=public.orders, before=[1, long, 3.00], after=[], op=DELETE, "
          "meta=()}\n"
          "DataChangeEvent{tableId=public.orders, before=[], after=[5, long, 3.00], op=INSERT, "
          "meta=()}\n");
}

TEST_CASE("change decoder: an unchanged TOAST value without an old row is Debezium's placeholder") {
    Fixture f;
    f.decode(orders_relation());
    CHECK(f.text(Bytes().tag('U').u32(kOrders).tag('N').u16(3).text("1").toast().text("3")) ==
          "DataChangeEvent{tableId=public.orders, before=[], after=[1, "
          "__debezium_unavailable_value, 3.00], op=UPDATE, meta=()}\n");
    // A DECIMAL has no placeholder: a bad record.
    Decoded d = f.decode(Bytes().tag('U').u32(kOrders).tag('N').u16(3).text("1").null().toast());
    CHECK(d.events.empty());
    REQUIRE(d.bad.size() == 1);
    CHECK(d.bad[0].error.find("`price`") != std::string::npos);
}

TEST_CASE("change decoder: truncate of captured tables") {
    Fixture f;
    f.decode(orders_relation());
    f.decode(testing::relation(kOther, "public", "audit", {{"id", oid::kInt4, -1, true}}));
    Decoded d = f.decode(Bytes().tag('T').u32(2).u8(0).u32(kOrders).u32(kOther));
    REQUIRE(d.events.size() == 1);
    CHECK(std::get<TruncateTableEvent>(d.events[0]).table == TableId::of("public", "orders"));
}

TEST_CASE("change decoder: tables the selectors leave out are dropped") {
    Fixture f;
    CHECK(f.decode(testing::relation(kOther, "public", "audit", {{"id", oid::kInt4, -1, true}}))
              .events.empty());
    Decoded d = f.decode(Bytes().tag('I').u32(kOther).tag('N').u16(1).text("1"));
    CHECK(d.events.empty());
    CHECK(d.changes == 0);
    CHECK(f.lookups == 0);
}

TEST_CASE("change decoder: a value that does not parse is a bad record naming the column") {
    Fixture f;
    f.decode(orders_relation());
    Decoded d = f.decode(Bytes().tag('I').u32(kOrders).tag('N').u16(3).text("x").null().null());
    CHECK(d.events.empty());
    CHECK(d.changes == 1);
    REQUIRE(d.bad.size() == 1);
    CHECK(d.bad[0].reason == "parse-error");
    CHECK(d.bad[0].position == "table public.orders insert");
    CHECK(d.bad[0].error.find("column `id`") != std::string::npos);
}

TEST_CASE("change decoder: a known table whose columns changed stops with the reason") {
    Fixture f;
    f.decoder.add_known(TableId::of("public", "orders"), orders_schema());
    CHECK_THROWS_WITH(f.decode(testing::relation(
                          kOrders, "public", "orders",
                          {{"id", oid::kInt4, -1, true}, {"note", oid::kText, -1, false}})),
                      Catch::Contains("the columns of table public.orders changed") &&
                          Catch::Contains("2 columns"));
    CHECK_THROWS_WITH(f.decode(testing::relation(kOrders, "public", "orders",
                                                 {{"id", oid::kInt8, -1, true},
                                                  {"note", oid::kText, -1, false},
                                                  {"price", oid::kNumeric, -1, false}})),
                      Catch::Contains("column `id` is BIGINT, was INT NOT NULL"));
}

TEST_CASE("change decoder: a change before its Relation is refused") {
    Fixture f;
    CHECK_THROWS_WITH(f.decode(Bytes().tag('I').u32(kOrders).tag('N').u16(1).text("1")),
                      Catch::Contains("before its Relation message"));
}

TEST_CASE("change decoder: table ids with and without the database, exclusions") {
    TableFilter with_db("shop", "shop.public.\\.*", std::string("shop.public.secret_\\.*"), true);
    CHECK(with_db.table_id("public", "orders") == TableId::of("shop", "public", "orders"));
    CHECK(with_db.captures("public", "orders"));
    CHECK_FALSE(with_db.captures("public", "secret_keys"));
    CHECK_FALSE(with_db.captures("other", "orders"));
    TableFilter plain("shop", "shop.public.orders", std::nullopt, false);
    CHECK(plain.table_id("public", "orders") == TableId::of("public", "orders"));
    CHECK_FALSE(plain.captures("public", "orders2"));
}

namespace {

/// A decoder with schema-change.enabled, `orders` known; decodes a Relation of `columns` with
/// the catalog answering `catalog`, returning the schema change events as Flink CDC prints them.
std::string evolved(std::initializer_list<testing::RelationColumnSpec> columns, Schema catalog) {
    int lookups = 0;
    ChangeDecoder decoder(
        TableFilter("shop", "shop.public.orders", std::nullopt, false),
        [&](const RelationMessage&) {
            ++lookups;
            return catalog;
        },
        true);
    decoder.add_known(TableId::of("public", "orders"), orders_schema());
    EventBatch events;
    std::vector<BadRecord> bad;
    decoder.decode(decode_pgoutput(testing::relation(kOrders, "public", "orders", columns)), events,
                   bad);
    std::string out;
    for (const Event& e : events) out += format_schema_change(*as_schema_change(e)) + "\n";
    return out;
}

constexpr std::int32_t kPrice = ((10 << 16) | 2) + 4;

}  // namespace

TEST_CASE("change decoder: schema changes, an added column at the end and in the middle") {
    Schema catalog = SchemaBuilder()
                         .column("id", DataType::int_().not_null())
                         .column("note", DataType::string())
                         .column("price", DataType::decimal(10, 2))
                         .column("qty", DataType::bigint().not_null())
                         .primary_key({"id"})
                         .build();
    CHECK(evolved({{"id", oid::kInt4, -1, true},
                   {"note", oid::kText, -1, false},
                   {"price", oid::kNumeric, kPrice, false},
                   {"qty", oid::kInt8, -1, false}},
                  catalog) ==
          "AddColumnEvent{tableId=public.orders, addedColumns=[ColumnWithPosition{column=`qty` "
          "BIGINT NOT NULL, position=LAST, existedColumnName=null}]}\n");
    Schema middle = SchemaBuilder()
                        .column("id", DataType::int_().not_null())
                        .column("tag", DataType::varchar(5))
                        .column("note", DataType::string())
                        .column("price", DataType::decimal(10, 2))
                        .build();
    CHECK(evolved({{"id", oid::kInt4, -1, true},
                   {"tag", oid::kVarchar, 9, false},
                   {"note", oid::kText, -1, false},
                   {"price", oid::kNumeric, kPrice, false}},
                  middle) ==
          "AddColumnEvent{tableId=public.orders, addedColumns=[ColumnWithPosition{column=`tag` "
          "VARCHAR(5), position=AFTER, existedColumnName=id}]}\n");
}

TEST_CASE("change decoder: schema changes, a dropped, a renamed and a retyped column") {
    CHECK(evolved({{"id", oid::kInt4, -1, true}, {"price", oid::kNumeric, kPrice, false}},
                  SchemaBuilder()
                      .column("id", DataType::int_().not_null())
                      .column("price", DataType::decimal(10, 2))
                      .build()) ==
          "DropColumnEvent{tableId=public.orders, droppedColumnNames=[note]}\n");
    CHECK(evolved({{"id", oid::kInt4, -1, true},
                   {"remark", oid::kText, -1, false},
                   {"price", oid::kNumeric, kPrice, false}},
                  SchemaBuilder()
                      .column("id", DataType::int_().not_null())
                      .column("remark", DataType::string())
                      .column("price", DataType::decimal(10, 2))
                      .build()) ==
          "RenameColumnEvent{tableId=public.orders, nameMapping={note=remark}}\n");
    CHECK(evolved({{"id", oid::kInt8, -1, true},
                   {"note", oid::kText, -1, false},
                   {"price", oid::kNumeric, kPrice, false}},
                  SchemaBuilder()
                      .column("id", DataType::bigint().not_null())
                      .column("note", DataType::string())
                      .column("price", DataType::decimal(10, 2))
                      .build()) ==
          "AlterColumnTypeEvent{tableId=public.orders, typeMapping={id=BIGINT NOT NULL}, "
          "oldTypeMapping={id=INT NOT NULL}, comments={}}\n");
}

TEST_CASE("change decoder: schema changes, the rows after a change use the new schema") {
    ChangeDecoder decoder(
        TableFilter("shop", "shop.public.orders", std::nullopt, false),
        [](const RelationMessage&) {
            return SchemaBuilder()
                .column("id", DataType::int_().not_null())
                .column("price", DataType::decimal(10, 2))
                .build();
        },
        true);
    decoder.add_known(TableId::of("public", "orders"), orders_schema());
    EventBatch events;
    std::vector<BadRecord> bad;
    decoder.decode(decode_pgoutput(testing::relation(
                       kOrders, "public", "orders",
                       {{"id", oid::kInt4, -1, true}, {"price", oid::kNumeric, kPrice, false}})),
                   events, bad);
    decoder.decode(
        decode_pgoutput(Bytes().tag('I').u32(kOrders).tag('N').u16(2).text("4").text("1.5")),
        events, bad);
    REQUIRE(events.size() == 2);
    CHECK(bad.empty());
    const auto& insert = std::get<DataChangeEvent>(events[1]);
    CHECK(format_data_change(insert, SchemaBuilder()
                                         .column("id", DataType::int_().not_null())
                                         .column("price", DataType::decimal(10, 2))
                                         .build()) ==
          "DataChangeEvent{tableId=public.orders, before=[], after=[4, 1.50], op=INSERT, "
          "meta=()}");
}

TEST_CASE("change decoder: schema changes no event describes are refused") {
    // Two columns swapped places.
    CHECK_THROWS_WITH(evolved({{"id", oid::kInt4, -1, true},
                               {"price", oid::kNumeric, kPrice, false},
                               {"note", oid::kText, -1, false}},
                              orders_schema()),
                      Catch::Contains("no schema change event describes"));
}

TEST_CASE("change decoder: metadata.list puts op_ts and the names into each change's meta") {
    ChangeDecoder decoder(TableFilter("shop", "shop.public.orders", std::nullopt, false),
                          [](const RelationMessage&) { return orders_schema(); });
    decoder.set_metadata({MetadataField::OpTs, MetadataField::TableName,
                          MetadataField::DatabaseName, MetadataField::SchemaName});
    decoder.set_commit_time(1'700'000'000'123);
    EventBatch events;
    std::vector<BadRecord> bad;
    decoder.decode(decode_pgoutput(orders_relation()), events, bad);
    decoder.decode(
        decode_pgoutput(Bytes().tag('I').u32(kOrders).tag('N').u16(3).text("1").null().null()),
        events, bad);
    REQUIRE(events.size() == 2);
    CHECK(std::get<DataChangeEvent>(events[1]).meta == EventMeta{{"op_ts", "1700000000123"},
                                                                 {"table_name", "orders"},
                                                                 {"database_name", "shop"},
                                                                 {"schema_name", "public"}});
}

TEST_CASE("change decoder: bit strings, points and hstore (named by its Type message) streamed") {
    constexpr Oid kHstore = 16800, kShapes = 16401;
    const Schema shapes = SchemaBuilder()
                              .column("id", DataType::int_().not_null())
                              .column("flags", DataType::binary(12))
                              .column("at", DataType::string())
                              .column("attrs", DataType::string())
                              .primary_key({"id"})
                              .build();
    ChangeDecoder decoder(TableFilter("shop", "shop.public.shapes", std::nullopt, false),
                          [&](const RelationMessage&) { return shapes; });
    EventBatch events;
    std::vector<BadRecord> bad;
    // pgoutput names a type created after initdb in a Type message before the Relation.
    decoder.decode(decode_pgoutput(Bytes().tag('Y').u32(kHstore).str("public").str("hstore")),
                   events, bad);
    decoder.decode(decode_pgoutput(testing::relation(kShapes, "public", "shapes",
                                                     {{"id", oid::kInt4, -1, true},
                                                      {"flags", oid::kBit, 12, false},
                                                      {"at", oid::kPoint, -1, false},
                                                      {"attrs", kHstore, -1, false}})),
                   events, bad);
    REQUIRE(events.size() == 1);
    const auto insert = [&](std::string_view flags, std::string_view at, std::string_view attrs) {
        EventBatch out;
        decoder.decode(
            decode_pgoutput(
                Bytes().tag('I').u32(kShapes).tag('N').u16(4).text("1").text(flags).text(at).text(
                    attrs)),
            out, bad);
        return out.empty() ? std::string()
                           : format_data_change(std::get<DataChangeEvent>(out[0]), shapes);
    };
    CHECK(
        insert("000000001010", "(3.456,7.89)", R"("size"=>"L", "color"=>"blue")") ==
        R"(DataChangeEvent{tableId=public.shapes, before=[], after=[1, Cg==, )"
        R"({"coordinates":"[[3.456,7.89]]","type":"Point","srid":0}, {"size":"L","color":"blue"}])"
        R"(, op=INSERT, meta=()})");
    CHECK(bad.empty());
    // Malformed text of each: a bad record naming the column, the change dropped.
    CHECK(insert("00000000101x", "(1,2)", "").empty());
    CHECK(insert("000000001010", "(1;2)", "").empty());
    CHECK(insert("000000001010", "(1,2)", R"("a"=>)").empty());
    REQUIRE(bad.size() == 3);
    CHECK(bad[0].error.rfind("column `flags`: '00000000101x' is not a bit string", 0) == 0);
    CHECK(bad[1].error.rfind("column `at`: '(1;2)' is not a point", 0) == 0);
    CHECK(bad[2].error.rfind("column `attrs`: '\"a\"=>' is not an hstore", 0) == 0);
}

TEST_CASE("change decoder: a known column now of an unnamed type of its own stops the source") {
    const Schema kv = SchemaBuilder()
                          .column("id", DataType::int_().not_null())
                          .column("attrs", DataType::int_())
                          .primary_key({"id"})
                          .build();
    ChangeDecoder decoder(TableFilter("shop", "shop.public.kv", std::nullopt, true),
                          [&](const RelationMessage&) { return kv; });
    EventBatch events;
    std::vector<BadRecord> bad;
    decoder.add_known(TableId::of("shop", "public", "kv"), kv);
    // A known INT column whose type is now an unnamed type of its own: the table changed.
    CHECK_THROWS_WITH(
        decoder.decode(decode_pgoutput(testing::relation(
                           16402, "public", "kv",
                           {{"id", oid::kInt4, -1, true}, {"attrs", 16800, -1, false}})),
                       events, bad),
        Catch::Contains("column `attrs` changed its type, to one cdcd refuses: type oid 16800 is "
                        "not supported: Flink CDC maps no type of an extension or a user but "
                        "enums"));
}

TEST_CASE("change decoder: a column of a domain is its base type, resolved through the catalog") {
    constexpr Oid kCode = 17001, kPrice = 17002, kHstore = 17003, kItems = 16403;
    const Schema items = SchemaBuilder()
                             .column("id", DataType::int_().not_null())
                             .column("code", DataType::varchar(20).not_null())
                             .column("price", DataType::decimal(10, 2))
                             .column("attrs", DataType::string())
                             .primary_key({"id"})
                             .build();
    // What catalog.h resolve_types answers: the domains as their base types with the typmod
    // they declared; hstore (no domain) as itself.
    std::vector<Oid> asked;
    auto resolver = [&](Oid type) -> PgColumnType {
        asked.push_back(type);
        switch (type) {
            case kCode:
                return {oid::kVarchar, 20 + 4, false, "character varying(20)", "code_t"};
            case kPrice:
                return {oid::kNumeric, ((10 << 16) | 2) + 4, false, "numeric(10,2)", "price_t"};
            default:
                return {type, -1, false, "public.hstore"};
        }
    };
    // pgoutput's Type message of a domain names its base type; its Relation column, the
    // domain's oid with typmod -1.
    const std::string types[] = {Bytes().tag('Y').u32(kCode).str("").str("varchar").str(),
                                 Bytes().tag('Y').u32(kPrice).str("").str("numeric").str(),
                                 Bytes().tag('Y').u32(kHstore).str("public").str("hstore").str()};
    const std::string relation = testing::relation(kItems, "public", "items",
                                                   {{"id", oid::kInt4, -1, true},
                                                    {"code", kCode, -1, false},
                                                    {"price", kPrice, -1, false},
                                                    {"attrs", kHstore, -1, false}});
    const std::string row = Bytes()
                                .tag('I')
                                .u32(kItems)
                                .tag('N')
                                .u16(4)
                                .text("1")
                                .text("AB-1")
                                .text("12.5")
                                .text(R"("k"=>"v")")
                                .str();
    const std::string expected_row =
        R"(DataChangeEvent{tableId=public.items, before=[], after=[1, AB-1, 12.50, {"k":"v"}], )"
        R"(op=INSERT, meta=()})";
    auto run = [&](ChangeDecoder& decoder, const std::string& bytes) {
        EventBatch events;
        std::vector<BadRecord> bad;
        decoder.decode(decode_pgoutput(bytes), events, bad);
        CHECK(bad.empty());
        return events;
    };

    SECTION("first seen while streaming: the catalog's schema matches the resolved Relation") {
        ChangeDecoder decoder(TableFilter("shop", "shop.public.items", std::nullopt, false),
                              [&](const RelationMessage&) { return items; });
        decoder.set_type_resolver(resolver);
        for (const std::string& t : types) run(decoder, t);
        REQUIRE(run(decoder, relation).size() == 1);
        const EventBatch inserted = run(decoder, row);
        REQUIRE(inserted.size() == 1);
        CHECK(format_data_change(std::get<DataChangeEvent>(inserted[0]), items) == expected_row);
        // Once per oid: the Relation sent again asks nothing; a new Type message (the type
        // may have been dropped and its oid reused) asks again.
        CHECK(asked == std::vector<Oid>{kCode, kPrice, kHstore});
        CHECK(run(decoder, relation).empty());
        CHECK(asked.size() == 3);
        run(decoder, types[0]);
        CHECK(run(decoder, relation).empty());
        CHECK(asked == std::vector<Oid>{kCode, kPrice, kHstore, kCode});
    }

    SECTION("after a restart: the checkpoint's schema equals the Relation's resolved types") {
        ChangeDecoder decoder(TableFilter("shop", "shop.public.items", std::nullopt, false),
                              [&](const RelationMessage&) -> Schema {
                                  FAIL("a known table needs no catalog lookup");
                                  return items;
                              });
        decoder.set_type_resolver(resolver);
        decoder.add_known(TableId::of("public", "items"), items);
        for (const std::string& t : types) run(decoder, t);
        CHECK(run(decoder, relation).empty());
        const EventBatch inserted = run(decoder, row);
        REQUIRE(inserted.size() == 1);
        CHECK(format_data_change(std::get<DataChangeEvent>(inserted[0]), items) == expected_row);
    }

    SECTION("without the catalog a domain is known only by its base type's name, and refused") {
        ChangeDecoder decoder(TableFilter("shop", "shop.public.items", std::nullopt, false),
                              [&](const RelationMessage&) { return items; });
        decoder.add_known(TableId::of("public", "items"), items);
        for (const std::string& t : types) run(decoder, t);
        EventBatch events;
        std::vector<BadRecord> bad;
        CHECK_THROWS_WITH(decoder.decode(decode_pgoutput(relation), events, bad),
                          Catch::Contains("column `code` changed its type"));
    }
}
