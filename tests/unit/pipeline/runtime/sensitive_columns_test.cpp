// pipeline.tap.sensitive-columns: TABLE.COLUMN entries, `*` for any part or any table.
#include "pipeline/runtime/sensitive_columns.h"

#include <catch2/catch.hpp>

using namespace cdcd;
using Catch::Contains;

namespace {

Schema users() {
    return SchemaBuilder()
        .column("id", DataType::bigint())
        .column("email", DataType::string())
        .column("Password", DataType::string())
        .column("card_no", DataType::string())
        .build();
}

std::vector<bool> mask_of(const std::vector<std::string>& entries, TableId table) {
    std::string error;
    auto sensitive = SensitiveColumns::parse(entries, &error);
    REQUIRE(sensitive);
    return sensitive->mask(table, users());
}

}  // namespace

TEST_CASE("sensitive columns match table selectors and column regexes, case-insensitively") {
    TableId app_users = TableId::of("app", "users");
    using V = std::vector<bool>;
    CHECK(mask_of({}, app_users) == V{false, false, false, false});
    CHECK(mask_of({"app.users.email"}, app_users) == V{false, true, false, false});
    CHECK(mask_of({"other.users.email"}, app_users) == V{false, false, false, false});
    CHECK(mask_of({"*.password"}, app_users) == V{false, false, true, false});
    CHECK(mask_of({"*.*.password"}, app_users) == V{false, false, true, false});
    CHECK(mask_of({"*.*.*.password"}, app_users) == V{false, false, false, false});  // 3 parts
    CHECK(mask_of({"app.\\.*.card_\\.*", " *.EMAIL "}, app_users) == V{false, true, false, true});
    CHECK(mask_of({"app.*.*"}, app_users) == V{true, true, true, true});
    CHECK(mask_of({"*.password"}, TableId::of("ns", "app", "users"))[2]);
}

TEST_CASE("a malformed sensitive column is refused naming the entry") {
    std::string error;
    CHECK_FALSE(SensitiveColumns::parse({"password"}, &error));
    CHECK_THAT(error, Contains("sensitive column 'password' must be TABLE.COLUMN"));
    CHECK_FALSE(SensitiveColumns::parse({"a.b.c.d.e"}, &error));
    CHECK_FALSE(SensitiveColumns::parse({"app.users.pass(word"}, &error));
    CHECK_THAT(error, Contains("'app.users.pass(word'"));
    CHECK_FALSE(SensitiveColumns::parse({"app(.users.x"}, &error));
    CHECK_THAT(error, Contains("'app(.users.x'"));
}
