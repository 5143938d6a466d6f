#include "config/pipeline_def.h"

#include <algorithm>
#include <functional>

#include "config/suggest.h"

namespace cdcd::config {

namespace {

const std::vector<std::string> kTopLevelKeys = {"source", "sink", "route", "transform", "pipeline"};
const std::vector<std::string> kRouteKeys = {"source-table", "sink-table", "replace-symbol",
                                             "description"};
const std::vector<std::string> kTransformKeys = {"source-table",
                                                 "projection",
                                                 "filter",
                                                 "primary-keys",
                                                 "partition-keys",
                                                 "table-options",
                                                 "table-options.delimiter",
                                                 "converter-after-transform",
                                                 "description"};
constexpr std::string_view kIncludeSchemaChanges = "include.schema.changes";
constexpr std::string_view kExcludeSchemaChanges = "exclude.schema.changes";

std::string quoted(std::string_view s) {
    return "`" + std::string(s) + "`";
}

// "; did you mean `x`?" or "." to end a sentence either way.
std::string hint(std::string_view word, const std::vector<std::string>& candidates) {
    std::string s = did_you_mean(word, candidates);
    return s.empty() ? "." : s;
}

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items) {
        out += out.empty() ? "" : ", ";
        out += i;
    }
    return out;
}

std::string kind_phrase(const ConfigNode& n) {
    switch (n.kind) {
        case NodeKind::Map:
            return "a map";
        case NodeKind::List:
            return "a list";
        case NodeKind::Scalar:
            return "a scalar `" + n.scalar + "`";
        case NodeKind::Null:
            return "nothing (null)";
    }
    return "?";
}

// A scalar (or null, read as "") value; otherwise an error naming the key.
bool scalar_value(const MapEntry& e, std::string_view context, std::string& out,
                  Diagnostics& diags) {
    if (e.value.is_scalar()) {
        out = e.value.scalar;
        return true;
    }
    if (e.value.is_null()) {
        out.clear();
        return true;
    }
    diags.error(e.key_where, quoted(e.key) + " in " + std::string(context) +
                                 " must be a scalar value, got " + kind_phrase(e.value) +
                                 " (nested maps and lists are not supported here)");
    return false;
}

std::vector<std::string> schema_change_list(const MapEntry& e, std::string_view context,
                                            Diagnostics& diags) {
    std::vector<std::string> out;
    if (e.value.is_null()) {
        return out;
    }
    if (!e.value.is_list()) {
        diags.error(e.key_where, quoted(e.key) + " in " + std::string(context) +
                                     " must be a list of schema change types, got " +
                                     kind_phrase(e.value) + ". Perhaps you meant `[" +
                                     (e.value.is_scalar() ? e.value.scalar : std::string()) +
                                     "]`?");
        return out;
    }
    const auto& tags = schema_change_tags();
    for (const auto& item : e.value.items) {
        if (!item.is_scalar()) {
            diags.error(item.where, "entries of " + quoted(e.key) +
                                        " must be schema change types, got " + kind_phrase(item));
            continue;
        }
        if (std::find(tags.begin(), tags.end(), item.scalar) == tags.end()) {
            diags.error(item.where, "unknown schema change event type " + quoted(item.scalar) +
                                        " in " + quoted(e.key) + hint(item.scalar, tags) +
                                        " Allowed: " + join(tags));
            continue;
        }
        out.push_back(item.scalar);
    }
    return out;
}

void parse_connector(const MapEntry& block, bool is_sink, ConnectorDef& def, Diagnostics& diags) {
    const std::string ctx = quoted(block.key) + " block";
    def.where = block.key_where;
    def.type_where = block.key_where;
    if (!block.value.is_map()) {
        diags.error(block.key_where,
                    ctx + " must be a map with at least a `type`, got " + kind_phrase(block.value));
        return;
    }
    bool has_type = false;
    for (const auto& e : block.value.entries) {
        if (e.key == "type") {
            if (scalar_value(e, ctx, def.type, diags)) {
                has_type = true;
                def.type_where = e.value.is_null() ? e.key_where : e.value.where;
                if (def.type.empty()) {
                    diags.error(e.key_where, "`type` in " + ctx + " must not be empty");
                }
            }
        } else if (e.key == "name") {
            scalar_value(e, ctx, def.name, diags);
        } else if (is_sink && e.key == kIncludeSchemaChanges) {
            def.include_schema_changes = schema_change_list(e, ctx, diags);
        } else if (is_sink && e.key == kExcludeSchemaChanges) {
            def.has_exclude_schema_changes = true;
            def.exclude_schema_changes = schema_change_list(e, ctx, diags);
        } else {
            std::string value;
            if (scalar_value(e, ctx, value, diags)) {
                def.options.emplace(e.key, RawValue{std::move(value), e.key_where});
            }
        }
    }
    if (!has_type && block.value.find("type") == nullptr) {
        diags.error(block.key_where, "missing required field `type` in " + ctx +
                                         " (the connector identifier, e.g. `kafka`)");
    }
}

// Reads a list of maps with a fixed set of keys, calling fill(entry_node, key, value, value_where)
// for each scalar field. Returns false when the block is not a list.
template <typename Def>
void parse_entries(
    const MapEntry& block, const std::vector<std::string>& allowed,
    const std::vector<std::string>& required, std::string_view what, std::vector<Def>& out,
    Diagnostics& diags,
    const std::function<void(Def&, const std::string&, std::string, const SourceLocation&)>& fill) {
    if (block.value.is_null()) {
        return;
    }
    if (!block.value.is_list()) {
        diags.error(block.key_where, quoted(block.key) + " block must be a list of " +
                                         std::string(what) + " entries, got " +
                                         kind_phrase(block.value) +
                                         ". Perhaps you missed a dash prefix `-`?");
        return;
    }
    for (const auto& item : block.value.items) {
        if (!item.is_map()) {
            diags.error(item.where, "each " + std::string(what) + " entry must be a map, got " +
                                        kind_phrase(item));
            continue;
        }
        Def def;
        def.where = item.where;
        bool ok = true;
        for (const auto& e : item.entries) {
            if (std::find(allowed.begin(), allowed.end(), e.key) == allowed.end()) {
                diags.error(e.key_where, "Unexpected key " + quoted(e.key) + " in " +
                                             std::string(what) + " entry" + hint(e.key, allowed) +
                                             " Allowed keys: " + join(allowed) + ".");
                ok = false;
                continue;
            }
            std::string value;
            if (!scalar_value(e, std::string(what) + " entry", value, diags)) {
                ok = false;
                continue;
            }
            fill(def, e.key, std::move(value), e.value.where);
        }
        for (const auto& r : required) {
            if (item.find(r) == nullptr) {
                diags.error(item.where, "missing required field " + quoted(r) + " in " +
                                            std::string(what) + " entry");
                ok = false;
            }
        }
        if (ok) {
            out.push_back(std::move(def));
        }
    }
}

void parse_routes(const MapEntry& block, PipelineDef& def, Diagnostics& diags) {
    parse_entries<RouteDef>(
        block, kRouteKeys, {"source-table", "sink-table"}, "route", def.routes, diags,
        [](RouteDef& r, const std::string& key, std::string value, const SourceLocation&) {
            if (key == "source-table") {
                r.source_table = std::move(value);
            } else if (key == "sink-table") {
                r.sink_table = std::move(value);
            } else if (key == "replace-symbol") {
                r.replace_symbol = std::move(value);
            } else {
                r.description = std::move(value);
            }
        });
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
    for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) {
        s.replace(pos, from.size(), to);
    }
}

void parse_transforms(const MapEntry& block, PipelineDef& def, Diagnostics& diags) {
    parse_entries<TransformDef>(
        block, kTransformKeys, {"source-table"}, "transform", def.transforms, diags,
        [&diags](TransformDef& t, const std::string& key, std::string value,
                 const SourceLocation& where) {
            if (key == "source-table") {
                t.source_table = std::move(value);
            } else if (key == "projection") {
                // YAML plain scalars cannot start with '*', so Flink lets users write "\*".
                replace_all(value, "\\*", "*");
                t.projection = std::move(value);
                t.projection_where = where;
            } else if (key == "filter") {
                t.filter = std::move(value);
                t.filter_where = where;
            } else if (key == "primary-keys") {
                t.primary_keys = std::move(value);
            } else if (key == "partition-keys") {
                t.partition_keys = std::move(value);
            } else if (key == "table-options") {
                t.table_options = std::move(value);
            } else if (key == "table-options.delimiter") {
                if (value.empty()) {
                    diags.error(where, "`table-options.delimiter` must not be empty");
                } else {
                    t.table_options_delimiter = std::move(value);
                }
            } else if (key == "converter-after-transform") {
                if (!value.empty() && value != "SOFT_DELETE") {
                    diags.error(where, "unknown `converter-after-transform` " + quoted(value) +
                                           "; the only converter is `SOFT_DELETE`");
                }
                t.converter_after_transform = std::move(value);
            } else {
                t.description = std::move(value);
            }
        });
    for (auto& t : def.transforms) {
        if (t.projection_where.line == 0) {
            t.projection_where = t.where;
        }
        if (t.filter_where.line == 0) {
            t.filter_where = t.where;
        }
    }
}

void parse_pipeline_block(const MapEntry& block, PipelineDef& def, Diagnostics& diags) {
    def.pipeline_where = block.key_where;
    if (block.value.is_null()) {
        return;
    }
    if (!block.value.is_map()) {
        diags.error(block.key_where,
                    "`pipeline` block must be a map of options, got " + kind_phrase(block.value));
        return;
    }
    for (const auto& e : block.value.entries) {
        if (e.key == "user-defined-function") {
            diags.error(e.key_where,
                        "`pipeline.user-defined-function` is not supported by cdcd: user-defined "
                        "functions are Java/Python code; use the built-in functions of transform "
                        "expressions instead");
            continue;
        }
        if (e.key == "model") {
            diags.error(e.key_where,
                        "`pipeline.model` (AI models in transforms) is not supported "
                        "by cdcd");
            continue;
        }
        std::string value;
        if (scalar_value(e, "`pipeline` block", value, diags)) {
            def.pipeline.emplace(e.key, RawValue{std::move(value), e.key_where});
        }
    }
}

}  // namespace

const std::vector<std::string>& schema_change_tags() {
    static const std::vector<std::string> tags = {"add.column",
                                                  "alter.column.type",
                                                  "create.table",
                                                  "drop.column",
                                                  "drop.table",
                                                  "rename.column",
                                                  "truncate.table",
                                                  "alter.table.comment",
                                                  "add",
                                                  "alter",
                                                  "create",
                                                  "drop",
                                                  "rename",
                                                  "table",
                                                  "column",
                                                  "all"};
    return tags;
}

PipelineDef parse_pipeline(const YamlDocument& doc, Diagnostics& diags) {
    PipelineDef def;
    def.file = doc.file;
    def.pipeline_where = SourceLocation{doc.file, 0, 0};
    const ConfigNode& root = doc.root;
    if (!root.is_map()) {
        SourceLocation where = root.where.line > 0 ? root.where : SourceLocation{doc.file, 1, 1};
        diags.error(where,
                    "a pipeline definition must be a YAML map with `source` and `sink` "
                    "blocks, got " +
                        kind_phrase(root));
        return def;
    }
    bool has_source = false;
    bool has_sink = false;
    for (const auto& e : root.entries) {
        if (e.key == "source") {
            has_source = true;
            parse_connector(e, false, def.source, diags);
        } else if (e.key == "sink") {
            has_sink = true;
            parse_connector(e, true, def.sink, diags);
        } else if (e.key == "route") {
            parse_routes(e, def, diags);
        } else if (e.key == "transform") {
            parse_transforms(e, def, diags);
        } else if (e.key == "pipeline") {
            parse_pipeline_block(e, def, diags);
        } else if (e.key == "tests") {
            // `cdcd test`'s cases (cmd/test/test_cases.h): not part of the pipeline.
        } else {
            diags.error(e.key_where,
                        "Unexpected key " + quoted(e.key) + " in YAML top-level block" +
                            hint(e.key, kTopLevelKeys) + " Allowed keys in top-level block: [" +
                            join(kTopLevelKeys) +
                            "]. Note: Flink configurations should be defined in \"Runtime "
                            "Configurations\" instead of YAML scripts.");
        }
    }
    if (!has_source) {
        diags.error(root.where, "missing required `source` block in pipeline definition");
    }
    if (!has_sink) {
        diags.error(root.where, "missing required `sink` block in pipeline definition");
    }
    return def;
}

namespace {

// The loaded YAML (nullopt when it did not load) interpolated and parsed; throws ConfigError with
// every diagnostic when any step failed.
PipelineDef pipeline_of(std::optional<YamlDocument> doc, Diagnostics& diags, const Secrets& secrets,
                        const EnvLookup& env, const TemplateOptions& templates) {
    if (!doc) {
        throw ConfigError(std::move(diags));
    }
    interpolate(*doc, secrets, diags, env, templates);
    PipelineDef def = parse_pipeline(*doc, diags);
    if (!diags.ok()) {
        throw ConfigError(std::move(diags));
    }
    return def;
}

}  // namespace

PipelineDef load_pipeline_string(std::string_view text, const std::string& display_name,
                                 const Secrets& secrets, const EnvLookup& env,
                                 const TemplateOptions& templates) {
    Diagnostics diags;
    auto doc = load_yaml_string(text, display_name, diags);
    return pipeline_of(std::move(doc), diags, secrets, env, templates);
}

PipelineDef load_pipeline(const std::string& path, const Secrets& secrets, const EnvLookup& env,
                          const TemplateOptions& templates) {
    Diagnostics diags;
    auto doc = load_yaml_file(path, diags);
    return pipeline_of(std::move(doc), diags, secrets, env, templates);
}

}  // namespace cdcd::config
