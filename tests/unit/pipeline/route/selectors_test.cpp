// Flink CDC's Selectors (transform source-table, Kafka sink.tableId-to-topic.mapping): each part
// is a Java regex of regex/, matched case-insensitively.
#include "pipeline/route/selectors.h"

#include <catch2/catch.hpp>

using namespace cdcd;

namespace {

bool matches(const std::string& selectors, const TableId& table) {
    std::string error;
    auto s = Selectors::parse(selectors, &error);
    INFO(error);
    REQUIRE(s);
    return s->matches(table);
}

std::string refused(const std::string& selectors) {
    std::string error;
    CHECK_FALSE(Selectors::parse(selectors, &error));
    return error;
}

}  // namespace

TEST_CASE("selector parts are case-insensitive Java regexes") {
    CHECK(matches("app_db.order_\\d+", TableId::of("APP_DB", "ORDER_1")));
    CHECK(matches("app_db.\\p{Lower}+", TableId::of("app_db", "orders")));
    CHECK_FALSE(matches("app_db.orders", TableId::of("app_db", "orders_v2")));
    // Case-insensitivity is an option of the compile, not a `(?i)(?:...)` wrapper: a quoted
    // section that runs to the end of the part used to swallow the wrapper's `)`.
    CHECK(matches("db.\\Qa(", TableId::of("db", "A(")));
}

TEST_CASE("a part RE2 cannot run is refused with the message every regex option gives") {
    CHECK(refused("db.t(?=1)") ==
          "invalid table selector 'db.t(?=1)': unsupported regular expression 't(?=1)': "
          "lookahead/lookbehind '(?=' at index 1 is not supported: RE2, which cdcd matches "
          "with, cannot run it");
    CHECK(refused("a.b.c.d") == "table selector 'a.b.c.d' has more than 3 parts");
}
