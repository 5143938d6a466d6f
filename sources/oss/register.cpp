// Registers the `oss-cdc` source.
#include <algorithm>

#include "pipeline/connector/registry.h"
#include "sources/oss/fetch_content.h"
#include "sources/oss/options.h"
#include "sources/oss/oss_source.h"
#include "sources/oss/records.h"

namespace cdcd {

void register_oss_source(ConnectorRegistry& registry) {
    SourceFactory f;
    f.name = "oss-cdc";
    f.description =
        "Alibaba Cloud OSS object metadata as a change stream: snapshot listing, then MNS event "
        "notifications "
        "or periodic polling; FETCH_CONTENT(url) downloads objects in transforms.";
    f.options = oss::option_specs();
    f.metadata_columns = [](const config::ValidatedOptions& o) {
        std::vector<MetadataColumn> cols;
        for (const auto& key : oss::settings_from(o).metadata) {
            std::string t = oss::metadata_type(key);
            DataType type = t == "BIGINT"   ? DataType::bigint()
                            : t == "STRING" ? DataType::string()
                                            : DataType::timestamp_ltz(3);
            cols.push_back({key, type});
        }
        return cols;
    };
    // POLLING reads one bucket, whose name is the table's without a table-id pattern.
    f.known_tables = [](const config::ValidatedOptions& o) {
        std::vector<KnownTable> known;
        oss::OssSettings s = oss::settings_from(o);
        if (s.mode == oss::IncrementalMode::Polling && s.table_id_pattern.empty() &&
            !s.oss_bucket.empty())
            known.push_back({TableId::of(s.oss_bucket), oss::object_schema()});
        return known;
    };
    f.validate = [](const config::ValidatedOptions& o, const config::ConnectorDef& def,
                    const config::ValidatedOptions&,
                    config::Diagnostics& d) { oss::validate(o, def, d); };
    // Only SNAPSHOT ends (after listing the bucket); the default depends on the mode.
    f.unbounded_by = [](const config::ValidatedOptions& o) -> std::optional<UnboundedBy> {
        oss::StartupMode startup = oss::settings_from(o).startup;
        if (startup == oss::StartupMode::Snapshot) return std::nullopt;
        const auto bound = oss::option_bindings().read(o);
        return UnboundedBy{bound.key(bound->startup), oss::to_string(startup), "SNAPSHOT"};
    };
    f.create = [](const ConnectorContext& ctx) -> std::unique_ptr<Source> {
        oss::OssSettings s = oss::settings_from(ctx.options);
        s.checkpoint_interval_ms = ctx.pipeline.checkpoint_interval_ms;
        // The spec: "不设置则使用作业默认并行度" (unset: the job's default parallelism).
        if (!oss::option_bindings().read(ctx.options)->parallelism)
            s.parallelism = std::max(1, ctx.pipeline.parallelism);
        auto downloader = std::make_shared<oss::FetchContent>(s);
        auto source = std::make_unique<oss::OssSource>(ctx.io, std::move(s), *ctx.metrics,
                                                       ctx.bad_records->source());
        source->set_fetch_content(std::move(downloader));
        return source;
    };
    // FETCH_CONTENT(url) in this pipeline's transforms, downloading with this source's settings.
    f.transform_functions = [](Source* source) {
        auto* oss_source = dynamic_cast<oss::OssSource*>(source);
        return oss::fetch_content_functions(oss_source ? oss_source->fetch_content() : nullptr);
    };
    registry.add(std::move(f));
}

}  // namespace cdcd
