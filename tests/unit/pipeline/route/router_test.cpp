#include "pipeline/route/router.h"

#include <catch2/catch.hpp>

using namespace cdcd;

namespace {

config::RouteDef def(std::string source, std::string sink, std::string symbol = {}, int line = 1) {
    config::RouteDef d;
    d.source_table = std::move(source);
    d.sink_table = std::move(sink);
    d.replace_symbol = std::move(symbol);
    d.where = {"pipeline.yaml", line, 5};
    return d;
}

Router make(std::vector<config::RouteDef> defs, RouteMode mode = RouteMode::AllMatch) {
    config::Diagnostics diags;
    Router r = Router::create(defs, mode, diags);
    INFO(diags.to_string());
    REQUIRE(diags.ok());
    return r;
}

std::string routed(const Router& r, const char* table) {
    std::string s;
    for (TableId t : r.route(*TableId::parse(table))) s += (s.empty() ? "" : " ") + t.str();
    return s;
}

}  // namespace

TEST_CASE("source-table is translated as TableIdRouter does", "[router]") {
    CHECK(Router::source_table_to_regex("app_db.\\.*") == "app_db\\..*");
    CHECK(Router::source_table_to_regex("mydb\\.*") == "mydb.*");
    CHECK(Router::source_table_to_regex("db_(\\.*).(\\.*)_tbl") == "db_(.*)\\.(.*)_tbl");
    CHECK(Router::source_table_to_regex(" a.t1 , a.t2 ") == "a\\.t1|a\\.t2");
    CHECK(Router::source_table_to_regex("a.t1,a.t2,,") == "a\\.t1|a\\.t2");
    CHECK(Router::source_table_to_regex("[.]") == "[\\.]");
}

TEST_CASE("matching is full, case-sensitive, dot-literal", "[router]") {
    Router r = make({def("app_db.\\.*", "ods.all")});
    CHECK(routed(r, "app_db.orders") == "ods.all");
    CHECK(routed(r, "App_db.orders") == "App_db.orders");      // unmatched → itself
    CHECK(routed(r, "app_dbXorders") == "app_dbXorders");      // `.` is a literal dot
    CHECK(routed(r, "x.app_db.orders") == "x.app_db.orders");  // full match only

    Router any = make({def("mydb\\.*", "sink")});
    CHECK(routed(any, "mydb.t") == "sink");
    CHECK(routed(any, "mydbxyz") == "sink");

    Router alt = make({def("db.t1, db.t2", "db.merged")});
    CHECK(routed(alt, "db.t1") == "db.merged");
    CHECK(routed(alt, "db.t2") == "db.merged");
    CHECK(routed(alt, "db.t3") == "db.t3");

    Router grouped = make({def("%s.(members|new_members)", "dst.$1")});
    CHECK(routed(grouped, "%s.new_members") == "dst.new_members");
}

TEST_CASE("targets: replace-symbol and $n groups", "[router]") {
    Router sym = make({def("default_namespace.default_schema.table\\.*", "ods.<>", "<>")});
    CHECK(routed(sym, "default_namespace.default_schema.table1") == "ods.table1");

    Router sym2 = make({def("db.\\.*", "<>_db.pre_<>_post", "<>")});
    CHECK(routed(sym2, "db.orders") == "orders_db.pre_orders_post");

    Router groups = make({def("db_(\\.*).(\\.*)_tbl", "sink_$1.$2")});
    CHECK(routed(groups, "db_a.users_tbl") == "sink_a.users");

    // Java parses $12 as group 1 then '2' when there is no group 12.
    Router digits = make({def("db.(\\.*)", "x.$12")});
    CHECK(routed(digits, "db.t") == "x.t2");

    Router named = make({def("db.(?<name>\\.*)", "x.${name}_s")});
    CHECK(routed(named, "db.t") == "x.t_s");

    Router escaped = make({def("db.t", "x.a\\$1")});
    CHECK(routed(escaped, "db.t") == "x.a$1");
}

TEST_CASE("Matcher#replaceAll quirk: a pattern matching empty text also matches at the end",
          "[router]") {
    // Java: "db.t".replaceAll(".*", "ods.all") == "ods.allods.all", which parses as 3 parts.
    Router r = make({def("\\.*", "ods.all")});
    CHECK(routed(r, "db.t") == "ods.allods.all");
}

TEST_CASE("ALL_MATCH duplicates, FIRST_MATCH takes the first rule", "[router]") {
    std::vector<config::RouteDef> defs = {def("db.t1", "a.x"), def("db.\\.*", "b.y"),
                                          def("db.t1", "a.x")};
    CHECK(routed(make(defs), "db.t1") == "a.x b.y a.x");
    CHECK(routed(make(defs), "db.t2") == "b.y");
    CHECK(routed(make(defs, RouteMode::FirstMatch), "db.t1") == "a.x");
    CHECK(routed(make(defs, RouteMode::FirstMatch), "db.t2") == "b.y");
    CHECK(routed(make(defs), "other.t") == "other.t");
}

TEST_CASE("bad rules are diagnosed with their position", "[router]") {
    config::Diagnostics diags;
    Router::create(
        {def("db.(\\.*)\\1", "x", {}, 2), def("db.(?=a)\\.*", "x", {}, 3), def("db.(", "x", {}, 4),
         def("db.t", "a.b.c.d", {}, 5), def("db.(t)", "x.$2", {}, 6), def("db.t*+", "x", {}, 7),
         def("db.t", "x$", {}, 8)},
        RouteMode::AllMatch, diags);
    REQUIRE(diags.size() == 7);
    for (int i = 0; i < 7; ++i)
        CHECK(diags.items()[static_cast<std::size_t>(i)].where.line == i + 2);
    CHECK(diags.items()[0].message.find("backreference") != std::string::npos);
    CHECK(diags.items()[1].message.find("lookahead") != std::string::npos);
    CHECK(diags.items()[2].message.find("invalid regular expression") != std::string::npos);
    CHECK(diags.items()[3].message.find("not a table id") != std::string::npos);
    CHECK(diags.items()[4].message.find("No group 2") != std::string::npos);
    CHECK(diags.items()[5].message.find("possessive") != std::string::npos);
}

TEST_CASE("an empty source-table or sink-table is diagnosed", "[router]") {
    // An empty source-table matched no table: the route did nothing, and validate said ok.
    config::Diagnostics diags;
    Router::create({def("", "a.b", {}, 2), def(" ", "a.b", {}, 3), def("db.t", "", {}, 4)},
                   RouteMode::AllMatch, diags);
    REQUIRE(diags.size() == 3);
    CHECK(diags.items()[0].message == "route source-table must not be empty");
    CHECK(diags.items()[1].message == "route source-table must not be empty");
    CHECK(diags.items()[2].message == "route sink-table must not be empty");
    CHECK(diags.items()[0].where.line == 2);
}

TEST_CASE("a target that resolves to more than 3 parts fails at routing time", "[router]") {
    Router ok = make({def("db.(\\.*)", "a.b.$1")});
    CHECK(routed(ok, "db.t") == "a.b.t");
    Router r = make({def("db.(\\.*)", "a.b.c.$1")});
    CHECK_THROWS_WITH(r.route(TableId::of("db", "t")),
                      Catch::Contains("resolves to 'a.b.c.t' for table db.t"));
}

TEST_CASE("source-table is a Java regex in the one dialect of regex/", "[router]") {
    // The route's own translator passed these to RE2 as they were: (?U) became ungreedy, the
    // nested class matched differently, \u00e9 was refused. Now as everywhere else.
    config::Diagnostics diags;
    Router::create({def("db.(?U)t", "x", {}, 2), def("db.[a[b]]", "x", {}, 3)}, RouteMode::AllMatch,
                   diags);
    REQUIRE(diags.size() == 2);
    CHECK(diags.items()[0].message ==
          "route source-table 'db.(?U)t': unsupported regular expression 'db\\.(?U)t': inline "
          "flag '(?U)' at index 4 is not supported: RE2, which cdcd matches with, cannot run it");
    CHECK(diags.items()[1].message.find("nested character class '[' at index 6") !=
          std::string::npos);
    CHECK(routed(make({def("db.caf\\u00e9", "x.y")}), "db.caf\u00e9") == "x.y");
}

TEST_CASE("sink-table replacement moves past an empty match by a whole character", "[router]") {
    // The old loop moved on by one byte and wrote "t\xC3t\xA9t" (not UTF-8) where Java gives
    // "tét".
    Router r = make({def("(?:|\u00e9)", "t")});
    CHECK(routed(r, "\u00e9") == "t\u00e9t");
}
