// The file sink's lines follow each table's schema: column keys and debezium-json's schema block
// are rendered once per schema, and must change when the schema does, per table.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "metrics/connector_metrics.h"
#include "sinks/file/file_sink.h"
#include "tests/unit/sinks/file/write_and_flush.h"

using namespace cdcd;
using Catch::Matchers::Contains;

namespace {

Row row(std::string_view id, std::string_view name) {
    RowBuilder r(2);
    r.set_string(0, id).set_string(1, name);
    return std::move(r).build();
}

Row row3(std::string_view id, std::string_view name, std::int64_t n) {
    RowBuilder r(3);
    r.set_string(0, id).set_string(1, name).set_long(2, n);
    return std::move(r).build();
}

std::vector<std::string> write_and_read(file::FileSinkSettings settings, EventBatch batch) {
    auto path = std::filesystem::temp_directory_path() /
                ("cdcd-file-sink-format-" + std::to_string(::getpid()) + ".jsonl");
    std::filesystem::remove(path);
    settings.path = path.string();
    metrics::Registry registry(metrics::Labels{{"pipeline", "t"}});
    file::FileSink sink(settings, registry);
    auto writer = sink.create_writer(0, 1);
    testing::write_and_flush(*writer, batch);
    writer.reset();
    std::vector<std::string> lines;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::filesystem::remove(path);
    return lines;
}

}  // namespace

TEST_CASE("file sink: each table's lines follow its schema as it changes") {
    const TableId a = TableId::of("db", "a");
    const TableId b = TableId::of("db", "b");
    const Schema two =
        SchemaBuilder().column("id", DataType::string()).column("name", DataType::string()).build();
    const Schema renamed = SchemaBuilder()
                               .column("id", DataType::string())
                               .column("label", DataType::string())
                               .build();
    EventBatch batch;
    batch.push_back(CreateTableEvent{a, two});
    batch.push_back(CreateTableEvent{b, renamed});
    batch.push_back(DataChangeEvent::insert(a, row("1", "x")));
    batch.push_back(DataChangeEvent::insert(b, row("2", "y")));
    AddColumnEvent add{a, {}};
    Column n;
    n.name = "n";
    n.type = DataType::bigint();
    add.added.push_back({n, ColumnWithPosition::Position::Last, ""});
    batch.push_back(add);
    batch.push_back(DataChangeEvent::insert(a, row3("3", "z", 7)));
    batch.push_back(DataChangeEvent::insert(b, row("4", "w")));

    SECTION("debezium-json with its schema block") {
        file::FileSinkSettings settings;
        settings.debezium.include_schema = true;
        auto lines = write_and_read(settings, batch);
        REQUIRE(lines.size() == 4);
        CHECK_THAT(lines[0], Contains("\"after\":{\"id\":\"1\",\"name\":\"x\"}"));
        CHECK_THAT(lines[1], Contains("\"after\":{\"id\":\"2\",\"label\":\"y\"}"));
        CHECK_THAT(lines[2], Contains("\"after\":{\"id\":\"3\",\"name\":\"z\",\"n\":7}"));
        CHECK_THAT(lines[2], Contains("\"field\":\"n\""));  // the schema block has the new column
        CHECK_FALSE(lines[0].find("\"field\":\"n\"") != std::string::npos);
        CHECK_THAT(lines[3], Contains("\"after\":{\"id\":\"4\",\"label\":\"w\"}"));
    }
    SECTION("canal-json") {
        file::FileSinkSettings settings;
        settings.format = file::FileFormat::CanalJson;
        auto lines = write_and_read(settings, batch);
        REQUIRE(lines.size() == 4);
        CHECK_THAT(lines[2], Contains("\"data\":[{\"id\":\"3\",\"name\":\"z\",\"n\":7}]"));
        CHECK_THAT(lines[3], Contains("\"data\":[{\"id\":\"4\",\"label\":\"w\"}]"));
    }
}
