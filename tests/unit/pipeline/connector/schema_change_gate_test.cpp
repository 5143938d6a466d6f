// The readers of one split source change the schemas they share one at a time: the reader
// that changes them waits until the others have paused, its change waits for what they handed on
// before their pause, and they go on with the new schemas once the change is released.
#include "pipeline/connector/schema_change_gate.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <thread>

using namespace cdcd;

namespace {

const TableId kOrders = TableId::of("app", "orders");

Schema one_column(const std::string& name) {
    return Schema({Column{name, DataType::bigint(), "", std::nullopt}}, {});
}

template <typename T>
bool ready(std::future<T>& f) {
    return f.wait_for(std::chrono::milliseconds(200)) == std::future_status::ready;
}

/// Reader `changer` begins a change; reader `other`, asked to, pauses (as a consumer does: only
/// once must_pause says so, since a pause with no change in progress returns at once). Both
/// run on threads of their own: the change once begun, the schemas once the pause ends.
struct ChangeAndPause {
    std::future<bool> begun;
    std::future<std::optional<TableSchemas>> paused;
};
ChangeAndPause change_and_pause(SchemaChangeGate& gate, std::size_t changer, std::uint64_t chunk,
                                const std::atomic<bool>& changer_stop,
                                std::vector<std::uint64_t>& waits_for, std::size_t other,
                                std::uint64_t handed_on, const std::atomic<bool>& other_stop,
                                std::uint64_t& epoch) {
    ChangeAndPause r;
    r.begun = std::async(std::launch::async, [&gate, changer, chunk, &changer_stop, &waits_for] {
        return gate.begin_change(changer, chunk, changer_stop, waits_for);
    });
    while (!gate.must_pause(other)) std::this_thread::yield();
    r.paused = std::async(std::launch::async, [&gate, other, handed_on, &other_stop, &epoch] {
        return gate.pause(other, handed_on, other_stop, epoch);
    });
    return r;
}

}  // namespace

TEST_CASE("schema change gate: a change waits for the others' pause and what they handed on") {
    SchemaChangeGate gate(2, {});
    std::atomic<bool> stop{false};
    REQUIRE(gate.join(0, stop));
    auto start1 = gate.join(1, stop);
    REQUIRE(start1);
    CHECK_FALSE(start1->after_changes);  // nothing changed yet
    const std::uint64_t epoch1 = start1->epoch;
    CHECK_FALSE(gate.must_pause(1));

    std::vector<std::uint64_t> waits_for;
    auto begun =
        std::async(std::launch::async, [&] { return gate.begin_change(0, 4, stop, waits_for); });
    // Reader 1 is still building: the change has not begun.
    CHECK_FALSE(ready(begun));
    CHECK(gate.epoch() != epoch1);  // reader 1 looks at must_pause at its next message
    CHECK(gate.must_pause(1));
    CHECK_FALSE(gate.must_pause(0));
    std::uint64_t resumed_epoch = 0;
    auto paused =
        std::async(std::launch::async, [&] { return gate.pause(1, 7, stop, resumed_epoch); });
    REQUIRE(ready(begun));
    REQUIRE(begun.get());
    CHECK(waits_for == std::vector<std::uint64_t>{0, 7});

    // Reader 0's chunk with the change goes out once reader 1 has sent its chunks up to 7.
    CHECK_FALSE(gate.all_sent(waits_for));
    gate.sent(1, 6);
    CHECK_FALSE(gate.all_sent(waits_for));
    gate.sent(1, 7);
    CHECK(gate.all_sent(waits_for));

    CHECK(gate.publish(kOrders, one_column("id")) == 1);
    CHECK_FALSE(ready(paused));  // paused until the change is released
    gate.release(0, 4);
    REQUIRE(ready(paused));
    auto schemas = paused.get();
    REQUIRE(schemas);
    REQUIRE(schemas->size() == 1);
    CHECK(schemas->front().first == kOrders);
    CHECK(resumed_epoch == gate.epoch());
    CHECK_FALSE(gate.must_pause(1));
}

TEST_CASE("schema change gate: a reader that needs a change during another's pauses first") {
    SchemaChangeGate gate(2, {});
    std::atomic<bool> stop{false};
    std::uint64_t epoch = 0;
    REQUIRE(gate.join(0, stop));
    REQUIRE(gate.join(1, stop));
    std::vector<std::uint64_t> waits0, waits1;
    auto begun =
        std::async(std::launch::async, [&] { return gate.begin_change(0, 1, stop, waits0); });
    while (!gate.must_pause(1)) std::this_thread::yield();
    // Reader 1 met a message needing a change too: it is told to pause (and decode it again).
    CHECK_FALSE(gate.begin_change(1, 3, stop, waits1));
    auto paused = std::async(std::launch::async, [&] { return gate.pause(1, 2, stop, epoch); });
    REQUIRE(ready(begun));
    CHECK(begun.get());
    CHECK(waits0[1] == 2);
    gate.publish(kOrders, one_column("id"));
    gate.release(0, 1);
    REQUIRE(ready(paused));
    auto schemas = paused.get();
    REQUIRE(schemas);
    CHECK(schemas->size() == 1);  // reader 1 decodes its message again on reader 0's schema
    // Now its own change begins at once: reader 0 pauses for it in turn.
    auto [begun1, paused0] = change_and_pause(gate, 1, 3, stop, waits1, 0, 1, stop, epoch);
    REQUIRE(ready(begun1));
    CHECK(begun1.get());
    CHECK(gate.publish(kOrders, Schema({Column{"id", DataType::bigint(), "", std::nullopt},
                                        Column{"qty", DataType::bigint(), "", std::nullopt}},
                                       {})) == 2);
    gate.release(1, 3);
    REQUIRE(ready(paused0));
    auto after = paused0.get();
    REQUIRE(after);
    CHECK(after->front().second.size() == 2);
}

TEST_CASE("schema change gate: readers not building hold no change up") {
    SchemaChangeGate gate(3, {});
    std::atomic<bool> stop{false};
    REQUIRE(gate.join(0, stop));
    REQUIRE(gate.join(2, stop));
    gate.leave(2, 9);  // ended after handing on 9 chunks; reader 1 never started
    std::vector<std::uint64_t> waits_for;
    REQUIRE(gate.begin_change(0, 1, stop, waits_for));
    CHECK(waits_for == std::vector<std::uint64_t>{0, 0, 9});
    // A reader that starts during the change starts after it, on its schemas.
    auto joined = std::async(std::launch::async, [&] { return gate.join(1, stop); });
    CHECK_FALSE(ready(joined));
    gate.publish(kOrders, one_column("id"));
    gate.release(0, 1);
    REQUIRE(ready(joined));
    auto start = joined.get();
    REQUIRE(start);
    CHECK(start->schemas.size() == 1);
    // Its first rows go behind the change, which may not have reached the writers yet.
    CHECK(start->after_changes);
}

TEST_CASE("schema change gate: a reader that starts after a change sends its rows behind it") {
    // Restored schemas are the writers' already: a reader that starts on them sends its rows
    // as it likes.
    SchemaChangeGate gate(2, {{kOrders, one_column("id")}});
    std::atomic<bool> stop{false};
    auto start0 = gate.join(0, stop);
    REQUIRE(start0);
    CHECK_FALSE(start0->after_changes);
    std::vector<std::uint64_t> waits_for;
    REQUIRE(gate.begin_change(0, 1, stop, waits_for));
    gate.publish(kOrders, one_column("qty"));
    gate.release(0, 1);
    // Reader 1 starts once the change is emitted, before the loop may have sent it on to the
    // writers: rows it sent them straight away would reach a writer that has the old columns.
    auto start1 = gate.join(1, stop);
    REQUIRE(start1);
    CHECK(start1->schemas.front().second == one_column("qty"));
    CHECK(start1->after_changes);
}

TEST_CASE("schema change gate: a change lasts until each of its chunks is released") {
    SchemaChangeGate gate(2, {});
    std::atomic<bool> stop{false};
    REQUIRE(gate.join(0, stop));
    std::vector<std::uint64_t> waits_for;
    REQUIRE(gate.begin_change(0, 1, stop, waits_for));
    REQUIRE(gate.begin_change(0, 1, stop, waits_for));  // the same chunk again
    REQUIRE(gate.begin_change(0, 2, stop, waits_for));  // and the next one
    auto joined = std::async(std::launch::async, [&] { return gate.join(1, stop); });
    gate.release(0, 1);
    CHECK_FALSE(ready(joined));  // chunk 2 holds a change still
    gate.release(0, 2);
    REQUIRE(ready(joined));
    CHECK(joined.get());
    CHECK_THROWS_AS(gate.release(1, 5), std::logic_error);  // reader 1 holds no change
}

TEST_CASE("schema change gate: waits end when their caller stops") {
    SchemaChangeGate gate(2, {});
    std::atomic<bool> stop0{false}, stop1{false};
    std::uint64_t epoch = 0;
    REQUIRE(gate.join(0, stop0));
    REQUIRE(gate.join(1, stop1));
    // Reader 1 never pauses: reader 0's change gives up when reader 0 stops, and is no change.
    std::vector<std::uint64_t> waits_for;
    auto begun =
        std::async(std::launch::async, [&] { return gate.begin_change(0, 1, stop0, waits_for); });
    CHECK_FALSE(ready(begun));
    stop0 = true;
    REQUIRE(ready(begun));
    CHECK_FALSE(begun.get());
    CHECK_FALSE(gate.must_pause(1));
    // A reader paused for a change that never ends returns when it stops.
    stop0 = false;
    auto [begun1, paused] = change_and_pause(gate, 1, 1, stop1, waits_for, 0, 0, stop0, epoch);
    REQUIRE(ready(begun1));
    CHECK(begun1.get());
    CHECK_FALSE(ready(paused));
    stop0 = true;
    REQUIRE(ready(paused));
    CHECK(paused.get() == std::nullopt);
}
