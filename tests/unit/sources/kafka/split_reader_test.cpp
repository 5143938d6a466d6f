// A split reader's state (its partitions' offsets and the schemas its changes left, numbered)
// and how a topic's partitions are shared among readers.
#include "sources/kafka/split_reader.h"

#include <catch2/catch.hpp>
#include <map>

using namespace cdcd;
using namespace cdcd::kafka;

TEST_CASE("kafka split reader: its state keeps offsets and numbered schemas") {
    ReaderState state;
    state.offsets[{"orders", 0}] = 12;
    state.offsets[{"orders", 2}] = 7;
    state.changed.push_back(ChangedSchema{
        TableId::of("app", "orders"), 5,
        Schema({Column{"id", DataType::bigint().with_nullable(false), "", std::nullopt},
                Column{"qty", DataType::bigint(), "", std::nullopt}},
               {"id"})});
    state.changed.push_back(
        ChangedSchema{TableId::of("app", "items"), 2,
                      Schema({Column{"sku", DataType::string(), "", std::nullopt}}, {})});
    ReaderState back = decode_reader_state(encode_reader_state(state));
    CHECK(back.offsets == state.offsets);
    REQUIRE(back.changed.size() == 2);
    CHECK(back.changed[0].table == TableId::of("app", "orders"));
    CHECK(back.changed[0].change == 5);
    CHECK(back.changed[0].schema == state.changed[0].schema);
    CHECK(back.changed[1].change == 2);
    CHECK(back.changed[1].schema == state.changed[1].schema);

    ReaderState empty = decode_reader_state(encode_reader_state(ReaderState{}));
    CHECK(empty.offsets.empty());
    CHECK(empty.changed.empty());
}

TEST_CASE("kafka split reader: a malformed state is refused with the reason") {
    CHECK_THROWS_WITH(decode_reader_state("no line"), Catch::Contains("has no change numbers"));
    CHECK_THROWS_WITH(decode_reader_state("x\n"), Catch::Contains("malformed"));
    ReaderState one;
    one.changed.push_back(ChangedSchema{TableId::of("a", "b"), 1, Schema()});
    std::string blob = encode_reader_state(one);
    CHECK_THROWS_WITH(decode_reader_state("1 2" + blob.substr(blob.find('\n'))),
                      Catch::Contains("2 change numbers for 1 schemas"));
}

TEST_CASE("kafka split reader: a topic's partitions spread evenly over the shares") {
    for (const std::string topic : {"orders", "app.users", "t"}) {
        std::map<std::size_t, int> per_share;
        for (std::int32_t p = 0; p < 8; ++p) {
            const std::size_t share = partition_share(topic, p, 2);
            CHECK(share < 2);
            CHECK(share == partition_share(topic, p, 2));  // the same every time
            ++per_share[share];
        }
        CHECK(per_share[0] == 4);
        CHECK(per_share[1] == 4);
        CHECK(partition_share(topic, 3, 1) == 0);
    }
}
