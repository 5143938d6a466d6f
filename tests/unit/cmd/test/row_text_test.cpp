// Rows of `cdcd test` cases: column texts read as values of the table's types, and the errors
// that name the column, table, type and position.
#include "cmd/test/row_text.h"

#include <catch2/catch.hpp>

#include "pipeline/data/field_format.h"

using namespace cdcd;
using namespace cdcd::cmd_test;
using Catch::Matchers::Contains;

namespace {

RowText row_of(std::vector<std::pair<std::string, std::optional<std::string>>> fields) {
    RowText text;
    text.where = {"t.yaml", 3, 5};
    for (std::size_t i = 0; i < fields.size(); ++i)
        text.field_where.push_back({"t.yaml", 3, 6 + static_cast<int>(i) * 10});
    text.fields = std::move(fields);
    return text;
}

const TableId kTable = TableId::of("app", "t");

std::string stored(std::string_view text, const DataType& type) {
    RowBuilder b(1);
    std::string why;
    if (!store_text(b, 0, text, type, why)) return "refused: " + why;
    Row row = std::move(b).build();
    return format_field(row, 0, type);
}

}  // namespace

TEST_CASE("a value's text reads as its column's type", "[cmd][test]") {
    CHECK(stored("42", DataType::int_()) == "42");
    CHECK(stored("-9223372036854775808", DataType::bigint()) == "-9223372036854775808");
    CHECK(stored("TRUE", DataType::boolean()) == "true");
    CHECK(stored("10.5", DataType::decimal(10, 2)) == "10.50");
    CHECK(stored("2.5", DataType::double_()) == "2.5");
    CHECK(stored("2024-01-31", DataType::date()) == "2024-01-31");
    CHECK(stored("10:15:30", DataType::time()) == "10:15:30");
    CHECK(stored("2024-01-31 10:15:30.123", DataType::timestamp(3)) == "2024-01-31T10:15:30.123");
    CHECK(stored("aGk=", DataType::bytes()) == "aGk=");  // printed as base64 too
    CHECK(stored("anything at all", DataType::string()) == "anything at all");
}

TEST_CASE("a text that is not a value of the type is refused, saying why", "[cmd][test][errors]") {
    CHECK(stored("128", DataType::tinyint()) == "refused: an integer in the range of TINYINT");
    CHECK(stored("1.5", DataType::int_()) == "refused: an integer in the range of INT");
    CHECK(stored("yes", DataType::boolean()) == "refused: true or false");
    CHECK(stored("123456789.1", DataType::decimal(10, 2)) ==
          "refused: a number with at most 8 digits before the point");
    CHECK(stored("31/01/2024", DataType::date()) == "refused: a date yyyy-MM-dd");
    CHECK(stored("not base64!", DataType::bytes()) == "refused: base64 text");
    CHECK(stored("x", DataType::array(DataType::int_())).starts_with("refused: a type cdcd test"));
}

TEST_CASE("a row gives every column of the schema, by name", "[cmd][test]") {
    Schema schema({Column{"id", DataType::int_().not_null(), "", {}},
                   Column{"note", DataType::string(), "", {}}});
    Row row = build_row(row_of({{"note", "hi"}, {"id", "7"}}), schema, kTable);
    CHECK(format_row(row, schema) == "[7, hi]");
    Row with_null = build_row(row_of({{"id", "7"}, {"note", std::nullopt}}), schema, kTable);
    CHECK(format_row(with_null, schema) == "[7, null]");
}

TEST_CASE("a row's mistakes name the column, table and position", "[cmd][test][errors]") {
    Schema schema({Column{"id", DataType::int_().not_null(), "", {}},
                   Column{"note", DataType::string(), "", {}}});
    auto error = [&](RowText text) {
        try {
            build_row(text, schema, kTable);
        } catch (const RowTextError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK_THAT(error(row_of({{"id", "1"}})),
               Contains("t.yaml:3:5: the row of app.t gives no value for column 'note' (STRING); "
                        "write `note: null` for NULL"));
    CHECK_THAT(error(row_of({{"id", "1"}, {"note", "x"}, {"extra", "y"}})),
               Contains("t.yaml:3:26: table app.t has no column 'extra'"));
    CHECK_THAT(error(row_of({{"id", std::nullopt}, {"note", "x"}})),
               Contains("t.yaml:3:6: column 'id' of app.t is INT NOT NULL and cannot be null"));
    CHECK_THAT(error(row_of({{"id", "one"}, {"note", "x"}})),
               Contains("t.yaml:3:6: 'one' is not a value of column 'id' of app.t (INT NOT "
                        "NULL): expected an integer in the range of INT"));
}
