#pragma once
// The `values` sink, compatible with Flink CDC's: prints every event in Flink's exact format
// (`N> ` prefix only when parallelism > 1), optionally materializes tables in memory, and can
// reject every schema change to exercise TRY_EVOLVE.
#include <boost/asio/any_io_executor.hpp>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "metrics/connector_metrics.h"
#include "pipeline/connector/sink.h"

namespace cdcd::values {

struct ValuesSinkSettings {
    bool print = true;
    bool materialize = false;
    bool error_on_schema_change = false;
};

/// Rows by primary key, per table, as the events left them (materialized.in.memory).
class MaterializedTables {
  public:
    void apply(const Event& event);
    const std::map<std::string, std::string>* rows(
        TableId table) const;  // printed pk → printed row
    std::size_t total_rows() const;

  private:
    std::unordered_map<TableId, Schema> schemas_;
    std::unordered_map<TableId, std::map<std::string, std::string>> tables_;
};

class StdoutWriter;

class ValuesSink final : public Sink {
  public:
    /// Counts records_out (events handled) and bytes_out (bytes printed) on `registry`.
    ValuesSink(ValuesSinkSettings settings, const boost::asio::any_io_executor& executor,
               metrics::Registry& registry = metrics::Registry::detached());
    ~ValuesSink() override;
    std::unique_ptr<SinkWriter> create_writer(int index, int parallelism) override;
    MetadataApplier& metadata_applier() override { return *applier_; }
    MaterializedTables& materialized() { return materialized_; }

  private:
    ValuesSinkSettings settings_;
    std::unique_ptr<MetadataApplier> applier_;
    MaterializedTables materialized_;
    std::unique_ptr<StdoutWriter> stdout_;
    metrics::ConnectorMetrics metrics_;
};

}  // namespace cdcd::values
