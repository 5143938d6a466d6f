// pipeline.sink.partitioning.strategy: which sink writer each data change goes to.
#include "pipeline/runtime/partitioner.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "pipeline/connector/event_selection.h"

using namespace cdcd;

namespace {

Schema keyed() {
    return SchemaBuilder()
        .column("id", DataType::bigint().not_null())
        .column("v", DataType::string())
        .primary_key({"id"})
        .build();
}

DataChangeEvent insert(const TableId& table, std::int64_t id) {
    RowBuilder b(2);
    b.set_long(0, id);
    b.set_string(1, "x");
    return DataChangeEvent::insert(table, std::move(b).build());
}

}  // namespace

TEST_CASE("PRIMARY_KEY (and SINK_DEFINED) spread one table's keys over the writers") {
    const Schema schema = keyed();
    const auto table = TableId::of("db", "t");
    for (auto strategy : {PartitioningStrategy::PrimaryKey, PartitioningStrategy::SinkDefined}) {
        std::set<std::size_t> used;
        for (std::int64_t id = 1; id <= 100; ++id) {
            std::size_t w = PartitionKey(&schema, strategy).writer_of(insert(table, id), 4);
            CHECK(w < 4);
            CHECK(PartitionKey(&schema, strategy).writer_of(insert(table, id), 4) ==
                  w);  // stable per key
            used.insert(w);
        }
        CHECK(used.size() == 4);
    }
}

TEST_CASE("TABLE_ID sends every change of a table to one writer") {
    const Schema schema = keyed();
    std::set<std::size_t> tables_used;
    for (int t = 0; t < 20; ++t) {
        const auto table = TableId::of("db", "t" + std::to_string(t));
        std::set<std::size_t> used;
        for (std::int64_t id = 1; id <= 50; ++id)
            used.insert(PartitionKey(&schema, PartitioningStrategy::TableId)
                            .writer_of(insert(table, id), 4));
        CHECK(used.size() == 1);
        tables_used.insert(*used.begin());
    }
    CHECK(tables_used.size() > 1);  // different tables still spread
}

TEST_CASE("the option's spellings parse") {
    CHECK(parse_partitioning_strategy("TABLE_ID") == PartitioningStrategy::TableId);
    CHECK(parse_partitioning_strategy("PRIMARY_KEY") == PartitioningStrategy::PrimaryKey);
    CHECK(parse_partitioning_strategy("SINK_DEFINED") == PartitioningStrategy::SinkDefined);
    CHECK(!parse_partitioning_strategy("ROUND_ROBIN"));
}

TEST_CASE("a key's writer stays what it was in earlier versions, so a restart keeps its order") {
    // Pinned: a change of the hash or of its reduction to a writer would send a key's later
    // changes to another writer than its earlier ones, across an upgrade.
    const Schema schema = keyed();
    const auto table = TableId::of("db", "t");
    const std::vector<std::vector<std::size_t>> expected = {
        {0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 0},  // 2 writers
        {2, 0, 2, 2, 1, 1, 2, 0, 1, 2, 1, 1},  // 3
        {2, 0, 0, 2, 2, 3, 2, 3, 1, 1, 2, 0},  // 4
    };
    for (std::size_t writers = 2; writers <= 4; ++writers) {
        std::vector<std::size_t> got;
        for (std::int64_t id = 1; id <= 12; ++id)
            got.push_back(PartitionKey(&schema, PartitioningStrategy::PrimaryKey)
                              .writer_of(insert(table, id), writers));
        CHECK(got == expected[writers - 2]);
    }
}

TEST_CASE("partition_positions gives each change to its key's writer and schema changes to all") {
    const Schema schema = keyed();
    const auto a = TableId::of("db", "a"), b = TableId::of("db", "b");
    EventBatch events;
    events.emplace_back(CreateTableEvent{a, schema});
    for (std::int64_t id = 1; id <= 20; ++id) events.emplace_back(insert(a, id));
    events.emplace_back(CreateTableEvent{b, schema});
    for (std::int64_t id = 1; id <= 20; ++id) events.emplace_back(insert(id % 2 ? a : b, id));
    const EventBatch sent = events;

    // b has no schema known to the lookup: its changes hash by table id.
    auto sink_schema = [&](TableId t) { return t == a ? &schema : nullptr; };
    auto describe = [](const Event& e) {
        if (const auto* d = std::get_if<DataChangeEvent>(&e))
            return d->table.str() + " " + std::to_string(d->after->view().get_long(0));
        return "create " + std::get<CreateTableEvent>(e).table.str();
    };
    std::vector<std::vector<std::string>> expected(3);
    for (const Event& e : sent) {
        if (const auto* d = std::get_if<DataChangeEvent>(&e)) {
            PartitionKey key(sink_schema(d->table), PartitioningStrategy::SinkDefined);
            expected[key.writer_of(*d, 3)].push_back(describe(e));
        } else {
            for (auto& part : expected) part.push_back(describe(e));
        }
    }

    // Left over from a batch before: cleared.
    std::vector<std::vector<std::uint32_t>> parts{{7, 8}, {}, {9}};
    partition_positions(events, parts, PartitioningStrategy::SinkDefined, sink_schema);
    CHECK(events.size() == sent.size());  // read, not moved
    std::size_t data = 0;
    for (std::size_t w = 0; w < parts.size(); ++w) {
        std::vector<std::string> got;
        for (const Event& e : EventSelection(events, parts[w])) got.push_back(describe(e));
        CHECK(got == expected[w]);
        CHECK(got.size() > 2);  // every writer has some of the changes
        data += got.size() - 2;
    }
    CHECK(data == 40);
}

TEST_CASE("an insert, its updates and its delete go to one writer") {
    // A delete has no after row: its key is read from the before row.
    const Schema schema = keyed();
    const auto table = TableId::of("db", "t");
    const PartitionKey key(&schema, PartitioningStrategy::PrimaryKey);
    for (std::int64_t id = 1; id <= 64; ++id) {
        DataChangeEvent created = insert(table, id);
        const Row row = *created.after;
        std::size_t w = key.writer_of(created, 4);
        CHECK(key.writer_of(DataChangeEvent::update(table, row, row), 4) == w);
        CHECK(key.writer_of(DataChangeEvent::remove(table, row), 4) == w);
    }
}

TEST_CASE("a key of several columns, or of text, goes where earlier versions sent it") {
    // Pinned like the one-integer key above; these keys take the general walk over the columns.
    const Schema two = SchemaBuilder()
                           .column("a", DataType::bigint().not_null())
                           .column("b", DataType::string().not_null())
                           .primary_key({"a", "b"})
                           .build();
    const Schema text = SchemaBuilder()
                            .column("a", DataType::bigint())
                            .column("b", DataType::string().not_null())
                            .primary_key({"b"})
                            .build();
    const auto table = TableId::of("db", "t");
    std::vector<std::size_t> by_two, by_text;
    for (std::int64_t id = 1; id <= 12; ++id) {
        RowBuilder b(2);
        b.set_long(0, id);
        b.set_string(1, "k" + std::to_string(id % 5));
        DataChangeEvent e = DataChangeEvent::insert(table, std::move(b).build());
        by_two.push_back(PartitionKey(&two, PartitioningStrategy::PrimaryKey).writer_of(e, 4));
        by_text.push_back(PartitionKey(&text, PartitioningStrategy::PrimaryKey).writer_of(e, 4));
    }
    CHECK(by_two == std::vector<std::size_t>{2, 0, 3, 2, 3, 2, 3, 0, 1, 1, 0, 3});
    CHECK(by_text == std::vector<std::size_t>{2, 3, 3, 3, 0, 2, 3, 3, 3, 0, 2, 3});
}
