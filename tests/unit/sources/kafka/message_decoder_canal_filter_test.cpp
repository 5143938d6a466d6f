// canal-json.database.include / canal-json.table.include: messages of other databases or tables
// are skipped; the patterns match the whole field, as Java's Matcher.matches() does.
#include <catch2/catch.hpp>

#include "sources/kafka/message_decoder.h"
#include "tests/unit/sources/kafka/decode_message.h"

using namespace cdcd;
using namespace cdcd::kafka;

namespace {

DecoderSettings canal(std::string database_include, std::string table_include) {
    DecoderSettings s;
    s.format = ValueFormat::CanalJson;
    s.table_fields = {"database", "table"};
    s.canal.database_include = std::move(database_include);
    s.canal.table_include = std::move(table_include);
    return s;
}

std::size_t rows(MessageDecoder& d, const std::string& database, const std::string& table) {
    const std::string message = R"({"data":[{"id":1}],"type":"INSERT","database":")" + database +
                                R"(","table":")" + table + R"("})";
    std::size_t n = 0;
    for (const Event& e : test::decode(d, message))
        if (std::holds_alternative<DataChangeEvent>(e)) ++n;
    return n;
}

}  // namespace

TEST_CASE("canal-json.database.include matches the whole database name") {
    MessageDecoder d(canal("app|crm", ""));
    CHECK(rows(d, "app", "t") == 1);
    CHECK(rows(d, "crm", "t") == 1);
    CHECK(rows(d, "app_v2", "t") == 0);  // not a prefix match
    CHECK(rows(d, "myapp", "t") == 0);
}

TEST_CASE("canal-json.table.include and database.include both apply") {
    MessageDecoder d(canal("app", "order_\\d+"));
    CHECK(rows(d, "app", "order_1") == 1);
    CHECK(rows(d, "app", "order_x") == 0);
    CHECK(rows(d, "crm", "order_1") == 0);
}

TEST_CASE("canal-json include filters: a message without the field is skipped") {
    DecoderSettings s = canal("", "t");
    s.fixed_table = TableId::of("db", "t");  // the table id does not come from the message
    MessageDecoder d(s);
    const auto out = test::decode(d, R"({"data":[{"id":1}],"type":"INSERT","database":"app"})");
    CHECK(out.empty());
}

TEST_CASE("canal-json include filter that is not a regex is refused") {
    CHECK_THROWS_WITH(MessageDecoder(canal("(", "")),
                      Catch::Contains("canal-json.database.include"));
}

TEST_CASE("canal-json include filters: skipped tables do not count toward scan.max-tables") {
    DecoderSettings s = canal("app", "");
    s.limits.max_tables = 1;
    MessageDecoder d(s);
    for (int i = 0; i < 5; ++i) CHECK(rows(d, "other", "t" + std::to_string(i)) == 0);
    CHECK(rows(d, "app", "orders") == 1);  // the one table tracked
}
