// The metadata applier and a writer against the VikingDB emulator (tests/emulators/vikingdb,
// started as a subprocess): CREATE TABLE creates the collection, TRUNCATE TABLE empties it
// (del_all), DROP TABLE deletes it, other schema changes fail with the table and the change.
// No source emits TRUNCATE / DROP TABLE yet, so these are tested here rather than end to end.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "sinks/vikingdb/metadata_applier.h"
#include "sinks/vikingdb/vikingdb_sink.h"

using namespace cdcd;
using namespace cdcd::vikingdb;
namespace asio = boost::asio;

namespace {

/// `python3 server.py --port 0`, stopped with SIGTERM.
class Emulator {
  public:
    Emulator() {
        const char* src = std::getenv("CDCD_SOURCE_DIR");
        std::string dir = src ? src
                              : std::filesystem::path(__FILE__)
                                    .parent_path()
                                    .parent_path()
                                    .parent_path()
                                    .parent_path()
                                    .parent_path()
                                    .string();
        std::string server = dir + "/tests/emulators/vikingdb/server.py";
        if (!std::filesystem::exists(server)) return;
        int out[2];
        if (pipe(out) != 0) return;
        pid_ = fork();
        if (pid_ == 0) {
            dup2(out[1], 1);
            close(out[0]);
            execlp("python3", "python3", server.c_str(), "--port", "0",
                   static_cast<char*>(nullptr));
            _exit(127);
        }
        close(out[1]);
        FILE* f = fdopen(out[0], "r");
        char line[128] = {};
        if (f && std::fgets(line, sizeof line, f) && std::string(line).rfind("LISTENING ", 0) == 0)
            port_ = std::atoi(line + 10);
        if (f) std::fclose(f);
    }
    ~Emulator() {
        if (pid_ > 0) {
            kill(pid_, SIGTERM);
            waitpid(pid_, nullptr, 0);
        }
    }
    int port() const { return port_; }

  private:
    pid_t pid_ = -1;
    int port_ = 0;
};

template <typename T>
T run(asio::io_context& io, asio::awaitable<T> task) {
    auto fut = asio::co_spawn(io, std::move(task), asio::use_future);
    io.restart();
    while (fut.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready) io.run_one();
    return fut.get();
}

asio::awaitable<std::string> control_get(net::HttpClient& http, std::string url) {
    net::HttpRequest req;
    req.url = std::move(url);
    net::HttpResponse r = co_await http.send(std::move(req));
    std::string compact;
    for (char c : r.body)
        if (c != ' ') compact.push_back(c);
    co_return compact;
}

}  // namespace

TEST_CASE("CREATE, TRUNCATE and DROP TABLE against the emulator, unsupported changes fail") {
    Emulator emu;
    if (emu.port() == 0) {
        WARN("python3 or the VikingDB emulator is unavailable; skipped");
        return;
    }
    std::string host = "127.0.0.1:" + std::to_string(emu.port());
    VikingdbSettings s;
    s.region = "cn-beijing";
    s.control_scheme = s.data_scheme = "http";
    s.control_host = s.data_host = host;
    s.credentials = {"test-api-key", "AKTEST", "SKTEST"};
    s.max_retries = 0;
    asio::io_context io;
    VikingdbSink sink(s, io, "Asia/Shanghai");
    net::HttpClient http(io);
    auto rows = [&](const std::string& name) {
        return run(
            io, control_get(http, "http://" + host + "/_emulator/collections/" + name + "/rows"));
    };
    auto collections = [&] {
        return run(io, control_get(http, "http://" + host + "/_emulator/collections"));
    };

    TableId t = TableId::of("db", "docs");
    Schema schema = SchemaBuilder()
                        .column("id", DataType::bigint().not_null())
                        .column("title", DataType::string())
                        .primary_key({"id"})
                        .build();
    SchemaChangeEvent create = CreateTableEvent{t, schema};
    run(io, sink.metadata_applier().apply(create));
    CHECK(collections().find("\"CollectionName\":\"db_docs\"") != std::string::npos);

    auto writer = sink.create_writer(0, 1);
    EventBatch batch;
    batch.push_back(CreateTableEvent{t, schema});
    for (int i = 1; i <= 3; ++i) {
        RowBuilder b(2);
        b.set_long(0, i).set_string(1, "t" + std::to_string(i));
        batch.push_back(DataChangeEvent::insert(t, std::move(b).build()));
    }
    run(io, writer->write(batch));
    run(io, writer->flush(1));
    CHECK(rows("db_docs").find("\"count\":3") != std::string::npos);

    SchemaChangeEvent truncate = TruncateTableEvent{t};
    run(io, sink.metadata_applier().apply(truncate));
    CHECK(rows("db_docs").find("\"count\":0") != std::string::npos);

    SchemaChangeEvent add =
        AddColumnEvent{t,
                       {ColumnWithPosition{Column{"extra", DataType::string(), "", std::nullopt},
                                           ColumnWithPosition::Position::Last, ""}}};
    try {
        run(io, sink.metadata_applier().apply(add));
        FAIL("expected the add column to be refused");
    } catch (const SchemaEvolutionUnsupported& e) {
        std::string what = e.what();
        CHECK(what.find("does not support schema evolution") != std::string::npos);
        CHECK(what.find("on table db.docs (collection 'db_docs')") != std::string::npos);
        CHECK(what.find("extra") != std::string::npos);
    }

    SchemaChangeEvent drop = DropTableEvent{t};
    run(io, sink.metadata_applier().apply(drop));
    CHECK(collections().find("db_docs") == std::string::npos);
    run(io, writer->close());
}
