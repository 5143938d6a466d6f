#include "config/yaml_loader.h"

#include <catch2/catch.hpp>

#include "test_helpers.h"

using namespace cdcd::config;
using Catch::Contains;

TEST_CASE("every node keeps its 1-based line and column", "[config][yaml]") {
    Diagnostics diags;
    auto doc = load_yaml_string(
        "a: 1\n"
        "b:\n"
        "  c: [x, y]\n"
        "  d:\n"
        "    - e\n"
        "    - f: g\n"
        "empty:\n",
        "t.yaml", diags);
    REQUIRE(diags.ok());
    REQUIRE(doc);
    const ConfigNode& root = doc->root;
    REQUIRE(root.is_map());
    REQUIRE(root.entries.size() == 3);
    CHECK(root.entries[0].key == "a");
    CHECK(root.entries[0].key_where == SourceLocation{"t.yaml", 1, 1});
    CHECK(root.entries[0].value.scalar == "1");
    CHECK(root.entries[0].value.where == SourceLocation{"t.yaml", 1, 4});

    const ConfigNode* b = root.find("b");
    REQUIRE(b);
    REQUIRE(b->is_map());
    const ConfigNode* c = b->find("c");
    REQUIRE(c);
    REQUIRE(c->is_list());
    REQUIRE(c->items.size() == 2);
    CHECK(c->items[1].scalar == "y");
    CHECK(c->items[1].where == SourceLocation{"t.yaml", 3, 10});
    const ConfigNode* d = b->find("d");
    REQUIRE(d);
    REQUIRE(d->items.size() == 2);
    CHECK(d->items[1].is_map());
    CHECK(d->items[1].entries[0].key_where == SourceLocation{"t.yaml", 6, 7});
    CHECK(root.find("empty")->is_null());
    CHECK(root.find("missing") == nullptr);
}

TEST_CASE("an empty file is a null document", "[config][yaml]") {
    Diagnostics diags;
    auto doc = load_yaml_string("# only a comment\n", "e.yaml", diags);
    REQUIRE(doc);
    CHECK(diags.ok());
    CHECK(doc->root.is_null());
}

TEST_CASE("YAML syntax errors carry yaml-cpp's position", "[config][yaml]") {
    Diagnostics diags;
    auto doc = load_yaml_string("a: 1\nb: [1, 2\nc: 3\n", "s.yaml", diags);
    CHECK_FALSE(doc);
    REQUIRE(diags.size() == 1);
    CHECK_THAT(diags.to_string(), Contains("s.yaml:3:") && Contains("YAML syntax error"));
}

TEST_CASE("tabs used for indentation are reported at the tab", "[config][yaml]") {
    Diagnostics diags;
    auto doc = load_yaml_file(test::fixture("tab_indent.yaml"), diags);
    CHECK_FALSE(doc);
    CHECK_THAT(diags.to_string(),
               Contains(test::fixture("tab_indent.yaml") + ":4:1: error: tab character used "
                                                           "for indentation"));
}

TEST_CASE("a tab after the indentation or inside a value is fine", "[config][yaml]") {
    Diagnostics diags;
    auto doc = load_yaml_string("a: \"x\ty\"\nb: 1\t# comment\n", "t.yaml", diags);
    REQUIRE(doc);
    CHECK(diags.ok());
    CHECK(doc->root.find("a")->scalar == "x\ty");
}

TEST_CASE("duplicate keys are errors in every map, naming the first one", "[config][yaml]") {
    Diagnostics diags;
    auto doc = load_yaml_string(
        "a: 1\n"
        "b:\n"
        "  x: 1\n"
        "  y: 2\n"
        "  x: 3\n"
        "a: 2\n",
        "d.yaml", diags);
    REQUIRE(doc);
    REQUIRE(diags.size() == 2);
    CHECK(diags.items()[0].to_string() ==
          "d.yaml:5:3: error: duplicate key `x` (first defined at d.yaml:3:3)");
    CHECK(diags.items()[1].to_string() ==
          "d.yaml:6:1: error: duplicate key `a` (first defined at d.yaml:1:1)");
    // The first occurrence wins.
    CHECK(doc->root.find("a")->scalar == "1");
    CHECK(doc->root.find("b")->find("x")->scalar == "1");
}

TEST_CASE("duplicate keys in flow maps are found too", "[config][yaml]") {
    Diagnostics diags;
    auto doc = load_yaml_string("m: {k: 1, k: 2}\n", "f.yaml", diags);
    REQUIRE(doc);
    CHECK_THAT(diags.to_string(), Contains("f.yaml:1:11: error: duplicate key `k`"));
}

TEST_CASE("anchors and aliases are expanded", "[config][yaml]") {
    Diagnostics diags;
    auto doc = load_yaml_string("base: &b {x: 1}\ncopy: *b\n", "a.yaml", diags);
    REQUIRE(doc);
    CHECK(diags.ok());
    const ConfigNode* copy = doc->root.find("copy");
    REQUIRE(copy);
    REQUIRE(copy->is_map());
    CHECK(copy->find("x")->scalar == "1");
}

TEST_CASE("several documents in one file are rejected", "[config][yaml]") {
    Diagnostics diags;
    auto doc = load_yaml_string("a: 1\n---\nb: 2\n", "m.yaml", diags);
    CHECK_THAT(diags.to_string(), Contains("m.yaml:3:1: error: only one YAML document"));
}

TEST_CASE("a missing file is a diagnostic", "[config][yaml]") {
    Diagnostics diags;
    auto doc = load_yaml_file("/nonexistent/cdcd.yaml", diags);
    CHECK_FALSE(doc);
    CHECK(diags.to_string() == "/nonexistent/cdcd.yaml: error: cannot open file\n");
}
