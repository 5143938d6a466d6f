// TransformStage: the transform on its own thread, fed and drained by coroutines on an event loop.
#include "pipeline/runtime/transform_stage.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <functional>
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

// Runs `body` as a coroutine on a fresh loop until it returns; rethrows its exception.
void run_on_loop(const std::function<asio::awaitable<void>(asio::io_context&)>& body) {
    asio::io_context io;
    std::exception_ptr error;
    asio::co_spawn(io, body(io), [&](std::exception_ptr e) { error = std::move(e); });
    io.run();
    if (error) std::rethrow_exception(error);
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
        asio::co_spawn(
            io,
            [&stage, &stream]() -> asio::awaitable<void> {
                for (auto& element : stream) co_await stage.send(std::move(element));
            },
            asio::detached);
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
    // home (Source::row_buffer_return) they return there instead of to the loop's pool.
    auto op = operator_for("*, UPPER(name) AS shout", "id % 2 < 1");
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
