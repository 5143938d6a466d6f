// The events of `cdcd test` cases as written in YAML: each kind's keys, and the mistakes a
// person makes, reported at their line and column.
#include "cmd/test/event_spec.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace cdcd;
using namespace cdcd::cmd_test;
using Catch::Matchers::Contains;

namespace {

struct Parsed {
    std::optional<EventSpec> spec;
    std::string errors;
};

Parsed parse(const std::string& yaml) {
    config::Diagnostics diags;
    auto doc = config::load_yaml_string(yaml, "t.yaml", diags);
    REQUIRE(doc);
    Parsed p;
    p.spec = parse_event_spec(doc->root, diags);
    p.errors = diags.to_string();
    return p;
}

}  // namespace

TEST_CASE("a create event has its columns and primary keys", "[cmd][test]") {
    auto p = parse(
        "create: app.orders\n"
        "columns: [id INT NOT NULL, '`first name` VARCHAR(20)', 'amount DECIMAL(10, 2)']\n"
        "primary-keys: [id]\n");
    REQUIRE(p.spec);
    CHECK(p.spec->kind == EventKind::Create);
    CHECK(p.spec->table.str() == "app.orders");
    REQUIRE(p.spec->columns.size() == 3);
    CHECK(p.spec->columns[0].type.to_string() == "INT NOT NULL");
    CHECK(p.spec->columns[1].name == "first name");
    CHECK(p.spec->columns[2].type.to_string() == "DECIMAL(10, 2)");
    CHECK(p.spec->primary_keys == std::vector<std::string>{"id"});
    auto change = to_schema_change(*p.spec, nullptr);
    CHECK(std::get<CreateTableEvent>(change).schema.primary_keys() ==
          std::vector<std::string>{"id"});
}

TEST_CASE("an update event has both images, nulls and metadata", "[cmd][test]") {
    auto p = parse(
        "update: app.orders\n"
        "before: {id: 1, note: ~}\n"
        "after: {id: 1, note: hi}\n"
        "meta: {op_ts: '17'}\n");
    REQUIRE(p.spec);
    CHECK(p.spec->kind == EventKind::Update);
    REQUIRE(p.spec->before);
    CHECK_FALSE(p.spec->before->fields[1].second.has_value());
    CHECK(p.spec->after->fields[1].second == "hi");
    CHECK(p.spec->meta == EventMeta{{"op_ts", "17"}});
}

TEST_CASE("schema change events carry what they change", "[cmd][test]") {
    Schema current(
        {Column{"a", DataType::int_(), "", {}}, Column{"b", DataType::string(), "", {}}});
    auto alter = parse("alter-column-type: t.x\ntypes: {a: BIGINT}\n");
    REQUIRE(alter.spec);
    auto change = std::get<AlterColumnTypeEvent>(to_schema_change(*alter.spec, &current));
    CHECK(change.new_types.at(0).second == DataType::bigint());
    CHECK(change.old_types.at(0).second == DataType::int_());
    auto rename = parse("rename-column: t.x\nrenames: {b: c}\n");
    REQUIRE(rename.spec);
    CHECK(std::get<RenameColumnEvent>(to_schema_change(*rename.spec, &current)).renames.at(0) ==
          std::pair<std::string, std::string>{"b", "c"});
    auto drop = parse("drop-column: t.x\ncolumns: [b]\n");
    REQUIRE(drop.spec);
    CHECK(std::get<DropColumnEvent>(to_schema_change(*drop.spec, &current)).dropped ==
          std::vector<std::string>{"b"});
    auto truncate = parse("truncate-table: t.x\n");
    REQUIRE(truncate.spec);
    CHECK(std::holds_alternative<TruncateTableEvent>(to_schema_change(*truncate.spec, &current)));
}

TEST_CASE("mistakes in an event are reported where they are", "[cmd][test][errors]") {
    CHECK_THAT(parse("insert: a.b\ndelete: a.b\nafter: {x: 1}\n").errors,
               Contains("t.yaml:2:1: error: an event has one kind, but this one has both "
                        "'insert' and 'delete'"));
    CHECK_THAT(parse("upsert: a.b\n").errors,
               Contains("t.yaml:1:1: error: an event needs one of the keys create, insert"));
    CHECK_THAT(parse("insert: a.b\nbefore: {x: 1}\n").errors,
               Contains("t.yaml:2:1: error: unexpected key 'before' in a insert event (allowed: "
                        "after, meta)"));
    CHECK_THAT(parse("insert: a.b\n").errors, Contains("a insert event needs 'after'"));
    CHECK_THAT(parse("update: a.b\nafter: {x: 1}\n").errors,
               Contains("a update event needs 'before'"));
    CHECK_THAT(parse("insert: [a]\nafter: {x: 1}\n").errors,
               Contains("the table of insert must be a scalar, not a list"));
    CHECK_THAT(parse("insert: a.b\nafter: {x: [1]}\n").errors,
               Contains("t.yaml:2:12: error: the value of column x in after must be a scalar"));
    CHECK_THAT(parse("create: a.b\ncolumns: [id]\n").errors,
               Contains("column 'id' must be written as a name and a type"));
    CHECK_THAT(parse("create: a.b\ncolumns: [id WHOLE]\n").errors,
               Contains("t.yaml:2:11: error: the type of column id:"));
    CHECK_THAT(parse("truncate-table: a.b\ncolumns: [x]\n").errors,
               Contains("(it takes no other key)"));
    // A key that names no column (it once made a failing row's message index column -1).
    auto no_column = parse("create: a.b\ncolumns: [id INT, note STRING]\nprimary-keys: [idd]\n");
    CHECK_FALSE(no_column.spec);
    CHECK_THAT(no_column.errors,
               Contains("t.yaml:3:15: error: primary key 'idd' is not one of the columns (id, "
                        "note)"));
    // `!id` is a YAML tag on an empty name: the fuzzer's input.
    CHECK_THAT(parse("create: a.b\ncolumns: [id INT]\nprimary-keys: [!id]\n").errors,
               Contains("primary key '' is not one of the columns (id)"));
}

TEST_CASE("a type cut at a comma of a [...] list says to quote it", "[cmd][test][errors]") {
    auto p = parse("create: a.b\ncolumns: [id INT, amount DECIMAL(10, 2), note STRING]\n");
    CHECK_FALSE(p.spec);
    CHECK_THAT(p.errors, Contains("t.yaml:2:19: error: the type of column amount, 'DECIMAL(10', "
                                  "is cut at a comma: in a [...] list a comma ends the item, so "
                                  "quote the column: 'amount DECIMAL(10, 2)'"));
    // The cut-off rest, "2)", is not reported as a column of its own.
    CHECK(std::count(p.errors.begin(), p.errors.end(), '\n') <= 1);
    CHECK_THAT(p.errors, !Contains("column '2)'"));
}
