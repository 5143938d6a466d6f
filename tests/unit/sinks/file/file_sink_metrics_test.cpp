// The file sink's own series: bytes written to the file and lines written.
#include <catch2/catch.hpp>
#include <filesystem>

#include "metrics/connector_metrics.h"
#include "sinks/file/file_sink.h"
#include "tests/unit/sinks/file/write_and_flush.h"

using namespace cdcd;

namespace {

Schema table_schema() {
    return SchemaBuilder()
        .column("id", DataType::string())
        .column("name", DataType::string())
        .primary_key({"id"})
        .build();
}

Row row(std::string_view id, std::string_view name) {
    RowBuilder r(2);
    r.set_string(0, id).set_string(1, name);
    return std::move(r).build();
}

}  // namespace

TEST_CASE("file sink: bytes_out is what reached the file, records_out the lines written") {
    auto path = std::filesystem::temp_directory_path() /
                ("cdcd-file-sink-metrics-" + std::to_string(::getpid()) + ".jsonl");
    std::filesystem::remove(path);
    metrics::Registry registry(metrics::Labels{{"pipeline", "t"}});
    file::FileSinkSettings settings;
    settings.path = path.string();
    file::FileSink sink(settings, registry);
    auto writer = sink.create_writer(0, 1);
    metrics::ConnectorMetrics m(registry, metrics::Role::Sink, "file");

    const TableId table = TableId::of("db", "t");
    EventBatch batch;
    batch.push_back(CreateTableEvent{table, table_schema()});
    for (int i = 0; i < 10; ++i)
        batch.push_back(DataChangeEvent::insert(table, row(std::to_string(i), "name")));
    std::string state = testing::write_and_flush(*writer, batch);

    CHECK(m.records_out.value() == 10);  // the CreateTableEvent writes no line
    CHECK(m.bytes_out.value() == std::filesystem::file_size(path));
    // The checkpoint state names the committed length (see pipeline/output/append_only_file.h).
    CHECK_THAT(state,
               Catch::Matchers::Contains("\"length\":" + std::to_string(m.bytes_out.value())));
    CHECK(m.bytes_out.value() > 10 * 20);
    // The same series the exposition shows.
    std::string text = registry.expose();
    auto line = text.find("cdcd_bytes_out_total{");
    REQUIRE(line != std::string::npos);
    CHECK(text.substr(line, text.find('\n', line) - line).find("connector=\"file\"") !=
          std::string::npos);
    writer.reset();
    std::filesystem::remove(path);
}
