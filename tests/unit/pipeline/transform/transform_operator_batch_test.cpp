// Column-at-a-time transforms (compile/batch.h) against row-by-row ones: the same events out,
// the same rows to the bad-record policy, and a connector's function evaluated once per row.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "pipeline/event/event_format.h"
#include "pipeline/transform/functions/functions.h"
#include "pipeline/transform/transform_operator.h"

using namespace cdcd;
using namespace cdcd::transform;

namespace {

const TableId kTable = TableId::of("db", "shop", "orders");

Schema orders() {
    return SchemaBuilder()
        .column("id", DataType::bigint().not_null())
        .column("v", DataType::int_())
        .column("s", DataType::string())
        .primary_key({"id"})
        .build();
}

// Every third v and every fifth s NULL; s sometimes past ASCII.
Row order(std::int64_t id, std::int64_t version) {
    RowBuilder b(3);
    b.set_long(0, id);
    if ((id + version) % 3 == 0)
        b.set_null(1);
    else
        b.set_long(1, (id * 7 + version) % 11);
    if (id % 5 == 0)
        b.set_null(2);
    else
        b.set_string(2, id % 4 == 0 ? "héllo wörld" : "item-" + std::to_string(id * 13));
    return std::move(b).build();
}

// Inserts, updates and deletes in runs longer and shorter than one batch evaluates at once,
// with a schema-less event of another table between them.
std::vector<Event> events() {
    std::vector<Event> e;
    e.emplace_back(CreateTableEvent{kTable, orders()});
    for (std::int64_t id = 1; id <= 300; ++id)
        e.emplace_back(DataChangeEvent::insert(kTable, order(id, 0)));
    for (std::int64_t id = 1; id <= 300; id += 2)
        e.emplace_back(DataChangeEvent::update(kTable, order(id, 0), order(id, 1)));
    e.emplace_back(DataChangeEvent::insert(TableId::of("db", "shop", "other"), order(1, 0)));
    for (std::int64_t id = 1; id <= 300; id += 3)
        e.emplace_back(DataChangeEvent::remove(kTable, order(id, 1)));
    return e;
}

struct KeepingSink final : BadRecordSink {
    std::vector<BadRecord> kept;
    void handle(BadRecord r) override { kept.push_back(std::move(r)); }
    void skip(BadRecord r) override { kept.push_back(std::move(r)); }
    BadRecordPolicy policy() const override { return BadRecordPolicy::Skip; }
};

struct Outcome {
    std::vector<std::string> lines;
    std::vector<std::string> bad;  // position: error
};

// Gives every row of `events` room for 256 more bytes, so that a projection can be written over it.
void give_rows_room(std::vector<Event>& events) {
    auto grow = [](std::optional<Row>& row) {
        if (!row) return;
        std::string bytes = std::move(*row).release();
        bytes.reserve(bytes.size() + 256);
        row.emplace(std::move(bytes));
    };
    for (Event& e : events)
        if (auto* d = std::get_if<DataChangeEvent>(&e)) {
            grow(d->before);
            grow(d->after);
        }
}

// How the events go through the operator: into a new batch, or transformed where they are.
enum class Output { NewBatch, InPlace };

Outcome run(const config::TransformDef& rule, bool in_batches, TransformFunctions functions = {},
            bool rows_with_room = false, Output output = Output::NewBatch) {
    config::Diagnostics diags;
    auto op = TransformOperator::create({rule}, "UTC", diags, {}, DecimalPrecisionMode::UpTo19,
                                        std::move(functions));
    REQUIRE(diags.ok());
    op->evaluate_in_batches(in_batches);
    KeepingSink sink;
    op->set_bad_records(&sink);
    auto all = events();
    if (rows_with_room) give_rows_room(all);
    EventBatch in(std::make_move_iterator(all.begin()), std::make_move_iterator(all.end())), out;
    if (output == Output::InPlace) {
        // The CreateTableEvent first, then the data changes where they are.
        EventBatch create;
        create.push_back(std::move(in.front()));
        in.erase(in.begin());
        op->process(create, out);
        TransformOperator::RowBuffers buffers;
        const Event* vector_sent = in.data();
        op->process_in_place(in, &buffers);
        CHECK(in.data() == vector_sent);
        // Every input row is in an event kept, or handed back: dropped with its event, or
        // retired (the other half of an update the filter turned into an insert or a delete).
        // Projections written over their rows (`*` first, rows with room, column-at-a-time)
        // leave no more.
        std::size_t rows_in = 0, rows_out = 0;
        for (const Event& e : events())
            if (const auto* d = std::get_if<DataChangeEvent>(&e))
                rows_in += (d->before ? 1 : 0) + (d->after ? 1 : 0);
        for (const Event& e : in) {
            const auto& d = std::get<DataChangeEvent>(e);
            rows_out += (d.before ? 1 : 0) + (d.after ? 1 : 0);
        }
        // (`id, s` and `id, v`: some columns in their order, written over their rows too.)
        if (in_batches && rows_with_room &&
            (rule.projection.rfind("*, ", 0) == 0 || rule.projection == "*" ||
             rule.projection == "id, s" || rule.projection == "id, v"))
            CHECK(buffers.dropped.size() + buffers.retired.size() + rows_out == rows_in);
        else
            CHECK(buffers.dropped.size() + buffers.retired.size() + rows_out >= rows_in);
        out.insert(out.end(), std::make_move_iterator(in.begin()),
                   std::make_move_iterator(in.end()));
    } else {
        op->process(in, out);
    }
    Outcome o;
    Schema schema;
    for (const auto& e : out) {
        if (const auto* c = std::get_if<CreateTableEvent>(&e)) schema = c->schema;
        if (const auto* d = std::get_if<DataChangeEvent>(&e))
            o.lines.push_back(format_data_change(*d, d->table == kTable ? schema : orders()));
    }
    for (const auto& b : sink.kept) o.bad.push_back(b.position + ": " + b.error + " " + b.raw);
    return o;
}

config::TransformDef rule(std::string projection, std::string filter = "",
                          std::string converter = "") {
    config::TransformDef d;
    d.source_table = kTable.str();
    d.projection = std::move(projection);
    d.filter = std::move(filter);
    d.converter_after_transform = std::move(converter);
    d.where = {"p.yaml", 10, 5};
    d.projection_where = {"p.yaml", 11, 17};
    d.filter_where = {"p.yaml", 12, 13};
    return d;
}

}  // namespace

TEST_CASE("column-at-a-time and row by row, a transform gives the same events") {
    const std::string projection =
        "*, id * 2 + v AS score, UPPER(SUBSTR(s, 2, 4)) AS tag, "
        "CASE WHEN v > 5 THEN 'high' WHEN v IS NULL THEN 'none' ELSE 'low' END AS band, "
        "CONCAT(CAST(id AS STRING), '-', s, '-', CAST(v AS STRING), v + 1) AS k, "
        "CONCAT(CAST(id AS STRING), '/', CAST(v AS STRING), v * 3, '') AS ints, "
        "COALESCE(s, 'x') AS c, __data_event_type__ AS op, LOWER(s) AS low, v / 2 AS half";
    auto check = [](const config::TransformDef& r) {
        Outcome rows = run(r, false);
        Outcome batches = run(r, true);
        CHECK(batches.lines == rows.lines);
        CHECK(batches.bad == rows.bad);
        // Input rows with room: the projection written over them where it keeps `*` first.
        Outcome in_place = run(r, true, {}, true);
        CHECK(in_place.lines == rows.lines);
        CHECK(in_place.bad == rows.bad);
        // The events transformed where they are, column-at-a-time and row by row.
        for (bool in_batches : {true, false}) {
            Outcome kept_in_place = run(r, in_batches, {}, true, Output::InPlace);
            CHECK(kept_in_place.lines == rows.lines);
            CHECK(kept_in_place.bad == rows.bad);
        }
        return rows.lines.size();
    };
    SECTION("without a filter") {
        CHECK(check(rule(projection)) == 551);
    }
    SECTION("a filter that splits updates into deletes and inserts") {
        std::size_t n = check(rule(projection, "v % 3 <> 1 AND id > 2"));
        CHECK(n > 100);
        CHECK(n < 551);
    }
    SECTION("soft deletes") {
        check(rule(projection, "v IS NOT NULL OR id % 2 = 0", "SOFT_DELETE"));
    }
    SECTION("no computed column") {
        check(rule("s, id", "v > 3"));
        check(rule("*"));
    }
    SECTION("some columns in their order, written over their rows") {
        check(rule("id, s", "v % 3 <> 1 AND id > 2"));
        check(rule("id, v"));
        check(rule("id, s", "v IS NOT NULL OR id % 2 = 0", "SOFT_DELETE"));
    }
    SECTION("`*` alone, whose rows pass as they came, with a filter and with soft deletes") {
        check(rule("*", "v % 3 <> 1 AND id > 2"));
        check(rule("*", "v IS NOT NULL OR id % 2 = 0", "SOFT_DELETE"));
    }
    SECTION("a CASE whose branches fail where they are not taken") {
        check(
            rule("id, CASE WHEN v = 4 THEN -1 ELSE 100 / (v - 4) END AS q", "v <> 0 OR v IS NULL"));
    }
}

TEST_CASE("rows that fail column-at-a-time reach the bad-record policy as they do row by row") {
    // v = 4 divides by zero: some rows of most batches fail, the others go on.
    Outcome rows = run(rule("id, 100 / (v - 4) AS q, UPPER(s) AS u"), false);
    Outcome batches = run(rule("id, 100 / (v - 4) AS q, UPPER(s) AS u"), true);
    CHECK(rows.bad.size() > 10);
    CHECK(batches.bad == rows.bad);
    CHECK(batches.lines == rows.lines);
}

namespace {

int counted_calls = 0;

// A connector's function that counts its calls.
NodePtr build_counting(CallSite& c) {
    return make_node(
        [](const Node&, EvalContext&) {
            ++counted_calls;
            return Datum::of_long(counted_calls);
        },
        DataType::bigint(), std::move(c.args));
}

}  // namespace

TEST_CASE("a connector's function is called once per row, also when another row fails") {
    TransformFunctions counting{TransformFunction{"COUNTING", &build_counting, true, nullptr}};
    counted_calls = 0;
    // The division fails on some rows; a batch that failed would be evaluated again row by row,
    // calling COUNTING twice for its rows: so a projection with it is never evaluated in batches.
    Outcome o = run(rule("id, COUNTING() AS n, 100 / (v - 4) AS q"), true, counting);
    const std::size_t rows = o.lines.size() + o.bad.size();
    CHECK(rows > 0);
    // One call per projected row (an update projects two), none twice.
    std::size_t projected = 0;
    for (const auto& line : o.lines)
        projected += line.find("before=[]") == std::string::npos &&
                             line.find("after=[]") == std::string::npos
                         ? 2
                         : 1;
    CHECK(static_cast<std::size_t>(counted_calls) >= projected);
    CHECK(static_cast<std::size_t>(counted_calls) <= projected + o.bad.size() * 2);
}
