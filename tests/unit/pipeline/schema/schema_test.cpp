#include "pipeline/schema/schema.h"

#include <catch2/catch.hpp>

using namespace cdcd;

// Flink CDC's Column#asSummaryString (flink-cdc-common/.../common/schema/Column.java:104-134):
// name, type, then the comment, then the default value expression; the name's backticks and the
// comment's single quotes are doubled (EncodingUtils.escapeIdentifier / escapeSingleQuotes), the
// default value expression is printed as it is.

TEST_CASE("a column prints its comment before its default value", "[schema]") {
    // specs/basic.yaml:20 prints `bool_` BOOLEAN 'George' 'false' for comment George, default
    // false.
    Column c{"bool_", DataType::boolean(), "George", std::string("false")};
    CHECK(c.to_string() == "`bool_` BOOLEAN 'George' 'false'");
}

TEST_CASE("a column's comment doubles its single quotes", "[schema]") {
    // specs/basic.yaml:20 prints `char_` CHAR(140) 'Let''s Tweet' '...'.
    Column c{"char_", DataType::char_(140), "Let's Tweet", std::string("...")};
    CHECK(c.to_string() == "`char_` CHAR(140) 'Let''s Tweet' '...'");
}

TEST_CASE("a column's default value is printed without escaping", "[schema]") {
    Column c{"s", DataType::string(), "", std::string("it's")};
    CHECK(c.to_string() == "`s` STRING 'it's'");
}

TEST_CASE("a column's name doubles its backticks", "[schema]") {
    Column c{"a`b", DataType::int_().not_null(), "Identifier", std::nullopt};
    CHECK(c.to_string() == "`a``b` INT NOT NULL 'Identifier'");
}

TEST_CASE("a column without comment and default prints name and type", "[schema]") {
    Column c{"id", DataType::bigint(), "", std::nullopt};
    CHECK(c.to_string() == "`id` BIGINT");
}
