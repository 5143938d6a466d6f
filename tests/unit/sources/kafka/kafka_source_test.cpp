// The kafka source's state when split readers read it: their states merge into the source's own
// format, each partition at its reader's offset, each table at the schema of its latest change.
#include "sources/kafka/kafka_source.h"

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

using namespace cdcd;
using namespace cdcd::kafka;

namespace {

Schema columns(std::initializer_list<const char*> names) {
    std::vector<Column> cols;
    for (const char* n : names) cols.push_back(Column{n, DataType::bigint(), "", std::nullopt});
    return Schema(std::move(cols), {});
}

}  // namespace

TEST_CASE("kafka source: split readers' states merge into the source's") {
    boost::asio::io_context io;
    ConsumerSettings settings;
    settings.topics = {"orders"};
    KafkaSource source(settings, io);
    SourceState restored;
    restored.offsets[{"orders", 0}] = 10;
    restored.offsets[{"orders", 1}] = 20;
    restored.offsets[{"gone", 0}] = 5;  // no reader reads it now: kept as it was
    restored.schemas.emplace_back(TableId::of("app", "orders"), columns({"id"}));
    source.restore(encode_state(restored));

    ReaderState a, b;
    a.offsets[{"orders", 0}] = 15;
    a.changed.push_back({TableId::of("app", "orders"), 1, columns({"id", "qty"})});
    b.offsets[{"orders", 1}] = 25;
    b.changed.push_back({TableId::of("app", "orders"), 3, columns({"id", "qty", "price"})});
    b.changed.push_back({TableId::of("app", "items"), 2, columns({"sku"})});
    SourceState merged =
        decode_state(source.merge_reader_states({encode_reader_state(a), encode_reader_state(b)}));
    CHECK(merged.offsets == Offsets{{{"gone", 0}, 5}, {{"orders", 0}, 15}, {{"orders", 1}, 25}});
    REQUIRE(merged.schemas.size() == 2);
    CHECK(merged.schemas[0].first == TableId::of("app", "orders"));
    CHECK(merged.schemas[0].second == columns({"id", "qty", "price"}));  // change 3, not 1
    CHECK(merged.schemas[1].first == TableId::of("app", "items"));

    // A later barrier: reader a's newer offset; the schemas stay at their latest.
    a.offsets[{"orders", 0}] = 30;
    merged =
        decode_state(source.merge_reader_states({encode_reader_state(a), encode_reader_state(b)}));
    CHECK(merged.offsets.at({"orders", 0}) == 30);
    CHECK(merged.schemas[0].second == columns({"id", "qty", "price"}));
}
