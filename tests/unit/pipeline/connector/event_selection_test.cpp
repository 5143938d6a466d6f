// What a sink writer is handed: a whole batch, or the events of a shared batch at its positions,
// in their order, read where the batch holds them.
#include "pipeline/connector/event_selection.h"

#include <catch2/catch.hpp>
#include <vector>

#include "pipeline/data/row.h"

using namespace cdcd;

namespace {

const TableId kTable = TableId::of("db", "t");

Event insert(std::int64_t id) {
    RowBuilder b(1);
    b.set_long(0, id);
    return Event(DataChangeEvent::insert(kTable, std::move(b).build()));
}

std::vector<std::int64_t> ids(EventSelection events) {
    std::vector<std::int64_t> got;
    for (const Event& e : events) {
        if (const auto* data = std::get_if<DataChangeEvent>(&e))
            got.push_back(data->after->view().get_long(0));
        else
            got.push_back(-1);
    }
    return got;
}

}  // namespace

TEST_CASE("a whole batch is every event in order") {
    EventBatch batch{insert(1), insert(2), insert(3)};
    EventSelection all(batch);
    CHECK(all.size() == 3);
    CHECK(ids(all) == std::vector<std::int64_t>{1, 2, 3});
    CHECK(&all[1] == &batch[1]);
}

TEST_CASE("a selection is the events at its positions, in order, where the batch holds them") {
    EventBatch batch{Event(CreateTableEvent{kTable, Schema{}}), insert(10), insert(11), insert(12),
                     insert(13)};
    const std::vector<std::uint32_t> positions{0, 2, 4};
    EventSelection part(batch, positions);
    CHECK(part.size() == 3);
    CHECK_FALSE(part.empty());
    CHECK(ids(part) == std::vector<std::int64_t>{-1, 11, 13});
    CHECK(&part[1] == &batch[2]);  // not a copy

    const std::vector<std::uint32_t> none;
    CHECK(EventSelection(batch, none).empty());
    CHECK(ids(EventSelection(batch, none)).empty());
}
