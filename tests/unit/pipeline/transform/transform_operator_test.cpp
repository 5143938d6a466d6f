// TransformOperator: rule selection, derived schemas, filter rewrites, converters, schema change
// propagation and errors, compared as the values sink prints events.
#include "pipeline/transform/transform_operator.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "pipeline/event/event_format.h"
#include "pipeline/transform/functions/functions.h"

using namespace cdcd;
using namespace cdcd::transform;

namespace {

config::TransformDef rule(std::string table, std::string projection, std::string filter = "") {
    config::TransformDef d;
    d.source_table = std::move(table);
    d.projection = std::move(projection);
    d.filter = std::move(filter);
    d.where = {"p.yaml", 10, 5};
    d.projection_where = {"p.yaml", 11, 17};
    d.filter_where = {"p.yaml", 12, 13};
    return d;
}

Row srow(std::vector<const char*> v) {
    RowBuilder b(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i]) b.set_string(i, v[i]);
    return std::move(b).build();
}

// Runs events through the operator and prints the output, tracking output schemas per table.
struct Harness {
    std::unique_ptr<TransformOperator> op;
    std::map<std::string, Schema> schemas;
    std::vector<std::string> run(std::vector<Event> events) {
        EventBatch in(std::make_move_iterator(events.begin()),
                      std::make_move_iterator(events.end())),
            out;
        op->process(in, out);
        std::vector<std::string> lines;
        for (const auto& e : out) {
            if (const auto* d = std::get_if<DataChangeEvent>(&e)) {
                lines.push_back(format_data_change(*d, schemas[d->table.str()]));
            } else {
                auto sc = *as_schema_change(e);
                if (auto* c = std::get_if<CreateTableEvent>(&sc))
                    schemas[c->table.str()] = c->schema;
                else
                    schemas[table_of(sc).str()] =
                        apply_schema_change_for_test(schemas[table_of(sc).str()], sc);
                lines.push_back(format_schema_change(sc));
            }
        }
        return lines;
    }
    static Schema apply_schema_change_for_test(const Schema& s, const SchemaChangeEvent& e);
};

}  // namespace

#include "pipeline/schema/schema_change_apply.h"

Schema Harness::apply_schema_change_for_test(const Schema& s, const SchemaChangeEvent& e) {
    return apply_schema_change(s, e);
}

namespace {

const TableId kTable = TableId::of("my_company", "my_branch", "customers");

Schema customers() {
    return SchemaBuilder()
        .column("col1", DataType::string())
        .column("col2", DataType::string())
        .column("col12", DataType::string())
        .primary_key({"col1"})
        .build();
}

Harness make(std::vector<config::TransformDef> rules, std::string tz = "UTC",
             TransformFunctions functions = {}) {
    config::Diagnostics diags;
    Harness h;
    h.op = TransformOperator::create(rules, tz, diags, {}, DecimalPrecisionMode::UpTo19,
                                     std::move(functions));
    REQUIRE(diags.ok());
    return h;
}

}  // namespace

TEST_CASE("Flink CDC testDataChangeEventTransform: *, concat(col1,col2) col12 with col1 = '1'") {
    auto h = make({rule(kTable.str(), "*, concat(col1,col2) col12", "col1 = '1'")});
    auto out = h.run({Event(CreateTableEvent{kTable, customers()}),
                      Event(DataChangeEvent::insert(kTable, srow({"1", "2", nullptr}))),
                      Event(DataChangeEvent::insert(kTable, srow({"2", "2", nullptr}))),
                      Event(DataChangeEvent::update(kTable, srow({"1", "2", nullptr}),
                                                    srow({"1", "3", nullptr})))});
    REQUIRE(out.size() == 3);
    CHECK(out[0] ==
          "CreateTableEvent{tableId=my_company.my_branch.customers, schema=columns={`col1` STRING "
          "NOT NULL,`col2` "
          "STRING,`col12` STRING}, primaryKeys=col1, options=()}");
    CHECK(out[1] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[], after=[1, 2, 12], "
          "op=INSERT, meta=()}");
    CHECK(out[2] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[1, 2, 12], after=[1, 3, "
          "13], op=UPDATE, "
          "meta=()}");
}

TEST_CASE("metadata columns and their NOT NULL types") {
    auto h = make(
        {rule("my_company.my_branch.\\.*",
              "col1, UPPER(col2) AS up, __namespace_name__, __schema_name__, __table_name__ AS tb, "
              "__data_event_type__ AS op")});
    auto out = h.run({Event(CreateTableEvent{kTable, customers()}),
                      Event(DataChangeEvent::insert(kTable, srow({"1", "ab", nullptr}))),
                      Event(DataChangeEvent::update(kTable, srow({"1", "ab", nullptr}),
                                                    srow({"1", "cd", nullptr}))),
                      Event(DataChangeEvent::remove(kTable, srow({"1", "cd", nullptr})))});
    REQUIRE(out.size() == 4);
    CHECK(out[0] ==
          "CreateTableEvent{tableId=my_company.my_branch.customers, schema=columns={`col1` STRING "
          "NOT NULL,`up` "
          "STRING,`__namespace_name__` STRING NOT NULL,`__schema_name__` STRING NOT NULL,`tb` "
          "STRING NOT NULL,`op` "
          "STRING NOT NULL}, primaryKeys=col1, options=()}");
    CHECK(out[1] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[], after=[1, AB, "
          "my_company, "
          "my_branch, customers, +I], op=INSERT, meta=()}");
    CHECK(
        out[2] ==
        "DataChangeEvent{tableId=my_company.my_branch.customers, before=[1, AB, my_company, "
        "my_branch, "
        "customers, -U], after=[1, CD, my_company, my_branch, customers, +U], op=UPDATE, meta=()}");
    CHECK(out[3] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[1, CD, my_company, "
          "my_branch, "
          "customers, -D], after=[], op=DELETE, meta=()}");
}

TEST_CASE(
    "computed columns are typed as Flink CDC types them: nullable, character types as STRING") {
    // Flink CDC testMultipleDispatchTransform: its CASE of 'YOUNG' and 'OLD' is CHAR(5) to
    // Calcite, and the column `category` STRING.
    const TableId people = TableId::of("default_namespace", "default_schema", "mytable2");
    auto schema = SchemaBuilder()
                      .column("id", DataType::bigint().not_null())
                      .column("name", DataType::varchar(255))
                      .column("age", DataType::tinyint())
                      .primary_key({"id"})
                      .build();
    auto h = make({rule("default_namespace.default_schema.\\.*",
                        "*, CASE WHEN age < 20 THEN 'YOUNG' WHEN age >= 20 THEN 'OLD' END AS "
                        "category, 'abc' AS lit, id + 1 AS next_id, name AS alias, "
                        "ARRAY['a', 'bc'] AS tags, IFNULL(name, 'none') AS named, "
                        "IFNULL(name, name) AS maybe, IFNULL(id, 0) AS some_id, "
                        "__table_name__ AS tb")});
    auto out = h.run({Event(CreateTableEvent{people, schema})});
    REQUIRE(out.size() == 1);
    CHECK(out[0] ==
          "CreateTableEvent{tableId=default_namespace.default_schema.mytable2, schema=columns={"
          "`id` BIGINT NOT NULL,`name` VARCHAR(255),`age` TINYINT,`category` STRING,"
          "`lit` STRING,`next_id` BIGINT,`alias` VARCHAR(255),`tags` ARRAY<STRING>,"
          "`named` STRING NOT NULL,`maybe` STRING,`some_id` BIGINT NOT NULL,"
          "`tb` STRING NOT NULL}, primaryKeys=id, options=()}");
}

TEST_CASE(
    "filter rewrites UPDATE into INSERT or DELETE and SOFT_DELETE turns deletes into inserts") {
    auto def = rule(kTable.str(), "*, __data_event_type__ AS op_type", "col2 <> 'x'");
    def.converter_after_transform = "SOFT_DELETE";
    auto h = make({def});
    auto out = h.run({Event(CreateTableEvent{kTable, customers()}),
                      Event(DataChangeEvent::update(kTable, srow({"1", "a", nullptr}),
                                                    srow({"1", "x", nullptr}))),
                      Event(DataChangeEvent::update(kTable, srow({"1", "x", nullptr}),
                                                    srow({"1", "b", nullptr}))),
                      Event(DataChangeEvent::update(kTable, srow({"1", "x", nullptr}),
                                                    srow({"1", "x", nullptr}))),
                      Event(DataChangeEvent::remove(kTable, srow({"1", "b", nullptr}))),
                      Event(DataChangeEvent::insert(kTable, srow({"2", "x", nullptr})))});
    REQUIRE(out.size() == 4);
    // before passes only → DELETE(before) → SOFT_DELETE → INSERT with op_type -D
    CHECK(out[1] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[], after=[1, a, null, "
          "-D], "
          "op=INSERT, meta=()}");
    CHECK(out[2] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[], after=[1, b, null, "
          "+I], "
          "op=INSERT, meta=()}");
    CHECK(out[3] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[], after=[1, b, null, "
          "-D], "
          "op=INSERT, meta=()}");
}

TEST_CASE("filter sees computed columns before upstream ones and NULL drops the row") {
    auto h = make({rule(kTable.str(), "col1, UPPER(col2) AS col2", "col2 = 'AB'")});
    auto out = h.run({Event(CreateTableEvent{kTable, customers()}),
                      Event(DataChangeEvent::insert(kTable, srow({"1", "ab", nullptr}))),
                      Event(DataChangeEvent::insert(kTable, srow({"2", nullptr, nullptr}))),
                      Event(DataChangeEvent::insert(kTable, srow({"3", "AB", nullptr})))});
    REQUIRE(out.size() == 3);
    CHECK(out[1] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[], after=[1, AB], "
          "op=INSERT, meta=()}");
    CHECK(out[2] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[], after=[3, AB], "
          "op=INSERT, meta=()}");
}

TEST_CASE("later projection items replace earlier ones in place, unmatched tables pass untouched") {
    auto h = make({rule(kTable.str(), "*, UPPER(col2) AS col2")});
    TableId other = TableId::of("my_company", "my_branch", "other");
    auto out = h.run({Event(CreateTableEvent{kTable, customers()}),
                      Event(CreateTableEvent{other, customers()}),
                      Event(DataChangeEvent::insert(kTable, srow({"1", "ab", "z"}))),
                      Event(DataChangeEvent::insert(other, srow({"1", "ab", "z"})))});
    REQUIRE(out.size() == 4);
    CHECK(out[0] ==
          "CreateTableEvent{tableId=my_company.my_branch.customers, schema=columns={`col1` STRING "
          "NOT NULL,`col2` "
          "STRING,`col12` STRING}, primaryKeys=col1, options=()}");
    CHECK(out[2] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[], after=[1, AB, z], "
          "op=INSERT, meta=()}");
    CHECK(out[3] ==
          "DataChangeEvent{tableId=my_company.my_branch.other, before=[], after=[1, ab, z], "
          "op=INSERT, meta=()}");
}

TEST_CASE("selectors: case-insensitive, part count must match, first matching rule wins") {
    auto h = make(
        {rule("MY_COMPANY.my_branch.cust\\.*", "col1"), rule("my_company.my_branch.\\.*", "col2")});
    TableId two_part = TableId::of("my_branch", "customers");
    auto out = h.run({Event(CreateTableEvent{kTable, customers()}),
                      Event(CreateTableEvent{two_part, customers()})});
    REQUIRE(out.size() == 2);
    CHECK(out[0] ==
          "CreateTableEvent{tableId=my_company.my_branch.customers, schema=columns={`col1` STRING "
          "NOT "
          "NULL}, primaryKeys=col1, options=()}");
    CHECK(out[1] ==
          "CreateTableEvent{tableId=my_branch.customers, schema=columns={`col1` STRING,`col2` "
          "STRING,`col12` STRING}, primaryKeys=col1, options=()}");
}

TEST_CASE("primary-keys, partition-keys and table-options overrides") {
    auto def = rule(kTable.str(), "*");
    def.primary_keys = "col1, col2";
    def.partition_keys = "col2";
    def.table_options = "replication_num=1,bucket=17";
    auto h = make({def});
    auto out = h.run({Event(CreateTableEvent{kTable, customers()})});
    CHECK(out[0] ==
          "CreateTableEvent{tableId=my_company.my_branch.customers, schema=columns={`col1` STRING "
          "NOT NULL,`col2` "
          "STRING NOT NULL,`col12` STRING}, primaryKeys=col1;col2, partitionKeys=col2, "
          "options=({bucket=17, "
          "replication_num=1})}");
}

TEST_CASE("schema changes propagate with * and are swallowed without it") {
    auto with_star = make({rule(kTable.str(), "*, col1 || 'x' AS c")});
    auto without = make({rule(kTable.str(), "col1, col2")});
    AddColumnEvent add{kTable,
                       {ColumnWithPosition{Column{"col3", DataType::int_(), "", {}},
                                           ColumnWithPosition::Position::Last, ""}}};
    DropColumnEvent drop{kTable, {"col12"}};
    RenameColumnEvent ren{kTable, {{"col2", "col2b"}}};
    auto a = with_star.run({Event(CreateTableEvent{kTable, customers()}), Event(add), Event(drop)});
    REQUIRE(a.size() == 3);
    CHECK(a[1] ==
          "AddColumnEvent{tableId=my_company.my_branch.customers, "
          "addedColumns=[ColumnWithPosition{column=`col3` "
          "INT, position=AFTER, existedColumnName=col12}]}");
    CHECK(a[2] ==
          "DropColumnEvent{tableId=my_company.my_branch.customers, droppedColumnNames=[col12]}");
    auto b = without.run({Event(CreateTableEvent{kTable, customers()}), Event(add), Event(drop)});
    CHECK(b.size() == 1);
    // Renaming a column the projection references fails with the rule's location.
    CHECK_THROWS_WITH(without.run({Event(ren)}), Catch::Contains("p.yaml:11:23") &&
                                                     Catch::Contains("Column `col2` not found"));
    AlterColumnTypeEvent alter{
        kTable, {{"col1", DataType::varchar(10)}}, {{"col1", DataType::string()}}, {}};
    auto fresh = make({rule(kTable.str(), "col1, col2")});
    fresh.run({Event(CreateTableEvent{kTable, customers()})});
    auto c = fresh.run({Event(alter)});
    REQUIRE(c.size() == 1);
    CHECK(c[0] ==
          "AlterColumnTypeEvent{tableId=my_company.my_branch.customers, "
          "typeMapping={col1=VARCHAR(10) NOT NULL}, "
          "oldTypeMapping={col1=STRING NOT NULL}, comments={}}");
}

TEST_CASE("errors: syntax at start, unknown names at CreateTable, runtime failures with the key") {
    config::Diagnostics diags;
    auto bad = rule(kTable.str(), "col1, UPPER(col2 AS x", "col1 = ");
    bad.converter_after_transform = "HARD_DELETE";
    auto op = TransformOperator::create({bad}, "UTC", diags);
    REQUIRE(diags.size() == 3);
    CHECK(diags.items()[0].where.to_string() == "p.yaml:11:34");
    CHECK_THAT(diags.items()[0].message,
               Catch::StartsWith("syntax error in projection at column 18"));
    CHECK(diags.items()[1].where.to_string() == "p.yaml:12:20");
    CHECK_THAT(diags.items()[2].message,
               Catch::Contains("Failed to find the converter HARD_DELETE"));

    auto h = make({rule(kTable.str(), "col1, nope + 1 AS x")});
    CHECK_THROWS_WITH(h.run({Event(CreateTableEvent{kTable, customers()})}),
                      Catch::Contains("p.yaml:11:23") &&
                          Catch::Contains("my_company.my_branch.customers") &&
                          Catch::Contains("Column `nope` not found"));

    auto r = make({rule(kTable.str(), "col1, CAST(col2 AS INT) AS n, TRY_CAST(col2 AS INT) AS t")});
    auto out = r.run({Event(CreateTableEvent{kTable, customers()}),
                      Event(DataChangeEvent::insert(kTable, srow({"1", "42", nullptr})))});
    CHECK(out[1] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[], after=[1, 42, 42], "
          "op=INSERT, meta=()}");
    // Text that is no number is NULL (Flink CDC's CastingFunctions.castToInteger); text that is
    // no timestamp fails the row (casting.yaml, "Cast To Timestamp Failure").
    out = r.run({Event(DataChangeEvent::insert(kTable, srow({"7", "x", nullptr})))});
    CHECK(out[0] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[], after=[7, null, "
          "null], op=INSERT, meta=()}");
    auto ts = make({rule(kTable.str(), "col1, CAST(col2 AS TIMESTAMP) AS n")});
    ts.run({Event(CreateTableEvent{kTable, customers()})});
    CHECK_THROWS_WITH(ts.run({Event(DataChangeEvent::insert(kTable, srow({"7", "x", nullptr})))}),
                      Catch::Contains("{col1=7}") &&
                          Catch::Contains("CAST(col2 AS TIMESTAMP) AS n") &&
                          Catch::Contains("Cannot cast 'x'"));
}

TEST_CASE("create reports what it can see without a schema at the YAML position inside the text") {
    config::Diagnostics diags;
    auto op = TransformOperator::create(
        {rule(kTable.str(), "col1, UPPR(col2) AS x", "CHAR_LENGTH(col1, 2) > 0")}, "UTC", diags);
    REQUIRE(diags.size() == 2);
    CHECK(diags.items()[0].where.to_string() == "p.yaml:11:23");
    CHECK(diags.items()[0].message ==
          "error in projection at column 7: No match found for function signature UPPR(...); did "
          "you mean `UPPER`? in `col1, UPPR(col2) AS x`");
    CHECK(diags.items()[1].where.to_string() == "p.yaml:12:13");
    CHECK_THAT(diags.items()[1].message,
               Catch::StartsWith("error in filter at column 1: Invalid number of arguments to "
                                 "function 'CHAR_LENGTH'"));
}

TEST_CASE("an expression past a limit is a syntax error at its position and is quoted in part") {
    config::Diagnostics diags;
    std::string deep = std::string(20000, '(') + "col1" + std::string(20000, ')');
    auto op = TransformOperator::create({rule(kTable.str(), "col1", deep)}, "UTC", diags);
    REQUIRE(diags.size() == 1);
    CHECK(diags.items()[0].where.to_string() == "p.yaml:12:268");  // 13 + 255
    CHECK_THAT(diags.items()[0].message,
               Catch::StartsWith("syntax error in filter at column 256: expression nesting exceeds "
                                 "the limit of 256 levels") &&
                   Catch::EndsWith("... (40004 bytes)`"));
    CHECK(diags.items()[0].message.size() < 600);
}

TEST_CASE("snapshot and restore keep the upstream schemas") {
    auto h = make({rule(kTable.str(), "col1, col2 || '!' AS c")});
    h.run({Event(CreateTableEvent{kTable, customers()})});
    std::string state = h.op->snapshot_state();
    auto h2 = make({rule(kTable.str(), "col1, col2 || '!' AS c")});
    h2.op->restore(state);
    h2.schemas[kTable.str()] = SchemaBuilder()
                                   .column("col1", DataType::string().not_null())
                                   .column("c", DataType::string())
                                   .primary_key({"col1"})
                                   .build();
    auto out = h2.run({Event(DataChangeEvent::insert(kTable, srow({"1", "hi", nullptr})))});
    REQUIRE(out.size() == 1);
    CHECK(out[0] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[], after=[1, hi!], "
          "op=INSERT, meta=()}");
}

namespace {

const TableId kMixed = TableId::of("db", "sch", "mixed");

Schema mixed() {
    return SchemaBuilder()
        .column("id", DataType::bigint().not_null())
        .column("name", DataType::string())
        .column("amount", DataType::double_())
        .column("note", DataType::string())
        .column("ts", DataType::timestamp(3))
        .column("dec", DataType::decimal(10, 2))
        .primary_key({"id"})
        .build();
}

struct MixedValues {
    std::int64_t id;
    const char* name;
    std::optional<double> amount;
    const char* note;
    std::optional<Timestamp> ts;
    std::optional<__int128> dec;
};

// Sets upstream field `field` of `v` (0..5: id, name, amount, note, ts, dec) at position `at`,
// unless it is NULL.
void set_mixed_field(RowBuilder& b, std::size_t at, int field, const MixedValues& v) {
    switch (field) {
        case 0:
            b.set_long(at, v.id);
            break;
        case 1:
            if (v.name) b.set_string(at, v.name);
            break;
        case 2:
            if (v.amount) b.set_double(at, *v.amount);
            break;
        case 3:
            if (v.note) b.set_string(at, v.note);
            break;
        case 4:
            if (v.ts) b.set_timestamp(at, *v.ts);
            break;
        case 5:
            if (v.dec) b.set_decimal(at, Decimal{*v.dec});
            break;
    }
}

// Fields set in `order` (a permutation of 0..5), so the variable part is laid out in that order.
Row mixed_row(const MixedValues& v, std::vector<int> order = {0, 1, 2, 3, 4, 5}) {
    RowBuilder b(6);
    for (int i : order) set_mixed_field(b, static_cast<std::size_t>(i), i, v);
    return std::move(b).build();
}

// `row` with `room` bytes of capacity past its size (0: none at all).
Row with_room(Row row, std::size_t room) {
    std::string bytes = std::move(row).release();
    if (room == 0)
        bytes.shrink_to_fit();
    else
        bytes.reserve(bytes.size() + room);
    return Row(std::move(bytes));
}

// The output row of `projection` over one inserted row.
Row project_one(const std::string& projection, Row input,
                TransformOperator::RowBuffers* buffers = nullptr) {
    config::Diagnostics diags;
    auto op = TransformOperator::create({rule(kMixed.str(), projection)}, "UTC", diags);
    REQUIRE(diags.ok());
    EventBatch in, out;
    in.push_back(Event(CreateTableEvent{kMixed, mixed()}));
    in.push_back(Event(DataChangeEvent::insert(kMixed, std::move(input))));
    op->process(in, out, buffers);
    REQUIRE(out.size() == 2);
    return std::move(*std::get<DataChangeEvent>(out[1]).after);
}

// Two inserts of `row` (a copy, then the row itself) through `projection`, transformed where
// they are (TransformOperator::process_in_place): the rows that come out, and whether the
// second kept the input's buffer.
struct TwoInPlace {
    Row first, second;
    bool kept_buffer = false;
    bool rows_in_place = false;  // TransformOperator::rows_in_place()
    std::size_t retired = 0;
};
TwoInPlace transform_two_in_place(const std::string& projection, bool in_batches, Row row) {
    config::Diagnostics diags;
    auto op = TransformOperator::create({rule(kMixed.str(), projection)}, "UTC", diags);
    REQUIRE(diags.ok());
    op->evaluate_in_batches(in_batches);
    EventBatch create, out;
    create.push_back(Event(CreateTableEvent{kMixed, mixed()}));
    op->process(create, out);
    const char* buffer = row.bytes().data();
    EventBatch batch;
    batch.push_back(Event(DataChangeEvent::insert(kMixed, row)));
    batch.push_back(Event(DataChangeEvent::insert(kMixed, std::move(row))));
    TransformOperator::RowBuffers handed_back;
    op->process_in_place(batch, &handed_back);
    REQUIRE(batch.size() == 2);
    TwoInPlace r;
    r.first = std::move(*std::get<DataChangeEvent>(batch[0]).after);
    Row& second = *std::get<DataChangeEvent>(batch[1]).after;
    r.kept_buffer = second.bytes().data() == buffer;
    r.second = std::move(second);
    r.rows_in_place = op->rows_in_place();
    r.retired = handed_back.retired.size();
    return r;
}

}  // namespace

TEST_CASE("`*` alone passes every row as it came, in batches and one by one") {
    // Rows laid out in other orders, and with stale bytes, keep their buffers and bytes: `*`
    // alone rewrites nothing, whichever way the events are transformed. A filter still splits
    // an update whose images it judges apart.
    for (bool in_batches : {true, false}) {
        CAPTURE(in_batches);
        config::Diagnostics diags;
        auto op = TransformOperator::create({rule(kMixed.str(), "*", "id > 10")}, "UTC", diags);
        REQUIRE(diags.ok());
        op->evaluate_in_batches(in_batches);
        EventBatch create, out;
        create.push_back(Event(CreateTableEvent{kMixed, mixed()}));
        op->process(create, out);
        MixedValues v{11, "alice", 2.5, "hello world", Timestamp{1700000000123, 456}, 12345};
        RowBuilder stale(6);
        stale.set_string(1, "stale bytes");
        stale.set_null(1);
        stale.set_long(0, 12);
        stale.set_string(3, "note");
        std::vector<Row> rows;
        rows.push_back(mixed_row(v, {5, 4, 3, 2, 1, 0}));
        rows.push_back(std::move(stale).build());
        MixedValues low = v;
        low.id = 3;
        rows.push_back(mixed_row(low));
        rows.push_back(mixed_row(v, {0, 3, 1, 2, 5, 4}));
        const std::vector<Row> sent = rows;
        std::vector<const char*> buffers;
        for (const Row& r : rows) buffers.push_back(r.bytes().data());
        EventBatch batch;
        batch.push_back(Event(DataChangeEvent::insert(kMixed, std::move(rows[0]))));
        batch.push_back(Event(DataChangeEvent::insert(kMixed, std::move(rows[1]))));
        // id 3 fails the filter, id 11 passes: the update becomes an insert of its new image.
        batch.push_back(
            Event(DataChangeEvent::update(kMixed, std::move(rows[2]), std::move(rows[3]))));
        TransformOperator::RowBuffers handed_back;
        op->process_in_place(batch, &handed_back);
        REQUIRE(batch.size() == 3);
        const auto& first = std::get<DataChangeEvent>(batch[0]);
        const auto& second = std::get<DataChangeEvent>(batch[1]);
        const auto& third = std::get<DataChangeEvent>(batch[2]);
        CHECK(*first.after == sent[0]);
        CHECK(first.after->bytes().data() == buffers[0]);
        CHECK(*second.after == sent[1]);
        CHECK(second.after->bytes().data() == buffers[1]);
        CHECK(third.op == OpType::Insert);
        CHECK(!third.before);
        CHECK(*third.after == sent[3]);
        CHECK(third.after->bytes().data() == buffers[3]);
        CHECK(op->rows_in_place());                // the written rows go back to the source
        REQUIRE(handed_back.retired.size() == 1);  // the update's old image
        CHECK(handed_back.retired[0] == sent[2]);
    }
}

TEST_CASE("some columns in their order are written over the input row, as RowBuilder writes them") {
    MixedValues full{7, "alice", 2.5, "hello world", Timestamp{1700000000123, 456}, 12345};
    MixedValues sparse{8, nullptr, std::nullopt, "n", std::nullopt, -5};
    struct Case {
        const char* projection;
        std::vector<int> kept;  // upstream positions, in order
    };
    for (bool in_batches : {true, false}) {
        for (const auto& v : {full, sparse}) {
            for (const Case& c :
                 {Case{"id, note, dec", {0, 3, 5}}, Case{"name, ts", {1, 4}}, Case{"note", {3}},
                  Case{"id", {0}}, Case{"id, name, amount, note, ts", {0, 1, 2, 3, 4}}}) {
                CAPTURE(in_batches, c.projection, v.id);
                RowBuilder want(c.kept.size());
                for (std::size_t i = 0; i < c.kept.size(); ++i)
                    set_mixed_field(want, i, c.kept[i], v);
                const Row expected = std::move(want).build();
                // In field order: written over the row itself. In another order, and with stale
                // bytes: into another buffer. The bytes are the same either way.
                RowBuilder stale(6);
                stale.set_string(3, "stale bytes");
                stale.set_null(3);
                Row rows[3] = {mixed_row(v), mixed_row(v, {5, 4, 3, 2, 1, 0}),
                               mixed_row(v, {0, 3, 1, 2, 5, 4})};
                for (std::size_t r = 0; r < 3; ++r) {
                    TwoInPlace out =
                        transform_two_in_place(c.projection, in_batches, std::move(rows[r]));
                    CHECK(out.first == expected);
                    CHECK(out.second == expected);
                    if (r == 0) {
                        CHECK(out.kept_buffer);
                        CHECK(out.rows_in_place);
                        CHECK(out.retired == 0);
                    }
                }
            }
        }
    }
}

TEST_CASE("some columns in their order, then computed ones, are written over the input row") {
    // The kept fields' bytes move (down, or up when the output has more fields than the input),
    // and the computed ones follow, including strings that pointed into the row's own bytes:
    // into a dropped field (SUBSTR(note) without note) or a kept one that moves.
    MixedValues full{7, "alice", 2.5, "hello world", Timestamp{1700000000123, 456}, 12345};
    MixedValues sparse{8, nullptr, std::nullopt, "n", std::nullopt, -5};
    auto upper = [](const char* text) {
        std::string up = text;
        for (auto& ch : up) ch = static_cast<char>(std::toupper(ch));
        return up;
    };
    auto substr = [](const char* text, std::size_t from, std::size_t count) {
        std::string_view t = text;
        return std::string(from - 1 < t.size() ? t.substr(from - 1, count) : std::string_view());
    };
    struct Case {
        const char* projection;
        std::vector<int> kept;  // upstream positions, in order
        std::size_t width;      // output fields
        // Sets the computed fields from position `at` on.
        std::function<void(RowBuilder&, std::size_t at, const MixedValues&)> computed;
    };
    const std::vector<Case> cases = {
        {"id, note, UPPER(name) AS up",
         {0, 3},
         3,
         [&](RowBuilder& b, std::size_t at, const MixedValues& v) {
             if (v.name) b.set_string(at, upper(v.name));
         }},
        {"id, SUBSTR(note, 1, 3) AS pre",
         {0},
         2,
         [&](RowBuilder& b, std::size_t at, const MixedValues& v) {
             b.set_string(at, substr(v.note, 1, 3));
         }},
        {"note, SUBSTR(note, 2, 4) AS mid, id * 2 AS twice",
         {3},
         3,
         [&](RowBuilder& b, std::size_t at, const MixedValues& v) {
             b.set_string(at, substr(v.note, 2, 4));
             b.set_long(at + 1, v.id * 2);
         }},
        {"name, ts, dec, amount * 2 AS dbl, UPPER(note) AS loud",
         {1, 4, 5},
         5,
         [&](RowBuilder& b, std::size_t at, const MixedValues& v) {
             if (v.amount) b.set_double(at, *v.amount * 2);
             b.set_string(at + 1, upper(v.note));
         }},
        // Seven fields from six: the fixed part grows, and the kept bytes move up (name's over
        // the start of note's, which u3 points into).
        {"id, name, note, UPPER(name) AS u1, UPPER(note) AS u2, SUBSTR(note, 4, 5) AS u3, "
         "id * 3 AS u4",
         {0, 1, 3},
         7,
         [&](RowBuilder& b, std::size_t at, const MixedValues& v) {
             if (v.name) b.set_string(at, upper(v.name));
             b.set_string(at + 1, upper(v.note));
             b.set_string(at + 2, substr(v.note, 4, 5));
             b.set_long(at + 3, v.id * 3);
         }},
    };
    for (bool in_batches : {true, false}) {
        for (const auto& v : {full, sparse}) {
            for (const Case& c : cases) {
                RowBuilder want_builder(c.width);
                for (std::size_t i = 0; i < c.kept.size(); ++i)
                    set_mixed_field(want_builder, i, c.kept[i], v);
                c.computed(want_builder, c.kept.size(), v);
                const Row expected = std::move(want_builder).build();
                // Over the row itself when the kept fields' bytes lie in field order and the
                // output fits its capacity, else into another buffer; the bytes are the same.
                const std::vector<std::vector<int>> layouts = {
                    {0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}, {0, 3, 1, 2, 5, 4}};
                auto kept_in_order = [&](const std::vector<int>& layout) {
                    const bool has_bytes[6] = {false,
                                               v.name != nullptr,
                                               false,
                                               v.note != nullptr,
                                               v.ts.has_value(),
                                               v.dec.has_value()};
                    int last = -1;
                    for (int field : layout) {
                        if (!has_bytes[field] ||
                            std::find(c.kept.begin(), c.kept.end(), field) == c.kept.end())
                            continue;
                        if (field < last) return false;
                        last = field;
                    }
                    return true;
                };
                for (std::size_t room : {std::size_t{256}, std::size_t{0}}) {
                    Row rows[3] = {with_room(mixed_row(v, layouts[0]), room),
                                   with_room(mixed_row(v, layouts[1]), room),
                                   with_room(mixed_row(v, layouts[2]), room)};
                    for (std::size_t r = 0; r < 3; ++r) {
                        CAPTURE(in_batches, c.projection, v.id, room, r);
                        const bool fits = expected.bytes().size() <= rows[r].bytes().capacity();
                        TwoInPlace out =
                            transform_two_in_place(c.projection, in_batches, std::move(rows[r]));
                        CHECK(out.first == expected);
                        CHECK(out.second == expected);
                        CHECK(out.kept_buffer == (kept_in_order(layouts[r]) && fits));
                    }
                }
            }
        }
    }
}

TEST_CASE("projected rows have the bytes RowBuilder writes, whatever the input's layout") {
    MixedValues full{7, "alice", 2.5, "hello world", Timestamp{1700000000123, 456}, 12345};
    MixedValues sparse{8, nullptr, std::nullopt, "n", std::nullopt, -5};
    for (const auto& v : {full, sparse}) {
        auto expected_star = [&](std::optional<std::string> up, std::int64_t next) {
            RowBuilder b(8);
            b.set_long(0, v.id);
            if (v.name) b.set_string(1, v.name);
            if (v.amount) b.set_double(2, *v.amount);
            if (v.note) b.set_string(3, v.note);
            if (v.ts) b.set_timestamp(4, *v.ts);
            if (v.dec) b.set_decimal(5, Decimal{*v.dec});
            if (up) b.set_string(6, *up);
            b.set_long(7, next);
            return std::move(b).build();
        };
        std::optional<std::string> up;
        if (v.name) {
            up = v.name;
            for (auto& ch : *up) ch = static_cast<char>(std::toupper(ch));
        }
        const std::string star = "*, UPPER(name) AS up, id + 1 AS nxt";
        // In field order (copied as a block), and in other orders (copied field by field).
        CHECK(project_one(star, mixed_row(v)) == expected_star(up, v.id + 1));
        CHECK(project_one(star, mixed_row(v, {5, 4, 3, 2, 1, 0})) == expected_star(up, v.id + 1));
        CHECK(project_one(star, mixed_row(v, {0, 3, 1, 2, 5, 4})) == expected_star(up, v.id + 1));

        // Fields written and then set NULL leave slots and bytes the output must not keep (the
        // first row's variable part is still in field order, the second's is not).
        for (const char* stale_text : {"", "stale bytes"}) {
            RowBuilder stale(6);
            stale.set_string(1, stale_text);
            stale.set_null(1);
            stale.set_double(2, 9.5);
            stale.set_null(2);
            stale.set_long(0, v.id);
            if (v.note) stale.set_string(3, v.note);
            RowBuilder want(8);
            want.set_long(0, v.id);
            if (v.note) want.set_string(3, v.note);
            want.set_long(7, v.id + 1);
            CHECK(project_one(star, std::move(stale).build()) == std::move(want).build());
        }

        // Without `*`, and with a `*` column replaced in place.
        RowBuilder picked(3);
        if (v.note) picked.set_string(0, v.note);
        picked.set_long(1, v.id);
        if (v.dec) picked.set_decimal(2, Decimal{*v.dec});
        CHECK(project_one("note, id, dec", mixed_row(v)) == std::move(picked).build());
        RowBuilder replaced(6);
        replaced.set_long(0, v.id);
        if (up) replaced.set_string(1, *up);
        if (v.amount) replaced.set_double(2, *v.amount);
        if (v.note) replaced.set_string(3, v.note);
        if (v.ts) replaced.set_timestamp(4, *v.ts);
        if (v.dec) replaced.set_decimal(5, Decimal{*v.dec});
        CHECK(project_one("*, UPPER(name) AS name", mixed_row(v)) == std::move(replaced).build());
    }
}

TEST_CASE(
    "process takes spare row buffers, drops those too small, and hands the replaced input rows "
    "back") {
    // No room past its bytes: a `*` projection is not written over it (see below).
    Row input = with_room(mixed_row({1, "a", 1.0, "b", std::nullopt, std::nullopt}), 0);
    TransformOperator::RowBuffers buffers;
    std::string small, large;
    small.reserve(8);
    large.reserve(4096);
    const char* large_data = large.data();
    buffers.spare.push_back(std::move(small));
    buffers.spare.push_back(std::move(large));
    Row out = project_one("*, id + 1 AS nxt", input, &buffers);
    // The last spare is large enough: the row is written into it.
    CHECK(out.bytes().data() == large_data);
    CHECK(out.bytes().size() == RowView::fixed_size(7) + 2);
    REQUIRE(buffers.spare.size() == 1);
    REQUIRE(buffers.retired.size() == 1);
    CHECK(buffers.retired[0] == input);
    // The remaining spare is too small: it is dropped (rows grew; it would block the others), and
    // the row gets a new buffer with room for somewhat larger rows, to serve as a spare later.
    Row again = project_one("*, id + 1 AS nxt", input, &buffers);
    CHECK(again == out);
    CHECK(buffers.spare.empty());
    CHECK(buffers.retired.size() == 2);
    CHECK(again.bytes().capacity() >= again.bytes().size() * 9 / 8);
}

// Spare buffers come back from earlier rows with their old bytes: the projection writes every
// byte of the new row (header, NULL bits, the zero slots of NULL fields, the variable part)
// instead of filling the buffer with zeros first, so none of the old bytes may show through.
TEST_CASE("rows written into used spare buffers have exactly the bytes RowBuilder writes") {
    MixedValues full{7, "alice", 2.5, "hello world", Timestamp{1700000000123, 456}, 12345};
    MixedValues sparse{8, nullptr, std::nullopt, "n", std::nullopt, -5};
    const std::string projection =
        "*, UPPER(name) AS up, CASE WHEN id > 7 THEN NULL ELSE note END AS maybe, id * 3 AS x";
    for (const auto& v : {full, sparse}) {
        for (auto order :
             {std::vector<int>{0, 1, 2, 3, 4, 5}, std::vector<int>{5, 4, 3, 2, 1, 0}}) {
            Row want = project_one(projection, mixed_row(v, order));
            // Longer than the row, as long, shorter (within the capacity), and empty.
            for (std::size_t size : {want.bytes().size() + 300, want.bytes().size(),
                                     want.bytes().size() / 2, std::size_t{0}}) {
                INFO(size);
                std::string used(want.bytes().size() + 300, '\xAB');
                used.resize(size);
                TransformOperator::RowBuffers buffers;
                buffers.spare.push_back(std::move(used));
                Row got = project_one(projection, with_room(mixed_row(v, order), 0), &buffers);
                CHECK(buffers.spare.empty());
                CHECK(got == want);
            }
        }
    }
}

namespace {

// Two rows in a vector, moved (an initializer list would copy them, without their room).
std::vector<Row> two(Row a, Row b) {
    std::vector<Row> rows;
    rows.push_back(std::move(a));
    rows.push_back(std::move(b));
    return rows;
}

// The output rows of `projection` over inserts of `inputs` in one batch (a run of one table's
// events, so evaluated column-at-a-time), with the buffers they were written into.
struct RunOutput {
    std::vector<Row> rows;
    std::vector<const void*> input_buffers, output_buffers;
    std::size_t retired = 0;
    bool in_place = false;  // TransformOperator::rows_in_place()
};
RunOutput project_run(const std::string& projection, const Schema& schema,
                      std::vector<Row> inputs) {
    config::Diagnostics diags;
    auto op = TransformOperator::create({rule(kMixed.str(), projection)}, "UTC", diags);
    REQUIRE(diags.ok());
    RunOutput r;
    EventBatch in, out;
    in.push_back(Event(CreateTableEvent{kMixed, schema}));
    for (Row& row : inputs) {
        r.input_buffers.push_back(static_cast<const void*>(row.bytes().data()));
        in.push_back(Event(DataChangeEvent::insert(kMixed, std::move(row))));
    }
    TransformOperator::RowBuffers buffers;
    op->process(in, out, &buffers);
    REQUIRE(out.size() == inputs.size() + 1);
    for (std::size_t k = 1; k < out.size(); ++k) {
        Row row = std::move(*std::get<DataChangeEvent>(out[k]).after);
        r.output_buffers.push_back(static_cast<const void*>(row.bytes().data()));
        r.rows.push_back(std::move(row));
    }
    r.retired = buffers.retired.size();
    r.in_place = op->rows_in_place();
    return r;
}

}  // namespace

// A `*` followed by computed columns is written over the input row when its buffer has room:
// the variable part moves up past the new slots, and computed strings that pointed into it
// (SUBSTR) are read where they moved to.
TEST_CASE("rows projected over their own input rows have the bytes RowBuilder writes") {
    MixedValues full{7, "alice", 2.5, "hello world", Timestamp{1700000000123, 456}, 12345};
    MixedValues sparse{8, nullptr, std::nullopt, "n", std::nullopt, -5};
    const std::string projection =
        "*, UPPER(name) AS up, SUBSTR(note, 2) AS tail, CASE WHEN id > 7 THEN NULL ELSE note END "
        "AS maybe, id * 3 AS x, dec * 2 AS d2, amount / 2 AS half";
    for (const auto& v : {full, sparse}) {
        INFO(v.id);
        Row want = project_one(projection, mixed_row(v));
        // With room: written in place, no buffer taken or retired.
        RunOutput r = project_run(projection, mixed(),
                                  two(with_room(mixed_row(v), 256), with_room(mixed_row(v), 256)));
        CHECK(r.in_place);
        CHECK(r.retired == 0);
        for (std::size_t i = 0; i < r.rows.size(); ++i) {
            CHECK(r.rows[i] == want);
            CHECK(r.output_buffers[i] == r.input_buffers[i]);
        }
        // Without room, or with a variable part out of field order: a new buffer, the same bytes.
        r = project_run(
            projection, mixed(),
            two(with_room(mixed_row(v), 0), with_room(mixed_row(v, {5, 4, 3, 2, 1, 0}), 256)));
        CHECK(r.retired == 2);
        for (std::size_t i = 0; i < r.rows.size(); ++i) {
            CHECK(r.rows[i] == want);
            CHECK(r.output_buffers[i] != r.input_buffers[i]);
        }
        // A field written and then set NULL leaves a slot the output must not keep.
        RowBuilder stale(6);
        stale.set_long(0, v.id);
        stale.set_double(2, 9.5);
        stale.set_null(2);
        if (v.name) stale.set_string(1, v.name);
        if (v.note) stale.set_string(3, v.note);
        if (v.ts) stale.set_timestamp(4, *v.ts);
        if (v.dec) stale.set_decimal(5, Decimal{*v.dec});
        MixedValues no_amount = v;
        no_amount.amount.reset();
        Row want_stale = project_one(projection, mixed_row(no_amount));
        r = project_run(
            projection, mixed(),
            two(with_room(std::move(stale).build(), 256), with_room(mixed_row(no_amount), 256)));
        CHECK(r.rows[0] == want_stale);
        CHECK(r.rows[1] == want_stale);
        CHECK(r.output_buffers[0] == r.input_buffers[0]);
    }
}

TEST_CASE("a projection is written in place when it keeps upstream columns in order first") {
    Row input = mixed_row({7, "alice", 2.5, "hello world", std::nullopt, 12345});
    auto run = [&](const std::string& projection) {
        Row want = project_one(projection, with_room(input, 0));
        // Column-at-a-time (a run of two events), and row by row (one event).
        RunOutput r =
            project_run(projection, mixed(), two(with_room(input, 256), with_room(input, 256)));
        CHECK(r.rows[0] == want);
        CHECK(r.rows[1] == want);
        Row alone = with_room(input, 256);
        const void* alone_buffer = alone.bytes().data();
        Row one = project_one(projection, std::move(alone));
        CHECK(one == want);
        const bool one_in_place = one.bytes().data() == alone_buffer;
        CHECK(one_in_place == (r.output_buffers[0] == r.input_buffers[0]));
        return r.in_place && r.output_buffers[0] == r.input_buffers[0];
    };
    CHECK(run("*, id + 1 AS nxt"));
    CHECK(run("*"));
    CHECK_FALSE(run("id, name, amount, note, ts, dec, id + 1 AS nxt, name AS again"));
    CHECK_FALSE(run("name, id, amount, note, ts, dec, id + 1 AS nxt"));
    CHECK_FALSE(run("*, UPPER(name) AS name"));  // a `*` column replaced in its position
    // Some columns in their order, then computed ones: compacted, then appended.
    CHECK(run("id, UPPER(name) AS up"));
    CHECK(run("name, dec, SUBSTR(note, 2, 3) AS mid, amount * 2 AS dbl"));
    CHECK_FALSE(run("UPPER(name) AS up, id"));
}

// rows_in_place() tells the transform stage whether the lanes still need spare buffers: not
// when every row of the call was projected by a rule that writes over its rows (whether or not
// a row had room), else yes.
TEST_CASE("rows_in_place is false when a row was projected by a rule that never writes in place") {
    const TableId other = TableId::of("db", "sch", "other");
    config::Diagnostics diags;
    auto op = TransformOperator::create(
        {rule(kMixed.str(), "*, id + 1 AS nxt"), rule(other.str(), "name, id")}, "UTC", diags);
    REQUIRE(diags.ok());
    Row input = mixed_row({7, "alice", 2.5, "hello world", std::nullopt, 12345});
    auto run = [&](std::vector<TableId> tables) {
        EventBatch in, out;
        for (TableId t : tables)
            in.push_back(Event(DataChangeEvent::insert(t, with_room(input, 0))));
        op->process(in, out);
        return op->rows_in_place();
    };
    EventBatch create, created;
    create.push_back(Event(CreateTableEvent{kMixed, mixed()}));
    create.push_back(Event(CreateTableEvent{other, mixed()}));
    op->process(create, created);
    CHECK(run({kMixed, kMixed, kMixed}));  // without room, still the rule's way: no spares
    CHECK(run({kMixed}));                  // row by row
    CHECK_FALSE(run({kMixed, kMixed, other}));
    CHECK_FALSE(run({other, kMixed}));
    CHECK_FALSE(run({}));  // nothing projected
}

TEST_CASE("a projection that needs another word of NULL bits moves every field up in place") {
    // 63 upstream columns and two computed: 65 fields, a second word of NULL bits and two more
    // slots, so every kept field's bytes move up (the last first), and the computed ones follow.
    SchemaBuilder sb;
    for (int i = 0; i < 63; ++i) sb.column("c" + std::to_string(i), DataType::string());
    Schema wide = sb.build();
    auto wide_row = [](int null_every) {
        RowBuilder b(63);
        for (std::size_t i = 0; i < 63; ++i)
            if (i % static_cast<std::size_t>(null_every) != 0)
                b.set_string(i, "v" + std::to_string(i));
        return std::move(b).build();
    };
    const std::string projection = "*, UPPER(c1) AS up, CONCAT(c2, c62) AS tail";
    for (int null_every : {2, 5, 100}) {
        RunOutput r = project_run(
            projection, wide,
            two(with_room(wide_row(null_every), 1024), with_room(wide_row(null_every), 1024)));
        RowBuilder want(65);
        for (std::size_t i = 0; i < 63; ++i)
            if (i % static_cast<std::size_t>(null_every) != 0)
                want.set_string(i, "v" + std::to_string(i));
        if (1 % null_every != 0) want.set_string(63, "V1");
        std::string tail = (2 % null_every != 0 ? "v2" : "null") +
                           std::string(62 % null_every != 0 ? "v62" : "null");
        want.set_string(64, tail);
        Row expected = std::move(want).build();
        CHECK(r.rows[0] == expected);
        CHECK(r.rows[1] == expected);
        CHECK(r.output_buffers[0] == r.input_buffers[0]);
    }
}

namespace {

// A bad-record policy that keeps what it is handed.
struct KeepingSink final : BadRecordSink {
    BadRecordPolicy chosen;
    std::vector<BadRecord> kept;
    explicit KeepingSink(BadRecordPolicy p) : chosen(p) {}
    void handle(BadRecord r) override {
        if (chosen == BadRecordPolicy::Fail) throw BadRecordError(r.error);
        kept.push_back(std::move(r));
    }
    void skip(BadRecord r) override { kept.push_back(std::move(r)); }
    BadRecordPolicy policy() const override { return chosen; }
};

}  // namespace

TEST_CASE("a row whose expression fails goes to the bad-record policy and the batch goes on") {
    auto h = make({rule(kTable.str(), "col1, 10 / CAST(col2 AS INT) AS q")});
    KeepingSink sink(BadRecordPolicy::Skip);
    h.op->set_bad_records(&sink);
    auto out = h.run({Event(CreateTableEvent{kTable, customers()}),
                      Event(DataChangeEvent::insert(kTable, srow({"1", "5", nullptr}))),
                      Event(DataChangeEvent::insert(kTable, srow({"2", "0", "z"}))),
                      Event(DataChangeEvent::insert(kTable, srow({"3", "2", nullptr})))});
    REQUIRE(out.size() == 3);
    CHECK_THAT(out[1], Catch::Contains("after=[1, 2]"));
    CHECK_THAT(out[2], Catch::Contains("after=[3, 5]"));
    REQUIRE(sink.kept.size() == 1);
    const BadRecord& bad = sink.kept[0];
    CHECK(bad.reason == "eval-error");
    CHECK_THAT(bad.position, Catch::Contains("p.yaml:10:5") && Catch::Contains("{col1=2}") &&
                                 Catch::Contains("my_company.my_branch.customers"));
    CHECK_THAT(bad.error, Catch::Contains("/ by zero"));
    CHECK(bad.raw == R"({"table":"my_company.my_branch.customers","op":"+I",)"
                     R"("row":{"col1":"2","col2":"0","col12":"z"}})");
}

TEST_CASE("under policy fail, or with no policy, a failing row stops the transform") {
    auto h = make({rule(kTable.str(), "col1, 10 / CAST(col2 AS INT) AS q")});
    h.run({Event(CreateTableEvent{kTable, customers()})});
    auto bad_row = [] { return Event(DataChangeEvent::insert(kTable, srow({"2", "0", nullptr}))); };
    CHECK_THROWS_AS(h.run({bad_row()}), RowEvaluationError);
    KeepingSink sink(BadRecordPolicy::Fail);
    h.op->set_bad_records(&sink);
    CHECK_THROWS_WITH(h.run({bad_row()}),
                      Catch::Contains("{col1=2}") && Catch::Contains("/ by zero"));
    CHECK(sink.kept.empty());
}

namespace {

// A connector's function that fails with something other than EvalError.
Datum throw_length_error(const Node&, EvalContext&) {
    throw std::length_error("too long");
}
NodePtr build_test_unexpected(CallSite& c) {
    return make_node(&throw_length_error, DataType::string(), std::move(c.args));
}

}  // namespace

TransformFunctions unexpected_failure() {
    return {TransformFunction{"TEST_UNEXPECTED_FAILURE", &build_test_unexpected, true, nullptr}};
}

TEST_CASE("a row whose function fails with any exception goes to the bad-record policy") {
    auto h = make({rule(kTable.str(), "col1, TEST_UNEXPECTED_FAILURE(col2) AS q")}, "UTC",
                  unexpected_failure());
    KeepingSink sink(BadRecordPolicy::DeadLetter);
    h.op->set_bad_records(&sink);
    auto out = h.run({Event(CreateTableEvent{kTable, customers()}),
                      Event(DataChangeEvent::insert(kTable, srow({"1", "5", nullptr})))});
    REQUIRE(out.size() == 1);
    REQUIRE(sink.kept.size() == 1);
    CHECK_THAT(sink.kept[0].position, Catch::Contains("{col1=1}"));
    CHECK_THAT(sink.kept[0].error, Catch::Contains("TEST_UNEXPECTED_FAILURE(col2) AS q") &&
                                       Catch::Contains("unexpected error: too long"));
}

TEST_CASE("a connector's function is known only to the transforms of the pipeline declaring it") {
    // Declared for one operator (its pipeline's source added it)...
    CHECK_NOTHROW(make({rule(kTable.str(), "col1, TEST_UNEXPECTED_FAILURE(col2) AS q")}, "UTC",
                       unexpected_failure()));
    // ...and unknown to another, also after that one was created: nothing process-wide holds it.
    config::Diagnostics diags;
    auto other = TransformOperator::create(
        {rule(kTable.str(), "col1, TEST_UNEXPECTED_FAILURE(col2) AS q")}, "UTC", diags);
    REQUIRE_FALSE(diags.ok());
    CHECK_THAT(diags.to_string(), Catch::Contains("No match found for function signature "
                                                  "TEST_UNEXPECTED_FAILURE(...)"));
}

namespace {

// A function whose builder sees the context its pipeline gave it.
NodePtr build_context_length(CallSite& c) {
    auto node = make_node(
        [](const Node& n, EvalContext&) {
            return Datum::of_long(
                static_cast<std::int64_t>(static_cast<const std::string*>(n.state.get())->size()));
        },
        DataType::bigint(), std::move(c.args));
    node->state = c.context;
    return node;
}

}  // namespace

TEST_CASE("a connector's function works with the context its pipeline declared") {
    auto functions = [](std::string context) {
        return TransformFunctions{TransformFunction{"CONTEXT_LENGTH", &build_context_length, true,
                                                    std::make_shared<std::string>(context)}};
    };
    auto a = make({rule(kTable.str(), "col1, CONTEXT_LENGTH() AS n")}, "UTC", functions("abc"));
    auto b = make({rule(kTable.str(), "col1, CONTEXT_LENGTH() AS n")}, "UTC", functions("abcdefg"));
    auto events = [] {
        return std::vector<Event>{
            Event(CreateTableEvent{kTable, customers()}),
            Event(DataChangeEvent::insert(kTable, srow({"1", "5", nullptr})))};
    };
    auto out_a = a.run(events());
    auto out_b = b.run(events());
    REQUIRE(out_a.size() == 2);
    REQUIRE(out_b.size() == 2);
    CHECK_THAT(out_a[1], Catch::Contains("after=[1, 3]"));
    CHECK_THAT(out_b[1], Catch::Contains("after=[1, 7]"));
}

TEST_CASE("a fixed clock makes NOW(), LOCALTIMESTAMP and CURRENT_DATE read that instant") {
    auto h = make({rule(kTable.str(),
                        "col1, NOW() AS n, LOCALTIMESTAMP AS lt, CURRENT_DATE AS d, "
                        "DATE_FORMAT(LOCALTIMESTAMP, 'HH:mm') AS hm")},
                  "Asia/Shanghai");
    h.op->fix_clock(1'706'695'500'000);  // 2024-01-31T10:05:00Z
    auto out = h.run({Event(CreateTableEvent{kTable, customers()}),
                      Event(DataChangeEvent::insert(kTable, srow({"1", "2", nullptr}))),
                      Event(DataChangeEvent::insert(kTable, srow({"2", "2", nullptr})))});
    REQUIRE(out.size() == 3);
    CHECK(out[1] ==
          "DataChangeEvent{tableId=my_company.my_branch.customers, before=[], after=[1, "
          "2024-01-31T10:05, 2024-01-31T18:05, 2024-01-31, 18:05], op=INSERT, meta=()}");
    CHECK(out[2].find("after=[2, 2024-01-31T10:05, 2024-01-31T18:05,") != std::string::npos);
}

TEST_CASE(
    "the events of one batch read the clock as one instant, and the next batch reads it again") {
    auto h = make({rule(kTable.str(), "col1, UNIX_TIMESTAMP() AS s, NOW() AS n")});
    // Enough events that reading the clock per event would cross a millisecond boundary.
    std::vector<Event> batch{Event(CreateTableEvent{kTable, customers()})};
    for (int i = 0; i < 30000; ++i)
        batch.emplace_back(
            DataChangeEvent::insert(kTable, srow({std::to_string(i).c_str(), "2", nullptr})));
    auto out = h.run(std::move(batch));
    REQUIRE(out.size() == 30001);
    auto instant = [](const std::string& line) {  // "after=[i, s, n]": s and n
        auto open = line.find("after=[");
        return line.substr(line.find(',', open) + 1);
    };
    const std::string first = instant(out[1]);
    for (std::size_t i = 2; i < out.size(); ++i) REQUIRE(instant(out[i]) == first);

    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    auto later = h.run({Event(DataChangeEvent::insert(kTable, srow({"1", "2", nullptr})))});
    REQUIRE(later.size() == 1);
    CHECK(instant(later[0]) != first);
}

TEST_CASE("upstream schemas: selected and passed-through tables, followed and restored") {
    auto h = make({rule("my_company.my_branch.customers", "col1, UPPER(col2) AS up")});
    const TableId other = TableId::of("my_company", "my_branch", "orders");
    Schema orders = SchemaBuilder().column("id", DataType::bigint()).build();
    CHECK(h.op->upstream_schema(kTable) == nullptr);
    h.run({Event(CreateTableEvent{kTable, customers()}), Event(CreateTableEvent{other, orders})});
    REQUIRE(h.op->upstream_schema(kTable) != nullptr);
    CHECK(*h.op->upstream_schema(kTable) == customers());  // the source's, not the projection's
    REQUIRE(h.op->upstream_schema(other) != nullptr);
    CHECK(*h.op->upstream_schema(other) == orders);
    ColumnWithPosition note;
    note.column = Column{"note", DataType::string(), "", std::nullopt};
    AddColumnEvent add{other, {note}};
    h.run({Event(add)});
    CHECK(h.op->upstream_schema(other)->size() == 2);
    h.run({Event(DropTableEvent{other})});
    CHECK(h.op->upstream_schema(other) == nullptr);

    // A restore keeps the selected tables' schemas in the state; the others come back from the
    // schema operator's (which the transform passed untouched), selected tables ignored there.
    std::string state = h.op->snapshot_state();
    auto restored = make({rule("my_company.my_branch.customers", "col1, UPPER(col2) AS up")});
    restored.op->restore(state);
    restored.op->restore_unselected({{other, orders}, {kTable, orders}});
    REQUIRE(restored.op->upstream_schema(kTable) != nullptr);
    CHECK(*restored.op->upstream_schema(kTable) == customers());
    REQUIRE(restored.op->upstream_schema(other) != nullptr);
    CHECK(*restored.op->upstream_schema(other) == orders);
}
