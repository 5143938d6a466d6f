#pragma once
// The `file` sink (cdcd's own): one JSON document per data change per line, in the shapes the
// Kafka sink writes (debezium-json or canal-json), into an AppendOnlyFile: flushed and fsynced at
// each checkpoint, whose state names the file and its committed length; a restore truncates that
// very file back to it, so the file holds every change exactly once, and refuses any other file.
#include <memory>
#include <string>

#include "formats/json/change_serializers.h"
#include "metrics/connector_metrics.h"
#include "pipeline/connector/sink.h"
#include "pipeline/output/append_only_file.h"

namespace cdcd::file {

enum class FileFormat { DebeziumJson, CanalJson };

struct FileSinkSettings {
    std::string path;
    FileFormat format = FileFormat::DebeziumJson;
    /// What a fresh start (no checkpoint) does with a non-empty file at `path` (option if-exists).
    output::IfExists if_exists = output::IfExists::Fail;
    json::DebeziumJsonOptions debezium;
};

class FileSink final : public Sink {
  public:
    /// Counts bytes_out (bytes written to the file) and records_out (lines written) on `registry`.
    FileSink(FileSinkSettings settings, metrics::Registry& registry);
    std::unique_ptr<SinkWriter> create_writer(int index, int parallelism) override;
    MetadataApplier& metadata_applier() override { return *applier_; }
    /// Each writer owns its file (`path.<index>`), buffer and schemas.
    bool writers_are_independent() const override { return true; }
    /// At another parallelism: writer_state.h (files are handed on by name, or cut back).
    std::vector<std::optional<std::string>> rescale_writer_states(
        const std::vector<std::string>& states, int parallelism) const override;

  private:
    FileSinkSettings settings_;
    std::unique_ptr<MetadataApplier> applier_;
    metrics::ConnectorMetrics metrics_;
};

}  // namespace cdcd::file
