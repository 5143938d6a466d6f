// Flink CDC's Postgres metadata columns: names, types, and the meta of a change.
#include "sources/postgres/metadata.h"

#include <catch2/catch.hpp>

using namespace cdcd;
using namespace cdcd::postgres;

TEST_CASE("postgres metadata: the four columns Flink CDC declares, with its types") {
    CHECK(metadata_type(MetadataField::OpTs).to_string() == "BIGINT NOT NULL");
    CHECK(metadata_type(MetadataField::TableName).to_string() == "STRING NOT NULL");
    CHECK(parse_metadata_list(" op_ts ,table_name,database_name,schema_name") ==
          std::vector<MetadataField>{MetadataField::OpTs, MetadataField::TableName,
                                     MetadataField::DatabaseName, MetadataField::SchemaName});
    CHECK_THROWS_WITH(parse_metadata_list("op_ts,ts_ms"),
                      Catch::Contains("unknown metadata 'ts_ms'"));
    for (auto f : {MetadataField::OpTs, MetadataField::TableName, MetadataField::DatabaseName,
                   MetadataField::SchemaName})
        CHECK(metadata_field(metadata_name(f)) == f);
}

TEST_CASE("postgres metadata: a snapshot row's op_ts is 0") {
    CHECK(metadata_of({MetadataField::OpTs, MetadataField::SchemaName}, "db", "app", "t", 0) ==
          EventMeta{{"op_ts", "0"}, {"schema_name", "app"}});
    CHECK(metadata_of({}, "db", "app", "t", 5).empty());
}
