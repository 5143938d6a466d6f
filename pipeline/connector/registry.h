#pragma once
// Connector factories, registered by name (`type:` in the YAML). The runtime looks connectors up
// here and never names one; each connector folder registers itself (see cdcd_connector() in
// CMake, which generates the list of registration calls).
#include <boost/asio/io_context.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "config/option_spec.h"
#include "config/option_validator.h"
#include "config/pipeline_def.h"
#include "metrics/registry.h"
#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/sink.h"
#include "pipeline/connector/source.h"
#include "pipeline/connector/transform_functions.h"
#include "pipeline/data/table_id.h"
#include "pipeline/schema/schema.h"

namespace cdcd {

/// Pipeline-wide settings a connector may need.
struct PipelineSettings {
    std::string name;
    int parallelism = 1;
    std::string local_time_zone;  // resolved: an IANA name or ±HH:MM, never "systemDefault"
    std::int64_t checkpoint_interval_ms = 10'000;
};

struct ConnectorContext {
    const config::ValidatedOptions& options;
    const config::ConnectorDef& definition;
    const PipelineSettings& pipeline;
    boost::asio::io_context& io;
    /// Where the connector reports its metrics (see metrics/connector_metrics.h and
    /// docs/operations.md). Never null: outside a pipeline run it is a registry nobody scrapes.
    metrics::Registry* metrics = &metrics::Registry::detached();
    /// The pipeline's bad-record policy (see pipeline/connector/bad_records.h): a source hands
    /// undecodable records to bad_records->source(), sink writer i rejected ones to
    /// bad_records->writer(i). Never null: outside a pipeline run, policy `fail`.
    BadRecordHandlers* bad_records = &BadRecordHandlers::detached();
    /// True once the pipeline stops (SIGTERM/SIGINT drain, or a failure); empty outside a
    /// pipeline run. Sources have SourceOutput::stopping(); a sink polls this in its own waits
    /// (retry backoff, throttling) and ends them, failing the write or flush that waited: a
    /// drain then exits promptly without a final checkpoint, and what the sink had not delivered
    /// is replayed from the last checkpoint on restart, instead of the drain running into
    /// pipeline.shutdown.timeout. A request already answered is not undone.
    std::function<bool()> stopping = nullptr;
};

/// Cross-option rules (`a` requires `b`, ...) of a connector, checked by `cdcd validate` and at
/// start: its validated options, its YAML block, and the `pipeline` block's validated options
/// (for rules that depend on them, such as pipeline.name); errors go to the diagnostics with the
/// YAML position of the option to blame.
using ValidateHook = std::function<void(
    const config::ValidatedOptions& options, const config::ConnectorDef& definition,
    const config::ValidatedOptions& pipeline, config::Diagnostics& diagnostics)>;

/// A metadata column a source puts in each event's meta (Flink's SupportedMetadataColumn), usable
/// in transform projections and filters by name.
struct MetadataColumn {
    std::string name;
    DataType type;
};

/// A table whose name and schema a source's options alone determine: `cdcd validate` binds the
/// transform rules that select it to this schema, so a column or argument type error is found
/// before any data is read. A table that changes schema is listed once per schema it takes.
struct KnownTable {
    TableId table;
    Schema schema;
};

/// The option that keeps a source from ending by itself (it follows changes for ever), for
/// `execution.runtime-mode: BATCH`, which runs only sources that end: its key, its value, and the
/// value with which the source ends after its snapshot.
struct UnboundedBy {
    std::string option;
    std::string value;
    std::string bounded_value;
};

struct SourceFactory {
    std::string name;
    std::string description;
    config::ConnectorOptionsSpec options;
    /// The metadata columns events of this source carry (may depend on options such as
    /// `metadata.list`); none when unset.
    std::function<std::vector<MetadataColumn>(const config::ValidatedOptions&)> metadata_columns;
    /// The tables known before any data is read (none when unset or unknown).
    std::function<std::vector<KnownTable>(const config::ValidatedOptions&)> known_tables;
    ValidateHook validate;
    /// nullopt when the source, with these options, ends by itself (a snapshot-only startup, a
    /// bounded mode); else the option that keeps it running. Unset: the source never ends.
    std::function<std::optional<UnboundedBy>(const config::ValidatedOptions&)> unbounded_by;
    std::function<std::unique_ptr<Source>(const ConnectorContext&)> create;
    /// The functions this source adds to its pipeline's transform expressions (oss-cdc's
    /// FETCH_CONTENT), working with `source`, the one create() made for the pipeline (null when
    /// the pipeline is only validated). Unset: none.
    std::function<TransformFunctions(Source* source)> transform_functions;
};

struct SinkFactory {
    std::string name;
    std::string description;
    config::ConnectorOptionsSpec options;
    ValidateHook validate;
    std::function<std::unique_ptr<Sink>(const ConnectorContext&)> create;
};

class ConnectorRegistry {
  public:
    /// The process-wide registry, filled with the built-in connectors on first use (defined in
    /// the generated connector list, cdcd_connectors).
    static ConnectorRegistry& builtin();

    void add(SourceFactory factory);
    void add(SinkFactory factory);
    const SourceFactory* source(const std::string& name) const;
    const SinkFactory* sink(const std::string& name) const;
    std::vector<std::string> source_names() const;
    /// Whether `key` of a `block` ("source"/"sink") of connector `type` is a template option.
    bool is_template_option(const std::string& block, const std::string& type,
                            const std::string& key) const;
    std::vector<std::string> sink_names() const;

  private:
    std::map<std::string, SourceFactory> sources_;
    std::map<std::string, SinkFactory> sinks_;
};

}  // namespace cdcd
