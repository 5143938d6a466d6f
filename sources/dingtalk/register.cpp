// Registers the `dingtalk-cdc` source.
#include "pipeline/connector/registry.h"
#include "sources/dingtalk/dingtalk_source.h"
#include "sources/dingtalk/options.h"

namespace cdcd {

void register_dingtalk_source(ConnectorRegistry& registry) {
    SourceFactory f;
    f.name = "dingtalk-cdc";
    f.description =
        "DingTalk wiki (知识库) documents: polls the OpenAPI for new and changed online documents "
        "and "
        "emits them, rendered to Markdown, as rows of `<workspaceId>.documents`.";
    f.options = dingtalk::option_spec();
    f.metadata_columns = [](const config::ValidatedOptions&) {
        return std::vector<MetadataColumn>{{dingtalk::kContentTruncated, DataType::boolean()}};
    };
    // The configured workspaces' tables (none known when every visible workspace is read).
    f.known_tables = [](const config::ValidatedOptions& o) {
        std::vector<KnownTable> known;
        dingtalk::DingTalkOptions d = dingtalk::read_options(o);
        for (const auto& id : d.workspace_ids)
            known.push_back(
                {dingtalk::table_for(id), dingtalk::document_schema(d.include_raw_json)});
        return known;
    };
    f.validate = [](const config::ValidatedOptions& o, const config::ConnectorDef&,
                    const config::ValidatedOptions&,
                    config::Diagnostics& d) { dingtalk::validate(o, d); };
    // Only the snapshot startup mode ends (after the snapshot), as spec 000 says of BATCH jobs.
    f.unbounded_by = [](const config::ValidatedOptions& options) -> std::optional<UnboundedBy> {
        auto o = dingtalk::option_bindings().read(options);
        if (o->startup_mode == dingtalk::StartupMode::Snapshot) return std::nullopt;
        return UnboundedBy{o.key(o->startup_mode), o.text(o->startup_mode), "snapshot"};
    };
    f.create = [](const ConnectorContext& ctx) -> std::unique_ptr<Source> {
        return std::make_unique<dingtalk::DingTalkSource>(dingtalk::read_options(ctx.options),
                                                          ctx.io, *ctx.metrics);
    };
    registry.add(std::move(f));
}

}  // namespace cdcd
