// A source appends its changes to a batch where they stay: each append_* builds the change its
// DataChangeEvent factory builds.
#include "pipeline/connector/stream.h"

#include <catch2/catch.hpp>

#include "pipeline/data/row.h"

using namespace cdcd;

namespace {

const TableId kTable = TableId::of("db", "t");

Row row_of(std::int64_t id) {
    RowBuilder b(1);
    b.set_long(0, id);
    return std::move(b).build();
}

}  // namespace

TEST_CASE("append_insert, _update, _delete and _replace append what the factories build") {
    const EventMeta meta{{"topic", "orders"}};
    EventBatch events;
    DataChangeEvent& inserted = append_insert(events, kTable, row_of(1), meta);
    CHECK(&inserted == std::get_if<DataChangeEvent>(&events.back()));  // the change in the batch
    append_update(events, kTable, row_of(1), row_of(2), meta);
    append_update(events, kTable, std::nullopt, row_of(3));  // no before image
    append_delete(events, kTable, row_of(3), meta);
    append_replace(events, kTable, row_of(4));

    const EventBatch expected{
        DataChangeEvent::insert(kTable, row_of(1), meta),
        DataChangeEvent::update(kTable, row_of(1), row_of(2), meta),
        DataChangeEvent{kTable, OpType::Update, std::nullopt, row_of(3), {}},
        DataChangeEvent::remove(kTable, row_of(3), meta),
        DataChangeEvent::replace(kTable, row_of(4)),
    };
    REQUIRE(events.size() == expected.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
        const auto& got = std::get<DataChangeEvent>(events[i]);
        const auto& want = std::get<DataChangeEvent>(expected[i]);
        INFO("change " << i);
        CHECK(got.table == want.table);
        CHECK(got.op == want.op);
        CHECK(got.before == want.before);
        CHECK(got.after == want.after);
        CHECK(got.meta == want.meta);
    }
}
