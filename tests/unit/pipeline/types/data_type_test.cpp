#include "pipeline/types/data_type.h"

#include <catch2/catch.hpp>

using cdcd::DataType;

TEST_CASE("types print as Flink CDC's asSummaryString") {
    CHECK(DataType::string().to_string() == "STRING");
    CHECK(DataType::varchar(255).to_string() == "VARCHAR(255)");
    CHECK(DataType::int_().not_null().to_string() == "INT NOT NULL");
    CHECK(DataType::decimal(10, 2).to_string() == "DECIMAL(10, 2)");
    CHECK(DataType::timestamp(6).to_string() == "TIMESTAMP(6)");
    CHECK(DataType::timestamp_ltz(3).to_string() == "TIMESTAMP_LTZ(3)");
    CHECK(DataType::bytes().to_string() == "BYTES");
    CHECK(DataType::array(DataType::int_()).to_string() == "ARRAY<INT>");
    CHECK(DataType::map(DataType::string(), DataType::bigint()).to_string() ==
          "MAP<STRING, BIGINT>");
}

TEST_CASE("types parse back from what they print") {
    for (const DataType& t :
         {DataType::string(), DataType::varchar(10).not_null(), DataType::decimal(38, 18),
          DataType::tinyint(), DataType::timestamp_tz(9), DataType::timestamp_ltz(3),
          DataType::time(3), DataType::date(),
          DataType::array(DataType::map(DataType::string(), DataType::double_())),
          DataType::row(
              {{"a", std::make_shared<const DataType>(DataType::int_()), ""},
               {"b c", std::make_shared<const DataType>(DataType::string().not_null()), ""}})}) {
        auto parsed = DataType::parse(t.to_string());
        REQUIRE(parsed);
        CHECK(*parsed == t);
    }
}

TEST_CASE("type parsing reports where it failed") {
    std::string error;
    CHECK_FALSE(DataType::parse("DECIMAL(40, 2)", &error));
    CHECK(error.find("DECIMAL precision") != std::string::npos);
    CHECK_FALSE(DataType::parse("INT NOT", &error));
    CHECK(error.find("offset") != std::string::npos);
    // A length past int threw std::out_of_range (found by the small_parsers fuzz target's kind).
    CHECK_FALSE(DataType::parse("VARCHAR(99999999999)", &error));
    CHECK(error.find("out of range") != std::string::npos);
}
