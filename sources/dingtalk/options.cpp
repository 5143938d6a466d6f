#include "sources/dingtalk/options.h"

#include "net/url.h"

namespace cdcd::dingtalk {

using config::OptionSpec;

config::ConnectorOptionsSpec option_spec() {
    config::ConnectorOptionsSpec spec;
    spec.options = {
        OptionSpec::enum_of("object-type", {"document"})
            .required()
            .desc("What to synchronise; only `document` (DingTalk online documents)."),
        OptionSpec::string("app-key").required().desc("Client ID (AppKey) of the internal app."),
        OptionSpec::string("app-secret")
            .required()
            .secret()
            .desc("Client Secret (AppSecret) of the internal app."),
        OptionSpec::string("operator-id")
            .required()
            .desc("Union ID of the member every API call is made as; must be able to read the "
                  "documents."),
        OptionSpec::string("endpoint")
            .default_("https://api.dingtalk.com")
            .desc("DingTalk OpenAPI base URL; a bare domain name means https."),
        OptionSpec::list("workspace-id")
            .desc("Comma-separated workspace ids; unset: every workspace the operator can see."),
        OptionSpec::list("scan.document.exclude-node-ids")
            .desc("Comma-separated node ids skipped, with their subtrees, in discovery and fetch."),
        OptionSpec::integer("scan.discovery.max-depth")
            .default_("100")
            .at_least(1)
            .desc("Deepest node tree level one workspace scan visits."),
        OptionSpec::integer("scan.discovery.max-nodes")
            .default_("100000")
            .at_least(1)
            .desc("Most nodes one workspace scan visits."),
        OptionSpec::enum_of("scan.startup.mode",
                            {"initial", "snapshot", "latest-offset", "timestamp"})
            .default_("initial")
            .desc("initial (snapshot then changes), snapshot (bounded), latest-offset (changes "
                  "only); "
                  "timestamp is not supported."),
        OptionSpec::duration("scan.discovery.interval")
            .default_("1min")
            .at_least(1)
            .desc("How often workspaces are (re)discovered."),
        OptionSpec::duration("scan.poll-interval")
            .default_("10s")
            .at_least(1)
            .desc("Wait between scans of a workspace that found no change."),
        OptionSpec::integer("scan.prefix-size")
            .default_("100")
            .at_least(1)
            .desc("Most documents one workspace scan emits."),
        OptionSpec::integer("scan.document.consistency.max-retries")
            .default_("3")
            .at_least(0)
            .desc("Re-reads of a document whose metadata changed during the block fetch; 0 "
                  "disables."),
        OptionSpec::duration("scan.document.fetch.max-duration")
            .default_("10min")
            .at_least(1)
            .desc("Longest one consistent content fetch of a document may take."),
        OptionSpec::long_("scan.document.max-bytes")
            .default_("52428800")
            .at_least(1)
            .desc("Largest document (raw blocks plus rendered Markdown); larger ones are not "
                  "emitted and read again later (next poll, then doubling, at most hourly)."),
        OptionSpec::integer("scan.block.fetch-size")
            .default_("10")
            .at_least(1)
            .desc("Top-level blocks requested per Block API call."),
        OptionSpec::integer("scan.block.max-pages")
            .default_("1000")
            .at_least(1)
            .desc("Most Block API pages read per document; a longer document is emitted with "
                  "the pages read and the metadata column content_truncated = true."),
        OptionSpec::boolean("scan.block.include-raw-json")
            .default_("false")
            .desc("Add the `blocks_json` column (raw block JSON); cannot change on restore."),
        OptionSpec::boolean("scan.document.emit-deletes")
            .default_("false")
            .desc("cdcd extension: emit DELETE for documents a complete scan no longer finds."),
        OptionSpec::duration("request.timeout")
            .default_("30s")
            .at_least(1)
            .desc("Timeout of one OpenAPI request."),
        OptionSpec::integer("request.max-retries")
            .default_("3")
            .at_least(0)
            .desc("Retries of one failed OpenAPI request."),
        OptionSpec::duration("request.retry-after.max-delay")
            .default_("60s")
            .at_least(0)
            .desc("Longest Retry-After waited for; longer ones fail the request."),
        OptionSpec::double_("scan.discovery.rate-limit.requests-per-second")
            .default_("5")
            .at_least(0.001)
            .desc("Workspace and node listing requests per second, shared per app-key."),
        OptionSpec::double_("scan.metadata.rate-limit.requests-per-second")
            .default_("20")
            .at_least(0.001)
            .desc("Node metadata requests per second, shared per app-key."),
        OptionSpec::double_("scan.content.rate-limit.requests-per-second")
            .default_("10")
            .at_least(0.001)
            .desc("Block API requests per second, shared per app-key."),
        OptionSpec::double_("scan.fetch.rate-limit.requests-per-second")
            .default_("10")
            .at_least(0.001)
            .desc("Document fetches per second, shared per app-key."),
    };
    return spec;
}

namespace {

// The spec calls `endpoint` the OpenAPI's domain name: a bare host means https.
std::string endpoint_url(std::string endpoint) {
    if (endpoint.find("://") == std::string::npos) endpoint.insert(0, "https://");
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    return endpoint;
}

}  // namespace

void validate(const config::ValidatedOptions& o, config::Diagnostics& diags) {
    if (o.has("scan.startup.mode") && o.get_enum("scan.startup.mode") == "timestamp")
        diags.error(o.location("scan.startup.mode"),
                    "scan.startup.mode `timestamp` is not supported by dingtalk-cdc: the DingTalk "
                    "OpenAPI cannot read a document's historical content (use initial, snapshot or "
                    "latest-offset)");
    if (o.has("endpoint")) {
        std::string error;
        std::string endpoint = endpoint_url(o.get_string("endpoint"));
        if (!net::parse_url(endpoint, &error))
            diags.error(o.location("endpoint"),
                        "endpoint `" + endpoint + "` is not a URL: " + error);
    }
}

DingTalkOptions read_options(const config::ValidatedOptions& o) {
    DingTalkOptions d;
    d.app_key = o.get_string("app-key");
    d.app_secret = o.get_string("app-secret");
    d.operator_id = o.get_string("operator-id");
    d.endpoint = endpoint_url(o.get_string("endpoint"));
    if (o.has("workspace-id")) d.workspace_ids = o.get_list("workspace-id");
    if (o.has("scan.document.exclude-node-ids"))
        d.exclude_node_ids = o.get_list("scan.document.exclude-node-ids");
    d.max_depth = o.get_int("scan.discovery.max-depth");
    d.max_nodes = o.get_int("scan.discovery.max-nodes");
    std::string mode = o.get_enum("scan.startup.mode");
    d.startup_mode = mode == "snapshot"        ? StartupMode::Snapshot
                     : mode == "latest-offset" ? StartupMode::LatestOffset
                                               : StartupMode::Initial;
    d.discovery_interval = o.get_duration("scan.discovery.interval");
    d.poll_interval = o.get_duration("scan.poll-interval");
    d.prefix_size = o.get_int("scan.prefix-size");
    d.consistency_max_retries = o.get_int("scan.document.consistency.max-retries");
    d.fetch_max_duration = o.get_duration("scan.document.fetch.max-duration");
    d.document_max_bytes = o.get_long("scan.document.max-bytes");
    d.block_fetch_size = o.get_int("scan.block.fetch-size");
    d.block_max_pages = o.get_int("scan.block.max-pages");
    d.include_raw_json = o.get_bool("scan.block.include-raw-json");
    d.emit_deletes = o.get_bool("scan.document.emit-deletes");
    d.request_timeout = o.get_duration("request.timeout");
    d.request_max_retries = o.get_int("request.max-retries");
    d.retry_after_max_delay = o.get_duration("request.retry-after.max-delay");
    d.discovery_rps = o.get_double("scan.discovery.rate-limit.requests-per-second");
    d.metadata_rps = o.get_double("scan.metadata.rate-limit.requests-per-second");
    d.content_rps = o.get_double("scan.content.rate-limit.requests-per-second");
    d.fetch_rps = o.get_double("scan.fetch.rate-limit.requests-per-second");
    return d;
}

}  // namespace cdcd::dingtalk
