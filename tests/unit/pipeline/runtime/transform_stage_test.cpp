// TransformStage: the transform on its own thread, fed and drained by coroutines on an event loop.
#include "pipeline/runtime/transform_stage.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "pipeline/data/row_buffer_pool.h"
#include "pipeline/schema/schema.h"

using namespace cdcd;
namespace asio = boost::asio;

namespace {

const TableId kOrders = TableId::of("db", "orders");

std::unique_ptr<transform::TransformOperator> operator_for(const std::string& projection,
                                                           const std::string& filter) {
    config::TransformDef d;
    d.source_table = "db.orders";
    d.projection = projection;
    d.filter = filter;
    config::Diagnostics diags;
    auto op = transform::TransformOperator::create({d}, "UTC", diags);
    REQUIRE(diags.ok());
    return op;
}

Schema orders() {
    return SchemaBuilder()
        .column("id", DataType::bigint().not_null())
        .column("name", DataType::string())
        .primary_key({"id"})
        .build();
}

Row order(std::int64_t id, const std::string& name) {
    RowBuilder b(2);
    b.set_long(0, id).set_string(1, name);
    return std::move(b).build();
}

EventBatch inserts(std::int64_t from, std::int64_t to) {
    EventBatch batch;
    for (std::int64_t id = from; id < to; ++id)
        batch.push_back(
            Event(DataChangeEvent::insert(kOrders, order(id, "n" + std::to_string(id)))));
    return batch;
}

// inserts(from, to) whose rows have `room` bytes of capacity past their size (0: none at all).
EventBatch inserts_with_room(std::int64_t from, std::int64_t to, std::size_t room) {
    EventBatch batch = inserts(from, to);
    for (Event& e : batch) {
        auto& after = std::get<DataChangeEvent>(e).after;
        std::string bytes = std::move(*after).release();
        if (room == 0)
            bytes.shrink_to_fit();
        else
            bytes.reserve(bytes.size() + room);
        after.emplace(std::move(bytes));
    }
    return batch;
}

// A stream that starts with the table's CreateTableEvent.
std::vector<StreamElement> stream_of_orders() {
    EventBatch create;
    create.push_back(Event(CreateTableEvent{kOrders, orders()}));
    std::vector<StreamElement> stream;
    stream.emplace_back(std::move(create));
    return stream;
}

// Runs `body` as a coroutine on a fresh loop until it returns; rethrows its exception.
void run_on_loop(const std::function<asio::awaitable<void>(asio::io_context&)>& body) {
    asio::io_context io;
    std::exception_ptr error;
    asio::co_spawn(io, body(io), [&](std::exception_ptr e) { error = std::move(e); });
    io.run();
    if (error) std::rethrow_exception(error);
}

// Sends `stream`, calling `noted` after each element sent. (Arguments, not a lambda's captures:
// the lambda is gone once the coroutine it made is spawned.)
asio::awaitable<void> feed_noting(TransformStage& stage, std::vector<StreamElement>& stream,
                                  std::function<void(std::size_t)> noted, bool& done) {
    try {
        for (std::size_t k = 0; k < stream.size(); ++k) {
            co_await stage.send(std::move(stream[k]));
            noted(k);
        }
    } catch (const boost::system::system_error&) {  // the stage was closed
    }
    done = true;
}

// Feeds `stream` to `stage` from a task of its own (feed_noting), `fed` set when it is done.
void feed_in_background(
    asio::io_context& io, TransformStage& stage, std::vector<StreamElement>& stream, bool& fed,
    std::function<void(std::size_t)> noted = [](std::size_t) {}) {
    asio::co_spawn(io, feed_noting(stage, stream, std::move(noted), fed), asio::detached);
}

// Until the feeding task is done with the stage and the stream (the last result can be
// received before the last send returns).
asio::awaitable<void> wait_until(const bool& done) {
    while (!done) co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
}

}  // namespace

TEST_CASE("the stage transforms batches in order, with the operator's state at each barrier") {
    // (`<`: Flink's `=` is FALSE between a BIGINT and an INT literal.)
    auto op = operator_for("*, UPPER(name) AS shout", "id % 2 < 1");
    std::vector<std::int64_t> ids;
    std::vector<std::string> shouts, states;
    bool ended = false;
    run_on_loop([&](asio::io_context& io) -> asio::awaitable<void> {
        TransformStage stage(io, *op);
        EventBatch create;
        create.push_back(Event(CreateTableEvent{kOrders, orders()}));
        std::vector<StreamElement> stream;
        stream.emplace_back(std::move(create));
        for (int b = 0; b < 20; ++b) stream.emplace_back(inserts(b * 100, b * 100 + 100));
        stream.emplace_back(Barrier{7});
        stream.emplace_back(inserts(2000, 2010));
        stream.emplace_back(EndOfInput{});
        // Sends and receives interleave as in the runtime: one task feeds, this one drains.
        bool fed = false;
        feed_in_background(io, stage, stream, fed);
        while (!ended) {
            TransformStage::Result result = co_await stage.receive();
            if (auto* batch = std::get_if<EventBatch>(&result.element)) {
                for (const Event& e : *batch) {
                    if (const auto* d = std::get_if<DataChangeEvent>(&e)) {
                        ids.push_back(d->after->view().get_long(0));
                        shouts.emplace_back(d->after->view().get_string(2));
                    }
                }
                // Spare buffers circulate only when the writers hand the rows back.
                stage.recycle_written(*batch);
            } else if (std::holds_alternative<Barrier>(result.element)) {
                states.push_back(result.transform_state);
            } else {
                ended = true;
            }
        }
        co_await wait_until(fed);
    });
    REQUIRE(ids.size() == 1005);  // the even ids of 0..2009
    for (std::size_t i = 0; i < ids.size(); ++i) {
        CHECK(ids[i] == static_cast<std::int64_t>(2 * i));
        CHECK(shouts[i] == "N" + std::to_string(2 * i));
    }
    REQUIRE(states.size() == 1);
    CHECK(states[0] == op->snapshot_state());
    CHECK(states[0].find("orders") != std::string::npos);
}

TEST_CASE("a failing expression fails receive() with the transform's error") {
    // Text that is no timestamp fails the CAST, as in Flink CDC (casting.yaml, "Cast To Timestamp
    // Failure"); text that is no number would be NULL.
    auto op = operator_for("*, CAST(name AS TIMESTAMP) AS n", "");
    run_on_loop([&](asio::io_context& io) -> asio::awaitable<void> {
        TransformStage stage(io, *op);
        EventBatch batch;
        batch.push_back(Event(CreateTableEvent{kOrders, orders()}));
        batch.push_back(Event(DataChangeEvent::insert(kOrders, order(42, "not a number"))));
        co_await stage.send(std::move(batch));
        bool failed = false;
        try {
            co_await stage.receive();
        } catch (const transform::TransformError& e) {
            failed = true;
            CHECK(std::string(e.what()).find("id=42") != std::string::npos);
        }
        CHECK(failed);
    });
}

TEST_CASE("a closed stage wakes a waiting receiver and joins its thread") {
    auto op = operator_for("*", "");
    asio::io_context io;
    bool woke = false;
    {
        TransformStage stage(io, *op);
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                try {
                    co_await stage.receive();
                } catch (const boost::system::system_error&) {
                    woke = true;
                }
            },
            asio::detached);
        io.poll();  // the receiver now waits
        stage.close();
        io.run();
    }  // the destructor joins the transform thread
    CHECK(woke);
}

TEST_CASE("input rows go back to a source that builds them on a thread of its own") {
    // The rows the projection replaced and the rows the filter dropped are the source's: with a
    // home (Source::row_buffer_return) they return there instead of to the loop's pool. (The
    // columns out of order: a projection of `*` first would be written over its rows instead.)
    auto op = operator_for("name, id, UPPER(name) AS shout", "id % 2 < 1");
    auto home = std::make_shared<RowBufferReturn>();
    RowBufferPool& pool = RowBufferPool::this_thread();  // the loop runs on this thread
    std::string drained;
    while (pool.take(drained, 0)) {
    }
    std::size_t rows_out = 0;
    run_on_loop([&](asio::io_context& io) -> asio::awaitable<void> {
        TransformStage stage(io, *op, nullptr, nullptr, home);
        EventBatch create;
        create.push_back(Event(CreateTableEvent{kOrders, orders()}));
        std::vector<StreamElement> stream;
        stream.emplace_back(std::move(create));
        stream.emplace_back(inserts(0, 100));
        stream.emplace_back(EndOfInput{});
        for (auto& element : stream) {
            co_await stage.send(std::move(element));
            TransformStage::Result result = co_await stage.receive();
            if (auto* batch = std::get_if<EventBatch>(&result.element))
                for (const Event& e : *batch)
                    rows_out += std::holds_alternative<DataChangeEvent>(e);
        }
    });
    CHECK(rows_out == 50);
    // Each input row is a few dozen bytes in a buffer of its own: all 100 came back.
    CHECK(home->waiting_bytes() >= 100 * 32);
    CHECK(pool.size() == 0);
}

// Rows with room for their projection are written over themselves: the written rows then go
// back to the source (its own thread's pool, or the loop's), not to the lanes as spare buffers,
// so the source's next rows have that room too. The rows of the events the filter dropped go
// back at once.
TEST_CASE("rows projected over themselves go back to the source once written") {
    for (bool source_thread : {true, false}) {
        INFO(source_thread);
        auto op = operator_for("*, UPPER(name) AS shout", "id % 2 < 1");
        auto home = source_thread ? std::make_shared<RowBufferReturn>() : nullptr;
        RowBufferPool& pool = RowBufferPool::this_thread();  // the loop runs on this thread
        std::string drained;
        while (pool.take(drained, 0)) {
        }
        std::vector<const void*> input_buffers, output_buffers;
        run_on_loop([&](asio::io_context& io) -> asio::awaitable<void> {
            TransformStage stage(io, *op, nullptr, nullptr, home);
            EventBatch rows = inserts_with_room(0, 100, 64);
            for (const Event& e : rows) {
                const auto& after = std::get<DataChangeEvent>(e).after;
                if (after->view().get_long(0) % 2 == 0)  // kept by the filter
                    input_buffers.push_back(after->bytes().data());
            }
            std::vector<StreamElement> stream = stream_of_orders();
            stream.emplace_back(std::move(rows));
            stream.emplace_back(EndOfInput{});
            for (auto& element : stream) {
                co_await stage.send(std::move(element));
                TransformStage::Result result = co_await stage.receive();
                auto* batch = std::get_if<EventBatch>(&result.element);
                if (!batch) continue;
                for (const Event& e : *batch)
                    if (const auto* d = std::get_if<DataChangeEvent>(&e))
                        output_buffers.push_back(d->after->bytes().data());
                stage.recycle_written(*batch);  // as the runtime does once they are written
            }
        });
        CHECK(output_buffers == input_buffers);
        if (source_thread) {
            CHECK(home->waiting_bytes() >= 100 * 64);
            CHECK(pool.size() == 0);
        } else {
            CHECK(pool.size() == 100);
        }
    }
}

// With many large rows in flight the loop's pool fills up: the written rows it has no room for
// become the lanes' spare buffers, and rows that had no room for their projection are written
// into them, instead of those being freed on the loop and new ones allocated on the lane.
TEST_CASE("written rows the source's pool has no room for become the lanes' spares") {
    auto op = operator_for("*, UPPER(name) AS shout", "");
    RowBufferPool& pool = RowBufferPool::this_thread();  // the loop runs on this thread
    std::string drained;
    while (pool.take(drained, 0)) {
    }
    std::set<const void*> written, second_out;
    run_on_loop([&](asio::io_context& io) -> asio::awaitable<void> {
        TransformStage stage(io, *op);
        std::vector<StreamElement> stream = stream_of_orders();
        stream.emplace_back(inserts_with_room(0, 50, 64));   // written over themselves
        stream.emplace_back(inserts_with_room(50, 100, 0));  // no room: into the spares
        stream.emplace_back(EndOfInput{});
        // The pool full of buffers of its own (after the rows were built: they would take them).
        while (pool.would_keep(4096)) {
            std::string filler;
            filler.reserve(4096);
            pool.give(std::move(filler));
        }
        int batches = 0;
        for (auto& element : stream) {
            co_await stage.send(std::move(element));
            TransformStage::Result result = co_await stage.receive();
            auto* batch = std::get_if<EventBatch>(&result.element);
            if (!batch || batch->empty() ||
                !std::holds_alternative<DataChangeEvent>(batch->front()))
                continue;
            for (const Event& e : *batch) {
                const void* buffer = std::get<DataChangeEvent>(e).after->bytes().data();
                (batches == 0 ? written : second_out).insert(buffer);
            }
            ++batches;
            stage.recycle_written(*batch);  // as the runtime does once they are written
        }
    });
    REQUIRE(written.size() == 50);
    REQUIRE(second_out.size() == 50);
    std::size_t reused = 0;
    for (const void* buffer : second_out) reused += written.count(buffer);
    CHECK(reused == 50);
    while (pool.take(drained, 0)) {
    }
}

namespace {

Row order_with_note(std::int64_t id, const std::string& name, const std::string& note) {
    RowBuilder b(3);
    b.set_long(0, id).set_string(1, name).set_string(2, note);
    return std::move(b).build();
}

// Inserts of ids from..to-1 with the `note` column, "x".
EventBatch inserts_with_note(std::int64_t from, std::int64_t to) {
    EventBatch batch;
    for (std::int64_t id = from; id < to; ++id)
        batch.push_back(Event(
            DataChangeEvent::insert(kOrders, order_with_note(id, "n" + std::to_string(id), "x"))));
    return batch;
}

// Sends `stream` from one task and drains the stage in this one, as the runtime does: what came
// out of each batch (its rows' texts, the others' names) and the transform state at each barrier.
struct Drained {
    std::vector<std::vector<std::string>> batches;
    std::vector<std::string> states;
};
std::string text_of(const Event& e) {
    const auto* d = std::get_if<DataChangeEvent>(&e);
    if (std::holds_alternative<CreateTableEvent>(e)) return "CreateTableEvent";
    if (std::holds_alternative<AddColumnEvent>(e)) return "AddColumnEvent";
    if (!d) return "another event";
    RowView row = d->after->view();
    std::string text = std::to_string(row.get_long(0));
    for (std::size_t i = 1; i < row.arity(); ++i) text += "," + std::string(row.get_string(i));
    return text;
}
asio::awaitable<Drained> feed_and_drain(TransformStage& stage, asio::io_context& io,
                                        std::vector<StreamElement>& stream) {
    bool fed = false;
    feed_in_background(io, stage, stream, fed);
    Drained out;
    for (std::size_t received = 0; received < stream.size(); ++received) {
        TransformStage::Result result = co_await stage.receive();
        if (auto* batch = std::get_if<EventBatch>(&result.element)) {
            auto& texts = out.batches.emplace_back();
            for (const Event& e : *batch) texts.push_back(text_of(e));
            stage.recycle_written(*batch);  // the written rows become the lanes' spare buffers
        } else if (std::holds_alternative<Barrier>(result.element)) {
            out.states.push_back(result.transform_state);
        }
    }
    co_await wait_until(fed);
    co_return out;
}

}  // namespace

TEST_CASE("a stage of two lanes keeps the order, and a schema change reaches both lanes") {
    auto first = operator_for("*, UPPER(name) AS shout", "id % 3 < 2");
    auto second = operator_for("*, UPPER(name) AS shout", "id % 3 < 2");
    std::vector<TransformStage::LaneParts> lanes{{first.get(), nullptr}, {second.get(), nullptr}};
    ColumnWithPosition note;
    note.column = Column{"note", DataType::string(), "", std::nullopt};
    Drained drained;
    std::size_t elements_sent = 0;
    std::vector<std::uint64_t> runs;
    run_on_loop([&](asio::io_context& io) -> asio::awaitable<void> {
        TransformStage stage(io, lanes);
        std::vector<StreamElement> stream;
        EventBatch create;
        create.push_back(Event(CreateTableEvent{kOrders, orders()}));
        create.push_back(Event(DataChangeEvent::insert(kOrders, order(0, "n0"))));
        stream.emplace_back(std::move(create));
        for (int b = 0; b < 15; ++b) stream.emplace_back(inserts(b * 100 + 1, b * 100 + 101));
        stream.emplace_back(Barrier{3});
        // Rows before, the new column, rows after it, in one batch: each lane must know it.
        EventBatch change = inserts(1501, 1511);
        change.push_back(Event(AddColumnEvent{kOrders, {note}}));
        for (Event& e : inserts_with_note(1511, 1521)) change.push_back(std::move(e));
        stream.emplace_back(std::move(change));
        for (int b = 0; b < 10; ++b)
            stream.emplace_back(inserts_with_note(1521 + b * 50, 1571 + b * 50));
        stream.emplace_back(Barrier{4});
        stream.emplace_back(EndOfInput{});
        elements_sent = stream.size();
        drained = co_await feed_and_drain(stage, io, stream);
        runs = stage.runs_per_lane();
    });
    // One batch per batch sent, each with its events in order.
    REQUIRE(drained.batches.size() == elements_sent - 3);
    std::vector<std::string> texts, expected;
    for (const auto& batch : drained.batches) texts.insert(texts.end(), batch.begin(), batch.end());
    for (std::int64_t id = 0; id < 2021; ++id) {
        if (id == 1511) expected.emplace_back("AddColumnEvent");
        if (id % 3 == 2) continue;  // filtered out
        std::string name = "n" + std::to_string(id);
        // `*` takes the new column on either lane: id, name, note, then the computed column.
        expected.push_back(std::to_string(id) + "," + name + (id >= 1511 ? ",x" : "") + ",N" +
                           name.substr(1));
    }
    expected.insert(expected.begin(), "CreateTableEvent");
    CHECK(texts == expected);
    // Both lanes' operators saw every schema change: the state at each barrier is theirs.
    REQUIRE(drained.states.size() == 2);
    CHECK(drained.states[1] == first->snapshot_state());
    // Sent back to back, the runs overflowed the first lane: both lanes transformed data.
    CHECK(runs[0] > 0);
    CHECK(runs[1] > 0);
    CHECK(first->snapshot_state() == second->snapshot_state());
    CHECK(drained.states[0] != drained.states[1]);
}

TEST_CASE("a failing expression in a stage of two lanes fails receive() in the order it was sent") {
    auto first = operator_for("*, CAST(name AS TIMESTAMP) AS n", "");
    auto second = operator_for("*, CAST(name AS TIMESTAMP) AS n", "");
    std::vector<TransformStage::LaneParts> lanes{{first.get(), nullptr}, {second.get(), nullptr}};
    std::size_t good_batches = 0;
    bool failed = false, table_first = false;
    run_on_loop([&](asio::io_context& io) -> asio::awaitable<void> {
        TransformStage stage(io, lanes);
        std::vector<StreamElement> stream;
        EventBatch create;
        create.push_back(Event(CreateTableEvent{kOrders, orders()}));
        stream.emplace_back(std::move(create));
        auto good = [](std::int64_t id) {
            EventBatch batch;
            batch.push_back(
                Event(DataChangeEvent::insert(kOrders, order(id, "2024-01-01 00:00:00"))));
            return batch;
        };
        stream.emplace_back(good(1));
        EventBatch bad;
        bad.push_back(Event(DataChangeEvent::insert(kOrders, order(42, "not a time"))));
        stream.emplace_back(std::move(bad));
        stream.emplace_back(good(3));  // transformed, never received
        // The table first, received before the rest is sent: sent all at once, the five
        // pieces (the table once per lane) could fill both lanes' channels, and a run waiting
        // for a full lane then waited for a receive() that came only after every send (it hung
        // under ASan in a CI run). The pipeline receives while it sends.
        co_await stage.send(std::move(stream[0]));
        TransformStage::Result table = co_await stage.receive();
        table_first = std::holds_alternative<EventBatch>(table.element);
        for (std::size_t k = 1; k < stream.size(); ++k) co_await stage.send(std::move(stream[k]));
        try {
            for (int i = 0; i < 3; ++i) {
                TransformStage::Result result = co_await stage.receive();
                if (const auto* batch = std::get_if<EventBatch>(&result.element))
                    for (const Event& e : *batch)
                        good_batches += std::holds_alternative<DataChangeEvent>(e);
            }
        } catch (const transform::TransformError& e) {
            failed = true;
            CHECK(std::string(e.what()).find("id=42") != std::string::npos);
        }
    });
    CHECK(table_first);
    CHECK(failed);
    CHECK(good_batches == 1);
}

TEST_CASE("a tap at the source point sees each schema change once, whatever the lanes") {
    auto first = operator_for("*, UPPER(name) AS shout", "");
    auto second = operator_for("*, UPPER(name) AS shout", "");
    std::vector<TransformStage::LaneParts> lanes{{first.get(), nullptr}, {second.get(), nullptr}};
    metrics::Registry registry;
    TapHub hub({}, registry);
    auto opened = hub.open("point=source&limit=100000&rate=1000");
    REQUIRE(opened.status == 200);
    ColumnWithPosition note;
    note.column = Column{"note", DataType::string(), "", std::nullopt};
    run_on_loop([&](asio::io_context& io) -> asio::awaitable<void> {
        TransformStage stage(io, lanes, &hub);
        std::vector<StreamElement> stream;
        EventBatch create;
        create.push_back(Event(CreateTableEvent{kOrders, orders()}));
        stream.emplace_back(std::move(create));
        for (int b = 0; b < 4; ++b) stream.emplace_back(inserts(b * 10, b * 10 + 10));
        EventBatch change = inserts(40, 45);
        change.push_back(Event(AddColumnEvent{kOrders, {note}}));
        stream.emplace_back(std::move(change));
        stream.emplace_back(Barrier{1});
        stream.emplace_back(EndOfInput{});
        co_await feed_and_drain(stage, io, stream);
    });
    std::string out;
    hub.take(*opened.tap, out);
    std::size_t changes = 0, rows = 0;
    for (std::size_t at = out.find('\n'), from = 0; at != std::string::npos;
         from = at + 1, at = out.find('\n', from)) {
        std::string line = out.substr(from, at - from);
        changes += line.find(R"("op":"schema-change")") != std::string::npos;
        rows += line.find(R"("op":"insert")") != std::string::npos;
    }
    CHECK(changes == 2);  // the table's creation and the new column, each once
    CHECK(rows == 45);
    hub.close(opened.tap);
}

namespace {

// The lane's bad-record sink: holds the lane at its first bad record until the test releases it
// (or 20 s pass, so a test that goes wrong fails instead of hanging), then passes the records on
// to `inner` (without one, or the held one when `skips_held`, they are skipped). While the lane
// is held, the batches sent after the one it holds find it busy with no result of it waiting,
// and the loop takes one, whatever the scheduling.
class LaneHold final : public BadRecordSink {
  public:
    explicit LaneHold(BadRecordSink* inner = nullptr, bool skips_held = false)
        : inner_(inner), skips_held_(skips_held) {}
    void handle(BadRecord record) override {
        const bool held = hold();
        if (inner_ && !(held && skips_held_)) inner_->handle(std::move(record));
    }
    void skip(BadRecord record) override {
        hold();
        if (inner_) inner_->skip(std::move(record));
    }
    // Never `fail`: the operator would then throw at a bad row without handing it over. A
    // failing `inner` still fails the row it is passed.
    BadRecordPolicy policy() const override {
        return inner_ && inner_->policy() == BadRecordPolicy::DeadLetter
                   ? BadRecordPolicy::DeadLetter
                   : BadRecordPolicy::Skip;
    }
    void release() {
        {
            std::lock_guard lock(mutex_);
            released_ = true;
        }
        cv_.notify_all();
    }

  private:
    bool hold() {  // true for the first record
        std::unique_lock lock(mutex_);
        cv_.wait_for(lock, std::chrono::seconds(20), [this] { return released_; });
        return held_++ == 0;
    }
    BadRecordSink* inner_;
    bool skips_held_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool released_ = false;
    int held_ = 0;
};

// Batches of `rows` inserts from `from` on.
void add_batches(std::vector<StreamElement>& stream, std::int64_t from, int batches,
                 std::int64_t rows) {
    for (int b = 0; b < batches; ++b)
        stream.emplace_back(inserts(from + b * rows, from + (b + 1) * rows));
}

// What came out, each batch kept whole (its texts are taken after the run: the drain is quick,
// so the loop is free to help), with the state and dead letters at each barrier.
struct DrainedWhole {
    std::vector<EventBatch> batches;
    std::vector<std::string> states;
    std::vector<std::string> dead_letters;
    std::vector<std::string> texts() const {
        std::vector<std::string> out;
        for (const auto& batch : batches)
            for (const Event& e : batch) out.push_back(text_of(e));
        return out;
    }
};

// Sends `stream` from one task and drains the stage in this one; `hold` is released once the
// loop has transformed a batch.
asio::awaitable<DrainedWhole> feed_and_drain_held(TransformStage& stage, asio::io_context& io,
                                                  std::vector<StreamElement>& stream,
                                                  LaneHold& hold) {
    bool fed = false;
    auto noted = [&stage, &hold](std::size_t) {
        if (stage.runs_on_loop() > 0) hold.release();
    };
    feed_in_background(io, stage, stream, fed, noted);
    DrainedWhole out;
    std::exception_ptr error;
    try {
        for (std::size_t received = 0; received < stream.size(); ++received) {
            TransformStage::Result result = co_await stage.receive();
            if (auto* batch = std::get_if<EventBatch>(&result.element)) {
                out.batches.push_back(std::move(*batch));
            } else if (std::holds_alternative<Barrier>(result.element)) {
                out.states.push_back(result.transform_state);
                out.dead_letters.push_back(result.dead_letters);
            }
        }
    } catch (...) {
        error = std::current_exception();
        stage.close();  // the feeder may wait for a lane
    }
    hold.release();
    co_await wait_until(fed);
    if (error) std::rethrow_exception(error);
    co_return out;
}

}  // namespace

TEST_CASE("with the lane busy the loop transforms a batch itself, in order, by the new schema") {
    // id 1 fails the filter: the lane is held there. Every batch is of the schema with `note`,
    // which the loop's operator knows only from the change sent before them.
    const std::string filter = "id % 3 < 2 AND 100 / (id - 1) > -1000";
    auto lane = operator_for("*, UPPER(name) AS shout", filter);
    auto helper = operator_for("*, UPPER(name) AS shout", filter);
    LaneHold hold;
    lane->set_bad_records(&hold);
    LaneHold never_held;  // the loop skips id 1 too, should it take the first batch
    never_held.release();
    helper->set_bad_records(&never_held);
    ColumnWithPosition note;
    note.column = Column{"note", DataType::string(), "", std::nullopt};
    DrainedWhole drained;
    std::size_t elements_sent = 0;
    std::uint64_t loop_runs = 0;
    run_on_loop([&](asio::io_context& io) -> asio::awaitable<void> {
        TransformStage stage(io, *lane);
        stage.help_on_loop({helper.get(), nullptr});
        std::vector<StreamElement> stream;
        EventBatch first;
        first.push_back(Event(CreateTableEvent{kOrders, orders()}));
        first.push_back(Event(AddColumnEvent{kOrders, {note}}));
        stream.emplace_back(std::move(first));
        for (int b = 0; b < 8; ++b) stream.emplace_back(inserts_with_note(b * 200, (b + 1) * 200));
        stream.emplace_back(Barrier{3});
        stream.emplace_back(EndOfInput{});
        elements_sent = stream.size();
        drained = co_await feed_and_drain_held(stage, io, stream, hold);
        loop_runs = stage.runs_on_loop();
    });
    REQUIRE(drained.batches.size() == elements_sent - 2);
    std::vector<std::string> expected{"CreateTableEvent", "AddColumnEvent"};
    for (std::int64_t id = 0; id < 1600; ++id) {
        if (id % 3 == 2 || id == 1) continue;  // filtered out; the bad row skipped
        std::string name = "n" + std::to_string(id);
        expected.push_back(std::to_string(id) + "," + name + ",x,N" + name.substr(1));
    }
    CHECK(drained.texts() == expected);
    CHECK(loop_runs > 0);
    // Its operator has every schema change the lane has.
    CHECK(helper->snapshot_state() == lane->snapshot_state());
    REQUIRE(drained.states.size() == 1);
    CHECK(drained.states[0] == lane->snapshot_state());
}

TEST_CASE("the loop's dead letters join the barrier after the rows they came from") {
    metrics::Registry registry;
    auto stage_of = [&] {
        return std::make_unique<BadRecordStage>("transform", "transform", "p",
                                                BadRecordPolicy::DeadLetter, registry, 1 << 24);
    };
    auto lane_stage = stage_of(), loop_stage = stage_of();
    auto lane = operator_for("*, CAST(1000 / (id % 100 - 7) AS STRING) AS q", "");
    auto helper = operator_for("*, CAST(1000 / (id % 100 - 7) AS STRING) AS q", "");
    LaneHold hold(lane_stage.get());
    lane->set_bad_records(&hold);
    helper->set_bad_records(loop_stage.get());
    DrainedWhole drained;
    std::uint64_t loop_runs = 0;
    run_on_loop([&](asio::io_context& io) -> asio::awaitable<void> {
        TransformStage stage(io, *lane, lane_stage.get());
        stage.help_on_loop({helper.get(), loop_stage.get()});
        std::vector<StreamElement> stream = stream_of_orders();
        add_batches(stream, 0, 6, 500);  // bad rows in each
        stream.emplace_back(Barrier{1});
        add_batches(stream, 3000, 6, 500);
        stream.emplace_back(Barrier{2});
        stream.emplace_back(EndOfInput{});
        drained = co_await feed_and_drain_held(stage, io, stream, hold);
        loop_runs = stage.runs_on_loop();
    });
    CHECK(loop_runs > 0);  // every batch has bad rows: the loop's operator dead-lettered some
    REQUIRE(drained.dead_letters.size() == 2);
    for (std::int64_t id = 7; id < 6000; id += 100) {
        const std::string at = "{id=" + std::to_string(id) + "}";
        const std::string& in = drained.dead_letters[id < 3000 ? 0 : 1];
        const std::string& not_in = drained.dead_letters[id < 3000 ? 1 : 0];
        CHECK(in.find(at) != std::string::npos);
        CHECK(in.find(at) == in.rfind(at));  // once
        CHECK(not_in.find(at) == std::string::npos);
    }
    std::size_t rows = 0;
    for (const auto& batch : drained.batches) rows += batch.size();
    CHECK(rows == 1 + 6000 - 60);  // the table, and every row but the bad ones
}

TEST_CASE("a failing expression on the loop fails receive() in the order it was sent") {
    // The first batch is good but for one row the lane is held at (then skipped); every batch
    // after it is bad (the lane's policy fails, as the loop's operator does). The loop takes the
    // second or the third while the lane is held: whichever transforms the second, receive() fails
    // on it, after the first.
    auto lane = operator_for("*, CAST(name AS TIMESTAMP) AS n", "");
    auto helper = operator_for("*, CAST(name AS TIMESTAMP) AS n", "");  // fails on any bad row
    metrics::Registry registry;
    BadRecordStage fail("transform", "transform", "p", BadRecordPolicy::Fail, registry, 1 << 20);
    LaneHold hold(&fail, true);
    lane->set_bad_records(&hold);
    std::size_t good_rows = 0;
    std::string error;
    std::uint64_t loop_runs = 0;
    run_on_loop([&](asio::io_context& io) -> asio::awaitable<void> {
        TransformStage stage(io, *lane);
        stage.help_on_loop({helper.get(), nullptr});
        // The table's result first: the lane then waits for the first batch, and takes it.
        std::vector<StreamElement> table = stream_of_orders();
        co_await stage.send(std::move(table[0]));
        co_await stage.receive();
        std::vector<StreamElement> stream;
        for (std::int64_t b = 0; b < 6; ++b) {
            EventBatch batch;
            for (std::int64_t id = b * 100; id < b * 100 + 100; ++id) {
                const char* name = b > 0 ? "not a time" : id == 50 ? "held" : "2024-01-01 00:00:00";
                batch.push_back(Event(DataChangeEvent::insert(kOrders, order(id, name))));
            }
            stream.emplace_back(std::move(batch));
        }
        bool fed = false;
        auto noted = [&stage, &hold](std::size_t) {
            if (stage.runs_on_loop() > 0) hold.release();
        };
        feed_in_background(io, stage, stream, fed, noted);
        try {
            for (std::size_t i = 0; i < stream.size(); ++i) {
                TransformStage::Result result = co_await stage.receive();
                if (const auto* batch = std::get_if<EventBatch>(&result.element))
                    for (const Event& e : *batch)
                        good_rows += std::holds_alternative<DataChangeEvent>(e);
            }
        } catch (const std::exception& e) {  // the loop's TransformError, the lane's policy's
            error = e.what();
        }
        loop_runs = stage.runs_on_loop();
        stage.close();  // the feeder may wait for the failed lane
        hold.release();
        co_await wait_until(fed);
    });
    CHECK(good_rows == 99);
    CHECK(error.find("id=100") != std::string::npos);
    CHECK(loop_runs > 0);
}

TEST_CASE("the loop leaves the transform to the lanes while it is behind with their results") {
    // A slow receiver (a sink that formats on the loop): the lane's results wait for it, so the
    // loop has its own work and must not take batches too, however busy the lane.
    auto lane = operator_for("*, UPPER(name) AS shout", "");
    auto helper = operator_for("*, UPPER(name) AS shout", "");
    std::uint64_t loop_runs = 0;
    std::size_t batches = 0;
    run_on_loop([&](asio::io_context& io) -> asio::awaitable<void> {
        TransformStage stage(io, *lane);
        stage.help_on_loop({helper.get(), nullptr});
        std::vector<StreamElement> stream = stream_of_orders();
        add_batches(stream, 0, 60, 100);
        stream.emplace_back(EndOfInput{});
        bool fed = false;
        feed_in_background(io, stage, stream, fed);
        asio::steady_timer slow(io);
        for (std::size_t i = 0; i < stream.size(); ++i) {
            TransformStage::Result result = co_await stage.receive();
            if (auto* batch = std::get_if<EventBatch>(&result.element)) {
                ++batches;
                stage.recycle_written(*batch);
            }
            slow.expires_after(std::chrono::milliseconds(2));
            co_await slow.async_wait(asio::use_awaitable);
        }
        co_await wait_until(fed);
        loop_runs = stage.runs_on_loop();
    });
    CHECK(batches == 61);
    CHECK(loop_runs <= 2);
}
