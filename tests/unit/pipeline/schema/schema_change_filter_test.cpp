#include "pipeline/schema/schema_change_filter.h"

#include <catch2/catch.hpp>

using namespace cdcd;
using B = SchemaChangeBehavior;

namespace {
std::string accepted(std::vector<std::string> include, std::vector<std::string> exclude,
                     bool has_exclude, B behavior = B::Evolve) {
    config::Diagnostics diags;
    auto f = SchemaChangeFilter::create(include, exclude, has_exclude, behavior, diags,
                                        {"p.yaml", 3, 1});
    REQUIRE(diags.ok());
    return f.to_string();
}
}  // namespace

TEST_CASE("schema change tags resolve exact and family tags", "[filter]") {
    CHECK(SchemaChangeFilter::resolve_tag("drop") ==
          std::vector<SchemaChangeType>{SchemaChangeType::DropColumn, SchemaChangeType::DropTable});
    CHECK(SchemaChangeFilter::resolve_tag("table").size() == 4);
    CHECK(SchemaChangeFilter::resolve_tag("column").size() == 4);
    CHECK(SchemaChangeFilter::resolve_tag("all").size() == 8);
    CHECK(SchemaChangeFilter::resolve_tag("alter.table.comment") ==
          std::vector<SchemaChangeType>{SchemaChangeType::AlterTableComment});
    CHECK(SchemaChangeFilter::resolve_tag("add.col").empty());
    CHECK(SchemaChangeFilter::resolve_tag("ADD").empty());  // tags are case-sensitive
}

TEST_CASE("include / exclude algebra", "[filter]") {
    const std::string all =
        "[create.table, add.column, drop.column, rename.column, alter.column.type, drop.table, "
        "truncate.table, alter.table.comment]";
    CHECK(accepted({}, {}, false) == all);
    // LENIENT without an exclude list drops drop.table and truncate.table by default...
    CHECK(accepted({}, {}, false, B::Lenient) ==
          "[create.table, add.column, drop.column, rename.column, alter.column.type, "
          "alter.table.comment]");
    // ...but any exclude list, even empty, turns that default off.
    CHECK(accepted({}, {}, true, B::Lenient) == all);
    CHECK(accepted({}, {"drop"}, true, B::Lenient) ==
          "[create.table, add.column, rename.column, alter.column.type, truncate.table, "
          "alter.table.comment]");
    // An include list gets create.table added unless it is excluded.
    CHECK(accepted({"add.column"}, {}, false) == "[create.table, add.column]");
    CHECK(accepted({"add.column"}, {"create"}, true) == "[add.column]");
    CHECK(accepted({"column"}, {"rename.column"}, true) ==
          "[create.table, add.column, drop.column, alter.column.type]");
    // Exclude wins over include.
    CHECK(accepted({"drop.table"}, {"drop"}, true) == "[create.table]");
    CHECK(accepted({"table"}, {}, false, B::Lenient) == "[create.table, alter.table.comment]");
}

TEST_CASE("unknown tags are diagnosed with the sink's position", "[filter]") {
    config::Diagnostics diags;
    SchemaChangeFilter::create({"add.column", "add.col"}, {"nope"}, true, B::Evolve, diags,
                               {"p.yaml", 7, 3});
    REQUIRE(diags.size() == 2);
    CHECK(diags.items()[0].where.line == 7);
    CHECK(diags.items()[0].message.find("Unknown schema change event type: add.col") !=
          std::string::npos);
    CHECK(diags.items()[1].message.find("nope") != std::string::npos);
}
