// The pipeline YAML (source, sink, route, transform, pipeline) parsed with Flink CDC's
// strictness, every part keeping its file:line:column. Connector and pipeline options stay
// untyped here (RawOptions); they are validated against their specs by the caller
// (option_validator.h, pipeline_options.h).
#pragma once

#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "config/interpolation.h"
#include "config/raw_options.h"
#include "config/yaml_loader.h"

namespace cdcd::config {

struct ConnectorDef {
    std::string type;
    std::string name;  // optional display name, "" if absent
    SourceLocation where;
    SourceLocation type_where;  // the `type` value, for errors about it (else the block's key)
    RawOptions options;         // everything except type, name and the schema-change lists
    // Sink only (YAML lists of schema change tags, e.g. add.column, drop, all).
    std::vector<std::string> include_schema_changes;
    std::vector<std::string> exclude_schema_changes;
    bool has_exclude_schema_changes = false;
};

struct RouteDef {
    std::string source_table;
    std::string sink_table;
    std::string replace_symbol;
    std::string description;
    SourceLocation where;
};

struct TransformDef {
    std::string source_table;
    std::string projection;  // "\*" already replaced by "*", as Flink's parser does
    std::string filter;
    std::string primary_keys;
    std::string partition_keys;
    std::string table_options;
    std::string table_options_delimiter = ",";
    std::string converter_after_transform;
    std::string description;
    SourceLocation where;
    SourceLocation projection_where;  // position of the projection value (the entry if absent)
    SourceLocation filter_where;      // position of the filter value (the entry if absent)
};

struct PipelineDef {
    std::string file;
    ConnectorDef source;
    ConnectorDef sink;
    std::vector<RouteDef> routes;
    std::vector<TransformDef> transforms;
    RawOptions pipeline;
    SourceLocation pipeline_where;  // position of the `pipeline` block (the file if absent)
};

// The schema change tags accepted in include/exclude.schema.changes (exact and family tags).
const std::vector<std::string>& schema_change_tags();

// Build a PipelineDef from an (already interpolated) document; problems go to diags.
PipelineDef parse_pipeline(const YamlDocument& doc, Diagnostics& diags);

// Load, interpolate and parse a pipeline file (or text); throws ConfigError with every
// diagnostic if anything is wrong.
// `templates` names the connector options whose ${...} placeholders are not interpolated.
PipelineDef load_pipeline(const std::string& path, const Secrets& secrets,
                          const EnvLookup& env = process_env,
                          const TemplateOptions& templates = {});
PipelineDef load_pipeline_string(std::string_view text, const std::string& display_name,
                                 const Secrets& secrets, const EnvLookup& env = process_env,
                                 const TemplateOptions& templates = {});

}  // namespace cdcd::config
