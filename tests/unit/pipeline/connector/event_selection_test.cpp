// What a sink writer is handed: a whole batch, or the events of a shared batch at its positions,
// in their order, read where the batch holds them.
#include "pipeline/connector/event_selection.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace cdcd;

namespace {

/// A batch of events told apart by their tables: t0, t1, ...
EventBatch batch_of(int n) {
    EventBatch batch;
    for (int i = 0; i < n; ++i)
        batch.emplace_back(CreateTableEvent{TableId::of("t" + std::to_string(i)), Schema{}});
    return batch;
}

std::vector<std::string> tables(EventSelection events) {
    std::vector<std::string> got;
    for (const Event& e : events) got.push_back(table_of(e).str());
    return got;
}

}  // namespace

TEST_CASE("a whole batch is every event in order") {
    const EventBatch batch = batch_of(3);
    EventSelection all(batch);
    CHECK(all.size() == 3);
    CHECK(tables(all) == std::vector<std::string>{"t0", "t1", "t2"});
    CHECK(&all[1] == &batch[1]);
}

TEST_CASE("a selection is the events at its positions, in order, where the batch holds them") {
    const EventBatch batch = batch_of(5);
    const std::vector<std::uint32_t> positions{0, 2, 4};
    EventSelection part(batch, positions);
    CHECK(part.size() == 3);
    CHECK_FALSE(part.empty());
    CHECK(tables(part) == std::vector<std::string>{"t0", "t2", "t4"});
    CHECK(&part[1] == &batch[2]);  // not a copy

    const std::vector<std::uint32_t> none;
    CHECK(EventSelection(batch, none).empty());
    CHECK(tables(EventSelection(batch, none)).empty());
}
