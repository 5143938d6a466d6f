// The file sink's checkpoint state names the file and its committed length
// (pipeline/output/append_only_file.h). A state stored by an earlier release, the file's own
// state without the connector state envelope, still resumes the file it names; the state now is
// that object in the envelope (pipeline/connector/connector_state.h).
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipeline/output/append_only_file.h"
#include "sinks/file/file_sink.h"
#include "tests/unit/sinks/file/file_text.h"

using namespace cdcd;
using testing::file_text;

namespace {

/// Runs one flush for checkpoint `checkpoint_id` of `writer`, returning its state.
std::string flush(SinkWriter& writer, std::uint64_t checkpoint_id) {
    boost::asio::io_context io;
    auto done = boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<std::string> {
            co_return co_await writer.flush(checkpoint_id);
        },
        boost::asio::use_future);
    io.run();
    return done.get();
}

}  // namespace

TEST_CASE("file sink: a state stored before the state envelope resumes the file it names") {
    auto path = std::filesystem::temp_directory_path() /
                ("cdcd-file-sink-state-" + std::to_string(::getpid()) + ".jsonl");
    std::filesystem::remove(path);
    std::string legacy;
    {
        // What a file sink writer returned as its state before the envelope: the file's own.
        auto file =
            output::AppendOnlyFile::open_fresh(path.string(), output::IfExists::Fail, "if-exists");
        file.append("committed\n");
        legacy = file.commit();
        file.append("lost in a crash\n");
    }
    metrics::Registry registry(metrics::Labels{{"pipeline", "t"}});
    file::FileSinkSettings settings;
    settings.path = path.string();
    file::FileSink sink(settings, registry);
    auto writer = sink.create_writer(0, 1);
    writer->restore(legacy);
    CHECK(file_text(path) == "committed\n");  // cut back to the committed length
    std::string state = flush(*writer, 1);
    CHECK_THAT(
        state,
        Catch::Matchers::StartsWith(
            R"({"connector":"file-sink","version":1,"state":{"format":"append-only-file/1",)"));
    // The new state resumes too, once the writer is gone (its file is locked while open).
    writer.reset();
    auto again = sink.create_writer(0, 1);
    again->restore(state);
    CHECK(file_text(path) == "committed\n");
    again.reset();
    std::filesystem::remove(path);
}

TEST_CASE("file sink: a checkpoint's state is the file at its barrier, synced while writes go on") {
    // The sync (fdatasync) runs on a helper thread and the writer appends what follows the
    // barrier meanwhile; the state handed over names the length at the barrier, so a resume
    // from it cuts what came after.
    auto path = std::filesystem::temp_directory_path() /
                ("cdcd-file-sink-background-sync-" + std::to_string(::getpid()) + ".jsonl");
    std::filesystem::remove(path);
    metrics::Registry registry(metrics::Labels{{"pipeline", "t"}});
    file::FileSinkSettings settings;
    settings.path = path.string();
    file::FileSink sink(settings, registry);
    const TableId table = TableId::of("db", "t");
    const Schema schema = SchemaBuilder().column("id", DataType::bigint()).build();
    auto insert = [&](std::int64_t id) {
        RowBuilder row(1);
        row.set_long(0, id);
        return Event(DataChangeEvent::insert(table, std::move(row).build()));
    };
    auto writer = sink.create_writer(0, 1);
    std::string state;
    std::uintmax_t at_barrier = 0;
    boost::asio::io_context io;
    auto done = boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            EventBatch before;
            before.push_back(CreateTableEvent{table, schema});
            before.push_back(insert(1));
            co_await writer->write(before);
            CheckpointFlush flushed = co_await writer->flush_for_checkpoint(1);
            REQUIRE(flushed.until_durable);
            at_barrier = std::filesystem::file_size(path);
            EventBatch after;
            after.push_back(insert(2));
            co_await writer->write(after);
            co_await writer->flush(0);  // written out, not synced
            co_await std::move(*flushed.until_durable);
            state = flushed.state;
        },
        boost::asio::use_future);
    io.run();
    done.get();
    const std::string both = file_text(path);
    CHECK(std::filesystem::file_size(path) > at_barrier);  // the line after the barrier
    CHECK(state.find("\"length\":" + std::to_string(at_barrier) + ",") != std::string::npos);
    writer.reset();
    auto resumed = sink.create_writer(0, 1);
    resumed->restore(state);
    CHECK(file_text(path) == both.substr(0, at_barrier));
    resumed.reset();
    std::filesystem::remove(path);
}
