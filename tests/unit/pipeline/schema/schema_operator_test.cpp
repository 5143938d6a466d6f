#include "pipeline/schema/schema_operator.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <variant>

#include "pipeline/data/field_format.h"
#include "pipeline/data/temporal.h"
#include "pipeline/event/event_format.h"
#include "pipeline/schema/schema_change_apply.h"

using namespace cdcd;
using B = SchemaChangeBehavior;
using P = ColumnWithPosition::Position;

namespace {

using V = std::variant<std::monostate, long long, double, std::string>;

// A row of `schema` from test values: integers, doubles, or text for strings, decimals and
// timestamps.
Row row(const Schema& schema, std::vector<V> values) {
    RowBuilder b(schema.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        const DataType& t = schema.columns()[i].type;
        if (std::holds_alternative<std::monostate>(values[i])) continue;
        if (auto* l = std::get_if<long long>(&values[i])) {
            b.set_long(i, *l);
        } else if (auto* d = std::get_if<double>(&values[i])) {
            b.set_double(i, *d);
        } else {
            const std::string& s = std::get<std::string>(values[i]);
            if (t.root() == TypeRoot::Decimal) {
                Decimal dec;
                REQUIRE(Decimal::parse(s, t.scale(), dec));
                b.set_decimal(i, dec);
            } else if (t.is_timestamp()) {
                b.set_timestamp(i, *temporal::parse_timestamp(s));
            } else {
                b.set_string(i, s);
            }
        }
    }
    return std::move(b).build();
}

class RecordingApplier : public MetadataApplier {
  public:
    enum class Mode { Accept, RejectAllButCreate, Fail };
    Mode mode = Mode::Accept;
    std::vector<std::string> applied;

    boost::asio::awaitable<void> apply(const SchemaChangeEvent& e) override {
        bool create = std::holds_alternative<CreateTableEvent>(e);
        if (mode == Mode::RejectAllButCreate && !create)
            throw UnsupportedSchemaChange("values sink rejects schema changes");
        if (mode == Mode::Fail && !create) throw std::runtime_error("sink is down");
        applied.push_back(format_schema_change(e));
        co_return;
    }
};

void run(boost::asio::awaitable<void> task) {
    boost::asio::io_context io;
    std::exception_ptr error;
    boost::asio::co_spawn(io, std::move(task), [&](std::exception_ptr e) { error = e; });
    io.run();
    if (error) std::rethrow_exception(error);
}

// A pipeline stage under test plus a values-like sink that prints what it receives.
struct Harness {
    RecordingApplier applier;
    EventBatch delivered;  // what the sink writers got, flushed batches and final output
    int flushes = 0;
    std::unique_ptr<SchemaOperator> op;

    explicit Harness(B behavior, std::vector<config::RouteDef> routes = {},
                     RouteMode mode = RouteMode::AllMatch,
                     std::optional<SchemaChangeFilter> filter = std::nullopt,
                     std::string zone = "UTC") {
        config::Diagnostics diags;
        Router router = Router::create(routes, mode, diags);
        REQUIRE(diags.ok());
        if (!filter) filter = SchemaChangeFilter::create({}, {}, false, behavior, diags, {});
        op = std::make_unique<SchemaOperator>(
            std::move(router), behavior, *filter, applier,
            [this](EventBatch& pending, const SchemaChangeEvent&) -> boost::asio::awaitable<void> {
                ++flushes;
                for (auto& e : pending) delivered.push_back(std::move(e));
                pending.clear();
                co_return;
            },
            zone);
    }

    void feed(std::vector<Event> events) {
        EventBatch in = std::move(events), out;
        run(op->process(in, out));
        CHECK(in.empty());
        for (auto& e : out) delivered.push_back(std::move(e));
    }

    // Values-sink style output, reading rows with the schema the sink has at that point.
    std::vector<std::string> printed() const {
        std::unordered_map<TableId, Schema> schemas;
        std::vector<std::string> lines;
        for (const Event& e : delivered) {
            if (auto* d = std::get_if<DataChangeEvent>(&e)) {
                lines.push_back(format_data_change(*d, schemas.at(d->table)));
            } else {
                auto sc = *as_schema_change(e);
                lines.push_back(format_schema_change(sc));
                auto it = schemas.find(table_of(sc));
                schemas[table_of(sc)] =
                    apply_schema_change(it == schemas.end() ? Schema() : it->second, sc);
            }
        }
        return lines;
    }
};

config::RouteDef route(std::string source, std::string sink) {
    config::RouteDef d;
    d.source_table = std::move(source);
    d.sink_table = std::move(sink);
    d.where = {"p.yaml", 1, 1};
    return d;
}

// Schema evolution E2E case (SchemaEvolveE2eITCase): MySQL table members.
const TableId kMembers = TableId::of("mydb", "members");
const Schema kS0 = SchemaBuilder()
                       .column("id", DataType::int_().not_null())
                       .column("name", DataType::varchar(17))
                       .column("age", DataType::int_())
                       .primary_key({"id"})
                       .build();

std::vector<Event> members_events() {
    Schema s1 = SchemaBuilder()
                    .column("id", DataType::int_().not_null())
                    .column("name", DataType::varchar(17))
                    .column("age", DataType::int_())
                    .column("gender", DataType::tinyint())
                    .build();
    Schema s2 = SchemaBuilder()
                    .column("id", DataType::int_().not_null())
                    .column("name", DataType::varchar(17))
                    .column("precise_age", DataType::double_())
                    .build();
    std::vector<Event> events;
    events.emplace_back(CreateTableEvent{kMembers, kS0});
    events.emplace_back(AddColumnEvent{
        kMembers, {{Column{"gender", DataType::tinyint(), "", {}}, P::After, "age"}}});
    events.emplace_back(DataChangeEvent::insert(kMembers, row(s1, {1012LL, "Eve", 17LL, 0LL})));
    // ALTER TABLE members CHANGE age precise_age DOUBLE: old types left for the operator to fill.
    events.emplace_back(AlterColumnTypeEvent{kMembers, {{"age", DataType::double_()}}, {}, {}});
    events.emplace_back(RenameColumnEvent{kMembers, {{"age", "precise_age"}}});
    events.emplace_back(RenameColumnEvent{kMembers, {{"gender", "biological_sex"}}});
    events.emplace_back(DropColumnEvent{kMembers, {"biological_sex"}});
    events.emplace_back(DataChangeEvent::insert(kMembers, row(s2, {1013LL, "Fiona", 16.0})));
    events.emplace_back(TruncateTableEvent{kMembers});
    events.emplace_back(DataChangeEvent::insert(kMembers, row(s2, {1014LL, "Gem", 17.0})));
    events.emplace_back(DropTableEvent{kMembers});
    return events;
}

const std::string kCreate =
    "CreateTableEvent{tableId=mydb.members, schema=columns={`id` INT NOT NULL,`name` "
    "VARCHAR(17),`age` INT}, primaryKeys=id, options=()}";
std::string insert(const std::string& values) {
    return "DataChangeEvent{tableId=mydb.members, before=[], after=[" + values +
           "], op=INSERT, meta=()}";
}
std::string add_last(const std::string& column) {
    return "AddColumnEvent{tableId=mydb.members, addedColumns=[ColumnWithPosition{column=" +
           column + ", position=LAST, existedColumnName=null}]}";
}
const std::string kAlterAge =
    "AlterColumnTypeEvent{tableId=mydb.members, typeMapping={age=DOUBLE}, "
    "oldTypeMapping={age=INT}, "
    "comments={}}";

}  // namespace

TEST_CASE("EVOLVE forwards every schema change", "[schema_operator]") {
    Harness h(B::Evolve);
    h.feed(members_events());
    std::vector<std::string> expected = {
        kCreate,
        "AddColumnEvent{tableId=mydb.members, addedColumns=[ColumnWithPosition{column=`gender` "
        "TINYINT, position=AFTER, existedColumnName=age}]}",
        insert("1012, Eve, 17, 0"),
        kAlterAge,
        "RenameColumnEvent{tableId=mydb.members, nameMapping={age=precise_age}}",
        "RenameColumnEvent{tableId=mydb.members, nameMapping={gender=biological_sex}}",
        "DropColumnEvent{tableId=mydb.members, droppedColumnNames=[biological_sex]}",
        insert("1013, Fiona, 16.0"),
        "TruncateTableEvent{tableId=mydb.members}",
        insert("1014, Gem, 17.0"),
        "DropTableEvent{tableId=mydb.members}",
    };
    CHECK(h.printed() == expected);
    CHECK(h.applier.applied.size() == 8);
    CHECK(h.flushes == 8);  // one flush before each applied schema change
    CHECK(h.op->sink_schema(kMembers)->to_string() ==
          "columns={`id` INT NOT NULL,`name` VARCHAR(17),`precise_age` DOUBLE}, primaryKeys=id, "
          "options=()");
}

TEST_CASE("LENIENT keeps columns, appends nullable ones, skips truncate and drop table",
          "[schema_operator]") {
    Harness h(B::Lenient);
    h.feed(members_events());
    std::vector<std::string> expected = {
        kCreate,
        add_last("`gender` TINYINT"),
        insert("1012, Eve, 17, 0"),
        kAlterAge,
        add_last("`precise_age` DOUBLE"),
        add_last("`biological_sex` TINYINT"),
        insert("1013, Fiona, null, null, 16.0, null"),
        insert("1014, Gem, null, null, 17.0, null"),
    };
    CHECK(h.printed() == expected);
}

TEST_CASE("LENIENT makes dropped and renamed NOT NULL columns nullable", "[schema_operator]") {
    Harness h(B::Lenient);
    TableId t = TableId::of("t");
    Schema s = SchemaBuilder()
                   .column("k", DataType::int_().not_null())
                   .column("a", DataType::int_().not_null())
                   .column("b", DataType::varchar(5).not_null())
                   .build();
    h.feed({CreateTableEvent{t, s}, DropColumnEvent{t, {"a"}}, RenameColumnEvent{t, {{"b", "c"}}},
            AddColumnEvent{
                t, {{Column{"n", DataType::bigint().not_null(), "note", "0"}, P::First, ""}}}});
    auto lines = h.printed();
    REQUIRE(lines.size() == 5);
    CHECK(lines[1] ==
          "AlterColumnTypeEvent{tableId=t, typeMapping={a=INT}, oldTypeMapping={a=INT NOT NULL}, "
          "comments={}}");
    CHECK(lines[2] ==
          "AddColumnEvent{tableId=t, addedColumns=[ColumnWithPosition{column=`c` "
          "VARCHAR(5), position=LAST, existedColumnName=null}]}");
    CHECK(
        lines[3] ==
        "AlterColumnTypeEvent{tableId=t, typeMapping={b=VARCHAR(5)}, oldTypeMapping={b=VARCHAR(5) "
        "NOT NULL}, comments={}}");
    // The comment prints before the default value (Flink CDC's Column#asSummaryString).
    CHECK(lines[4] ==
          "AddColumnEvent{tableId=t, addedColumns=[ColumnWithPosition{column=`n` "
          "BIGINT 'note' '0', position=LAST, existedColumnName=null}]}");
}

TEST_CASE("IGNORE freezes the sink schema at CreateTable", "[schema_operator]") {
    Harness h(B::Ignore);
    h.feed(members_events());
    std::vector<std::string> expected = {kCreate, insert("1012, Eve, 17"),
                                         insert("1013, Fiona, null"), insert("1014, Gem, null")};
    CHECK(h.printed() == expected);
    CHECK(h.flushes == 1);
}

TEST_CASE("TRY_EVOLVE tolerates a sink that rejects schema changes", "[schema_operator]") {
    Harness h(B::TryEvolve);
    h.applier.mode = RecordingApplier::Mode::RejectAllButCreate;
    h.feed(members_events());
    std::vector<std::string> expected = {kCreate, insert("1012, Eve, 17"),
                                         insert("1013, Fiona, null"), insert("1014, Gem, null")};
    CHECK(h.printed() == expected);
    CHECK(h.applier.applied == std::vector<std::string>{kCreate});
}

TEST_CASE("other behaviors fail on a rejected or failing schema change", "[schema_operator]") {
    for (auto mode : {RecordingApplier::Mode::RejectAllButCreate, RecordingApplier::Mode::Fail}) {
        for (B behavior : {B::Evolve, B::Lenient, B::TryEvolve}) {
            if (behavior == B::TryEvolve && mode == RecordingApplier::Mode::RejectAllButCreate)
                continue;
            Harness h(behavior);
            h.applier.mode = mode;
            CHECK_THROWS_WITH(h.feed(members_events()),
                              Catch::Contains("Failed to apply schema change AddColumnEvent") &&
                                  Catch::Contains("mydb.members"));
        }
    }
}

TEST_CASE("EXCEPTION fails on the first schema change after CreateTable", "[schema_operator]") {
    Harness h(B::Exception);
    CHECK_THROWS_WITH(
        h.feed(members_events()),
        Catch::Contains("Unexpected schema change events occurred in EXCEPTION mode") &&
            Catch::Contains("AddColumnEvent{tableId=mydb.members"));
    CHECK(h.applier.applied == std::vector<std::string>{kCreate});
}

TEST_CASE("data before its CreateTableEvent or to an uncreated sink table fails",
          "[schema_operator]") {
    Harness h(B::Evolve);
    CHECK_THROWS_WITH(h.feed({DataChangeEvent::insert(kMembers, row(kS0, {1LL, "a", 2LL}))}),
                      Catch::Contains("mydb.members"));
    Harness excluded(B::Evolve, {}, RouteMode::AllMatch, [] {
        config::Diagnostics d;
        return SchemaChangeFilter::create({}, {"create.table"}, true, B::Evolve, d, {});
    }());
    CHECK_THROWS_WITH(excluded.feed({CreateTableEvent{kMembers, kS0},
                                     DataChangeEvent::insert(kMembers, row(kS0, {1LL, "a", 2LL}))}),
                      Catch::Contains("Unable to coerce data record from mydb.members"));
}

TEST_CASE("one-to-one routing rewrites table ids, identical schemas pass rows untouched",
          "[schema_operator]") {
    config::RouteDef d = route("mydb.\\.*", "ods.<>");
    d.replace_symbol = "<>";
    Harness r(B::Evolve, {d});
    Row data = row(kS0, {7LL, "long enough name to live on the heap", 30LL});
    const char* bytes = data.bytes().data();
    std::vector<Event> events;  // not an initializer_list: that would copy the row
    events.emplace_back(CreateTableEvent{kMembers, kS0});
    events.emplace_back(DataChangeEvent::insert(kMembers, std::move(data)));
    r.feed(std::move(events));
    REQUIRE(r.delivered.size() == 2);
    auto& out = std::get<DataChangeEvent>(r.delivered[1]);
    CHECK(out.table == TableId::of("ods", "members"));
    CHECK(out.after->bytes().data() == bytes);  // moved, not copied
    CHECK(r.printed()[0].rfind("CreateTableEvent{tableId=ods.members,", 0) == 0);
    CHECK(r.op->sink_schema(TableId::of("ods", "members")) != nullptr);
    CHECK(r.op->upstream_schema(kMembers) != nullptr);
}

TEST_CASE("many-to-one routing merges schemas and coerces data", "[schema_operator]") {
    Harness h(B::Evolve, {route("db.t\\.*", "db.merged")});
    TableId t1 = TableId::of("db", "t1"), t2 = TableId::of("db", "t2");
    Schema s1 = SchemaBuilder()
                    .column("id", DataType::int_().not_null())
                    .column("name", DataType::varchar(10))
                    .primary_key({"id"})
                    .build();
    Schema s2 = SchemaBuilder()
                    .column("id", DataType::bigint().not_null())
                    .column("name", DataType::varchar(20))
                    .column("price", DataType::double_())
                    .primary_key({"id"})
                    .build();
    Schema s1_dropped =
        SchemaBuilder().column("id", DataType::int_().not_null()).primary_key({"id"}).build();
    h.feed({CreateTableEvent{t1, s1}, DataChangeEvent::insert(t1, row(s1, {1LL, "a"})),
            CreateTableEvent{t2, s2}, DataChangeEvent::insert(t2, row(s2, {2LL, "bb", 9.5})),
            DataChangeEvent::insert(t1, row(s1, {3LL, "c"})),
            DataChangeEvent::update(t1, row(s1, {3LL, "c"}), row(s1, {3LL, "d"})),
            DropColumnEvent{t1, {"name"}}, DataChangeEvent::insert(t1, row(s1_dropped, {4LL})),
            AddColumnEvent{t1, {{Column{"extra", DataType::int_(), "", {}}, P::Last, ""}}}});
    std::vector<std::string> expected = {
        "CreateTableEvent{tableId=db.merged, schema=columns={`id` INT NOT NULL,`name` "
        "VARCHAR(10)}, "
        "primaryKeys=id, options=()}",
        "DataChangeEvent{tableId=db.merged, before=[], after=[1, a], op=INSERT, meta=()}",
        "AddColumnEvent{tableId=db.merged, addedColumns=[ColumnWithPosition{column=`price` DOUBLE, "
        "position=AFTER, existedColumnName=name}]}",
        "AlterColumnTypeEvent{tableId=db.merged, typeMapping={name=STRING, id=BIGINT NOT NULL}, "
        "oldTypeMapping={name=VARCHAR(10), id=INT NOT NULL}, comments={}}",
        "DataChangeEvent{tableId=db.merged, before=[], after=[2, bb, 9.5], op=INSERT, meta=()}",
        "DataChangeEvent{tableId=db.merged, before=[], after=[3, c, null], op=INSERT, meta=()}",
        "DataChangeEvent{tableId=db.merged, before=[3, c, null], after=[3, d, null], op=UPDATE, "
        "meta=()}",
        // Dropping t1.name changes nothing: t2 still has it.
        "DataChangeEvent{tableId=db.merged, before=[], after=[4, null, null], op=INSERT, meta=()}",
        "AddColumnEvent{tableId=db.merged, addedColumns=[ColumnWithPosition{column=`extra` INT, "
        "position=AFTER, existedColumnName=price}]}",
    };
    CHECK(h.printed() == expected);
}

TEST_CASE("ALL_MATCH duplicates data to every target, FIRST_MATCH to the first",
          "[schema_operator]") {
    std::vector<config::RouteDef> routes = {route("db.t1", "a.x"), route("db.\\.*", "b.y"),
                                            route("db.t1", "a.x")};
    TableId t1 = TableId::of("db", "t1");
    Schema s = SchemaBuilder().column("id", DataType::int_()).build();
    auto events = [&] {
        std::vector<Event> e;
        e.emplace_back(CreateTableEvent{t1, s});
        e.emplace_back(DataChangeEvent::insert(t1, row(s, {1LL})));
        return e;
    };
    Harness all(B::Evolve, routes);
    all.feed(events());
    std::vector<std::string> expected_all = {
        "CreateTableEvent{tableId=a.x, schema=columns={`id` INT}, primaryKeys=, options=()}",
        "CreateTableEvent{tableId=b.y, schema=columns={`id` INT}, primaryKeys=, options=()}",
        "DataChangeEvent{tableId=a.x, before=[], after=[1], op=INSERT, meta=()}",
        "DataChangeEvent{tableId=b.y, before=[], after=[1], op=INSERT, meta=()}",
        "DataChangeEvent{tableId=a.x, before=[], after=[1], op=INSERT, meta=()}",
    };
    CHECK(all.printed() == expected_all);

    Harness first(B::Evolve, routes, RouteMode::FirstMatch);
    first.feed(events());
    std::vector<std::string> expected_first = {
        "CreateTableEvent{tableId=a.x, schema=columns={`id` INT}, primaryKeys=, options=()}",
        "DataChangeEvent{tableId=a.x, before=[], after=[1], op=INSERT, meta=()}",
    };
    CHECK(first.printed() == expected_first);
}

TEST_CASE("include / exclude filtering drops events but still coerces data", "[schema_operator]") {
    config::Diagnostics d;
    TableId t = TableId::of("t");
    Schema s = SchemaBuilder()
                   .column("id", DataType::int_())
                   .column("a", DataType::string())
                   .column("b", DataType::string())
                   .build();
    Schema s_dropped =
        SchemaBuilder().column("id", DataType::int_()).column("a", DataType::string()).build();
    Harness h(B::Evolve, {}, RouteMode::AllMatch,
              SchemaChangeFilter::create({}, {"drop.column"}, true, B::Evolve, d, {}));
    h.feed({CreateTableEvent{t, s}, DropColumnEvent{t, {"b"}},
            DataChangeEvent::insert(t, row(s_dropped, {1LL, "x"})),
            RenameColumnEvent{t, {{"a", "c"}}}});
    std::vector<std::string> expected = {
        "CreateTableEvent{tableId=t, schema=columns={`id` INT,`a` STRING,`b` STRING}, "
        "primaryKeys=, "
        "options=()}",
        "DataChangeEvent{tableId=t, before=[], after=[1, x, null], op=INSERT, meta=()}",
        "RenameColumnEvent{tableId=t, nameMapping={a=c}}",
    };
    CHECK(h.printed() == expected);
    CHECK(h.flushes == 2);

    Harness only_add(B::Evolve, {}, RouteMode::AllMatch,
                     SchemaChangeFilter::create({"add.column"}, {}, false, B::Evolve, d, {}));
    only_add.feed({CreateTableEvent{t, s}, RenameColumnEvent{t, {{"a", "c"}}}});
    CHECK(only_add.printed().size() == 1);  // create.table was added automatically
}

TEST_CASE("redundant CreateTableEvents are dropped, state restores", "[schema_operator]") {
    Harness h(B::Evolve, {route("mydb.\\.*", "ods.all")});
    h.feed({CreateTableEvent{kMembers, kS0}, CreateTableEvent{kMembers, kS0}});
    CHECK(h.printed().size() == 1);
    CHECK(h.flushes == 1);
    std::string state = h.op->snapshot_state();

    Harness r(B::Evolve, {route("mydb.\\.*", "ods.all")});
    r.op->restore(state);
    REQUIRE(r.op->sink_schema(TableId::of("ods", "all")) != nullptr);
    CHECK(*r.op->sink_schema(TableId::of("ods", "all")) == kS0);
    CHECK(*r.op->upstream_schema(kMembers) == kS0);
    r.feed({CreateTableEvent{kMembers, kS0},
            DataChangeEvent::insert(kMembers, row(kS0, {1LL, "a", 2LL}))});
    REQUIRE(r.delivered.size() == 1);
    CHECK(r.flushes == 0);
    CHECK(r.applier.applied.empty());
    CHECK(format_data_change(std::get<DataChangeEvent>(r.delivered[0]), kS0) ==
          "DataChangeEvent{tableId=ods.all, before=[], after=[1, a, 2], op=INSERT, meta=()}");
    CHECK(r.op->snapshot_state() == state);
    CHECK_THROWS_AS(r.op->restore("{\"upstream\":[]}"), SchemaEvolveError);
}

// The pipeline's routes changed between two runs: the source does not send CreateTableEvents
// again after a restore, so the sink tables the new routes name are derived from the restored
// upstream schemas before the first data reaches them.
TEST_CASE("a route changed between runs creates its sink table from the restored schema",
          "[schema_operator]") {
    Harness h(B::Lenient);
    h.feed({CreateTableEvent{kMembers, kS0},
            DataChangeEvent::insert(kMembers, row(kS0, {1LL, "a", 2LL}))});
    std::string state = h.op->snapshot_state();

    const TableId renamed = TableId::of("ods", "members_v2");
    Harness r(B::Lenient, {route("mydb.members", "ods.members_v2")});
    r.op->restore(state);
    r.feed({DataChangeEvent::insert(kMembers, row(kS0, {2LL, "b", 3LL}))});
    REQUIRE(r.delivered.size() == 2);
    auto* create = std::get_if<CreateTableEvent>(&r.delivered[0]);
    REQUIRE(create);
    CHECK(create->table == renamed);
    CHECK(create->schema == kS0);
    CHECK(r.applier.applied.size() == 1);
    CHECK(std::get<DataChangeEvent>(r.delivered[1]).table == renamed);
    REQUIRE(r.op->sink_schema(renamed) != nullptr);

    // Derived once: the next batch goes straight through.
    r.feed({DataChangeEvent::insert(kMembers, row(kS0, {3LL, "c", 4LL}))});
    CHECK(r.delivered.size() == 3);
    CHECK(r.applier.applied.size() == 1);
}

TEST_CASE("a route that now merges more tables widens its sink table after a restore",
          "[schema_operator]") {
    const TableId a = TableId::of("mydb", "a"), b = TableId::of("mydb", "b");
    const Schema sa = SchemaBuilder()
                          .column("id", DataType::int_().not_null())
                          .column("name", DataType::string())
                          .primary_key({"id"})
                          .build();
    const Schema sb = SchemaBuilder()
                          .column("id", DataType::int_().not_null())
                          .column("age", DataType::int_())
                          .primary_key({"id"})
                          .build();
    Harness h(B::Lenient, {route("mydb.a", "ods.all")});
    h.feed({CreateTableEvent{a, sa}, CreateTableEvent{b, sb}});
    std::string state = h.op->snapshot_state();

    const TableId all = TableId::of("ods", "all");
    SECTION("lenient: the missing column is added") {
        Harness r(B::Lenient, {route("mydb.\\.*", "ods.all")});
        r.op->restore(state);
        r.feed({DataChangeEvent::insert(b, row(sb, {1LL, 30LL}))});
        REQUIRE(r.op->sink_schema(all) != nullptr);
        CHECK(r.op->sink_schema(all)->find("age") != nullptr);
        CHECK(r.applier.applied.size() == 1);
        CHECK(std::get<DataChangeEvent>(r.delivered.back()).table == all);
    }
    SECTION("exception: refused, naming the table and the changed routes") {
        Harness r(B::Exception, {route("mydb.\\.*", "ods.all")});
        r.op->restore(state);
        CHECK_THROWS_WITH(r.feed({DataChangeEvent::insert(b, row(sb, {1LL, 30LL}))}),
                          Catch::Contains("Table ods.all") &&
                              Catch::Contains("routes changed since the restored checkpoint"));
    }
}

TEST_CASE("row coercion widens by name, converts like coerceObject", "[schema_operator]") {
    Schema up = SchemaBuilder()
                    .column("i", DataType::int_())
                    .column("b", DataType::bytes())
                    .column("d", DataType::date())
                    .column("l", DataType::timestamp_ltz(3))
                    .column("s", DataType::string())
                    .column("dec", DataType::decimal(5, 2))
                    .column("f", DataType::float_())
                    .column("t", DataType::timestamp(3))
                    .column("extra", DataType::int_())
                    .build();
    Schema sink = SchemaBuilder()
                      .column("missing", DataType::int_())
                      .column("i", DataType::string())
                      .column("b", DataType::string())
                      .column("d", DataType::timestamp(3))
                      .column("l", DataType::timestamp(3))
                      .column("s", DataType::int_())
                      .column("dec", DataType::decimal(10, 3))
                      .column("f", DataType::double_())
                      .column("t", DataType::timestamp_tz(3))
                      .build();
    RowCoercion c(up, sink, *TimeZone::of("Asia/Shanghai"));
    CHECK_FALSE(c.identity());
    RowBuilder b(up.size());
    b.set_long(0, 42).set_bytes(1, "hi").set_long(2, *temporal::parse_date("2024-01-02"));
    b.set_timestamp(3, *temporal::parse_timestamp("2024-01-01T00:00:00Z"));
    b.set_string(4, "7");
    Decimal dec;
    REQUIRE(Decimal::parse("123.45", 2, dec));
    b.set_decimal(5, dec).set_double(6, 1.5);
    b.set_timestamp(7, *temporal::parse_timestamp("2024-01-01 10:00:00")).set_long(8, 9);
    Row out = c.coerce(std::move(b).build().view());
    CHECK(format_row(out.view(), sink) ==
          "[null, 42, aGk=, 2024-01-02T00:00, 2024-01-01T08:00, null, 123.450, 1.5, "
          "2024-01-01T18:00:00+08:00]");
    CHECK(RowCoercion(up, up, TimeZone::utc()).identity());
}

// A batch of data whose tables each go to one sink table is routed where it is and handed over
// whole; a schema change or a table with several targets in the batch still sees the events
// before it flushed first, in order.
TEST_CASE("data routed in place keeps its order around schema changes and duplicated tables",
          "[schema_operator]") {
    std::vector<config::RouteDef> routes = {route("db.one", "s.one"), route("db.two", "s.a"),
                                            route("db.two", "s.b")};
    TableId one = TableId::of("db", "one");
    TableId two = TableId::of("db", "two");
    Schema s = SchemaBuilder().column("id", DataType::int_()).build();
    Harness h(B::Evolve, routes);
    std::vector<Event> creates;
    creates.emplace_back(CreateTableEvent{one, s});
    creates.emplace_back(CreateTableEvent{two, s});
    h.feed(std::move(creates));
    const int flushes_after_creates = h.flushes;
    h.delivered.clear();

    // Only single-target data: handed over whole, rows moved, not copied.
    Row first = row(s, {1LL});
    std::vector<Event> data;
    data.emplace_back(DataChangeEvent::insert(one, std::move(first)));
    data.emplace_back(DataChangeEvent::insert(one, row(s, {2LL})));
    const char* bytes = std::get<DataChangeEvent>(data[0]).after->bytes().data();
    h.feed(std::move(data));
    REQUIRE(h.delivered.size() == 2);
    CHECK(std::get<DataChangeEvent>(h.delivered[0]).after->bytes().data() == bytes);

    // Then a table with two targets, a schema change, and data after it.
    std::vector<Event> mixed;
    mixed.emplace_back(DataChangeEvent::insert(one, row(s, {3LL})));
    mixed.emplace_back(DataChangeEvent::insert(two, row(s, {4LL})));
    mixed.emplace_back(DataChangeEvent::insert(one, row(s, {5LL})));
    Column note;
    note.name = "note";
    note.type = DataType::string();
    AddColumnEvent add{one, {}};
    add.added.push_back({note, ColumnWithPosition::Position::Last, ""});
    mixed.emplace_back(add);
    RowBuilder b(2);
    b.set_long(0, 6).set_string(1, "n");
    mixed.emplace_back(DataChangeEvent::insert(one, std::move(b).build()));
    h.feed(std::move(mixed));
    CHECK(h.flushes == flushes_after_creates + 1);
    std::vector<std::string> lines;
    for (const Event& e : h.delivered) {
        if (const auto* d = std::get_if<DataChangeEvent>(&e))
            lines.push_back(d->table.str() + " " + std::to_string(d->after->view().get_long(0)));
        else
            lines.push_back("change " + table_of(e).str());
    }
    CHECK(lines == std::vector<std::string>{"s.one 1", "s.one 2", "s.one 3", "s.a 4", "s.b 4",
                                            "s.one 5", "change s.one", "s.one 6"});
}

TEST_CASE("unchanged routes: the tables whose rows reach one sink table as they are",
          "[schema_operator]") {
    // db.t1 → db.merged and db.t2 → db.merged (merged schemas), db.same → db.same, db.dup to
    // two tables (ALL_MATCH), db.renamed → db.other.
    Harness h(B::Evolve, {route("db.t\\.*", "db.merged"), route("db.dup", "a.x"),
                          route("db.dup", "b.y"), route("db.renamed", "db.other")});
    TableId t1 = TableId::of("db", "t1"), t2 = TableId::of("db", "t2");
    TableId same = TableId::of("db", "same"), dup = TableId::of("db", "dup");
    TableId renamed = TableId::of("db", "renamed");
    Schema narrow = SchemaBuilder().column("id", DataType::int_().not_null()).build();
    Schema wide = SchemaBuilder()
                      .column("id", DataType::int_().not_null())
                      .column("name", DataType::string())
                      .build();
    std::uint64_t version = h.op->schema_version();
    CHECK(h.op->unchanged_routes()->sink_of(same) == nullptr);  // unknown yet

    h.feed({CreateTableEvent{t1, narrow}, CreateTableEvent{same, wide}, CreateTableEvent{dup, wide},
            CreateTableEvent{renamed, narrow}});
    CHECK(h.op->schema_version() > version);
    auto routes = h.op->unchanged_routes();
    REQUIRE(routes->sink_of(t1) != nullptr);
    CHECK(*routes->sink_of(t1) == TableId::of("db", "merged"));
    REQUIRE(routes->sink_of(same) != nullptr);
    CHECK(*routes->sink_of(same) == same);
    CHECK(routes->sink_schema(same)->size() == 2);
    REQUIRE(routes->sink_of(renamed) != nullptr);
    CHECK(*routes->sink_of(renamed) == TableId::of("db", "other"));
    CHECK(routes->sink_of(dup) == nullptr);  // two sink tables: copies, on the loop

    // db.t2 widens db.merged: db.t1's rows now need coercion, db.t2's do not.
    version = h.op->schema_version();
    h.feed({CreateTableEvent{t2, wide}});
    CHECK(h.op->schema_version() > version);
    routes = h.op->unchanged_routes();
    CHECK(routes->sink_of(t1) == nullptr);
    REQUIRE(routes->sink_of(t2) != nullptr);
    CHECK(routes->sink_schema(TableId::of("db", "merged"))->size() == 2);

    // Data changes nothing; a restore counts as a change.
    version = h.op->schema_version();
    h.feed({DataChangeEvent::insert(same, row(wide, {1LL, "a"}))});
    CHECK(h.op->schema_version() == version);
    h.op->restore(h.op->snapshot_state());
    CHECK(h.op->schema_version() > version);
    CHECK(h.op->unchanged_routes()->sink_of(same) != nullptr);
}
