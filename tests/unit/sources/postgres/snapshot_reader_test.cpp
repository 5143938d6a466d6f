// The columns a table's snapshot is paged by: its primary key, else the chunk key column.
#include "sources/postgres/snapshot_reader.h"

#include <catch2/catch.hpp>

using namespace cdcd;
using namespace cdcd::postgres;

TEST_CASE("snapshot paging key: primary key, else the chunk key column, refused by name") {
    const TableId t = TableId::of("public", "t");
    const Schema keyed = SchemaBuilder()
                             .column("v", DataType::string())
                             .column("b", DataType::int_().not_null())
                             .column("a", DataType::int_().not_null())
                             .primary_key({"a", "b"})
                             .build();
    CHECK(paging_key(keyed, t, std::nullopt) == std::vector<std::size_t>{2, 1});
    CHECK(paging_key(keyed, t, std::string("v")) == std::vector<std::size_t>{2, 1});
    const Schema bare = SchemaBuilder()
                            .column("k", DataType::int_().not_null())
                            .column("n", DataType::int_())
                            .build();
    CHECK(paging_key(bare, t, std::nullopt).empty());
    CHECK(paging_key(bare, t, std::string("k")) == std::vector<std::size_t>{0});
    CHECK_THROWS_WITH(paging_key(bare, t, std::string("missing")),
                      Catch::Contains("scan.incremental.snapshot.chunk.key-column") &&
                          Catch::Contains("`missing`") && Catch::Contains("public.t"));
    CHECK_THROWS_WITH(paging_key(bare, t, std::string("n")),
                      Catch::Contains("scan.incremental.snapshot.chunk.key-column") &&
                          Catch::Contains("NOT NULL"));
}
