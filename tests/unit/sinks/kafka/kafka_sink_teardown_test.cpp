// A failing pipeline stops its event loop while a writer's flush may be running on a helper
// thread, then destroys the writer, the sink and the io_context: the writer waits for the flush
// (a slice of at most a second) before its producer goes. Run under the asan preset too.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "sinks/kafka/kafka_sink.h"

using namespace cdcd;
using namespace cdcd::kafka;
using namespace std::chrono_literals;
namespace asio = boost::asio;

TEST_CASE("kafka sink: a writer torn down after its loop stopped mid-flush waits for the flush") {
    KafkaSinkSettings settings;
    // Nothing listens there: the records stay queued and each flush slice waits its full second.
    settings.client.librdkafka = {{"bootstrap.servers", "127.0.0.1:1"},
                                  {"log_level", "0"},
                                  {"socket.connection.setup.timeout.ms", "1000"}};
    settings.topic = "t";
    settings.delivery = DeliveryGuarantee::AtLeastOnce;
    settings.pipeline_name = "teardown";

    const TableId table = TableId::of("db", "t");
    EventBatch batch;
    batch.push_back(
        CreateTableEvent{table, SchemaBuilder().column("id", DataType::string()).build()});
    RowBuilder row(1);
    row.set_string(0, "1");
    batch.push_back(DataChangeEvent::insert(table, std::move(row).build()));

    bool flushed = false;
    std::chrono::steady_clock::duration writer_teardown{};
    {
        asio::io_context io;
        auto sink = std::make_unique<KafkaSink>(settings);
        auto writer = sink->create_writer(0, 1);
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                co_await writer->write(batch);
                co_await writer->flush(1);
                flushed = true;
            },
            asio::detached);
        io.run_for(50ms);  // the flush is now inside rd_kafka_flush on a helper thread
        io.stop();
        auto start = std::chrono::steady_clock::now();
        writer.reset();
        writer_teardown = std::chrono::steady_clock::now() - start;
        sink.reset();
    }
    CHECK_FALSE(flushed);
    // The rest of the slice (about 950 ms); a writer that did not wait returns in a millisecond.
    CHECK(writer_teardown >= 300ms);
}
