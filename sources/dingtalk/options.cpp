#include "sources/dingtalk/options.h"

#include "net/url.h"

namespace cdcd::dingtalk {

using config::OptionSpec;

const config::OptionBindings<DingTalkOptions>& option_bindings() {
    static const config::OptionBindings<DingTalkOptions> bindings{{
        OptionSpec::enum_of("object-type", {"document"})
            .required()
            .desc("What to synchronise; only `document` (DingTalk online documents)."),
        OptionSpec::string("app-key")
            .required()
            .desc("Client ID (AppKey) of the internal app.")
            .to(&DingTalkOptions::app_key),
        OptionSpec::string("app-secret")
            .required()
            .secret()
            .desc("Client Secret (AppSecret) of the internal app.")
            .to(&DingTalkOptions::app_secret),
        OptionSpec::string("operator-id")
            .required()
            .desc("Union ID of the member every API call is made as; must be able to read the "
                  "documents.")
            .to(&DingTalkOptions::operator_id),
        OptionSpec::string("endpoint")
            .default_("https://api.dingtalk.com")
            .desc("DingTalk OpenAPI base URL; a bare domain name means https.")
            .to(&DingTalkOptions::endpoint),
        OptionSpec::list("workspace-id")
            .desc("Comma-separated workspace ids; unset: every workspace the operator can see.")
            .to(&DingTalkOptions::workspace_ids),
        OptionSpec::list("scan.document.exclude-node-ids")
            .desc("Comma-separated node ids skipped, with their subtrees, in discovery and fetch.")
            .to(&DingTalkOptions::exclude_node_ids),
        OptionSpec::integer("scan.discovery.max-depth")
            .default_("100")
            .at_least(1)
            .desc("Deepest node tree level one workspace scan visits.")
            .to(&DingTalkOptions::max_depth),
        OptionSpec::integer("scan.discovery.max-nodes")
            .default_("100000")
            .at_least(1)
            .desc("Most nodes one workspace scan visits.")
            .to(&DingTalkOptions::max_nodes),
        OptionSpec::enum_of<StartupMode>("scan.startup.mode",
                                         {{"initial", StartupMode::Initial},
                                          {"snapshot", StartupMode::Snapshot},
                                          {"latest-offset", StartupMode::LatestOffset},
                                          {"timestamp", StartupMode::Timestamp}})
            .default_("initial")
            .desc("initial (snapshot then changes), snapshot (bounded), latest-offset (changes "
                  "only); "
                  "timestamp is not supported.")
            .to(&DingTalkOptions::startup_mode),
        OptionSpec::duration("scan.discovery.interval")
            .default_("1min")
            .at_least(1)
            .desc("How often workspaces are (re)discovered.")
            .to(&DingTalkOptions::discovery_interval),
        OptionSpec::duration("scan.poll-interval")
            .default_("10s")
            .at_least(1)
            .desc("Wait between scans of a workspace that found no change.")
            .to(&DingTalkOptions::poll_interval),
        OptionSpec::integer("scan.prefix-size")
            .default_("100")
            .at_least(1)
            .desc("Most documents one workspace scan emits.")
            .to(&DingTalkOptions::prefix_size),
        OptionSpec::integer("scan.document.consistency.max-retries")
            .default_("3")
            .at_least(0)
            .desc("Re-reads of a document whose metadata changed during the block fetch; 0 "
                  "disables.")
            .to(&DingTalkOptions::consistency_max_retries),
        OptionSpec::duration("scan.document.fetch.max-duration")
            .default_("10min")
            .at_least(1)
            .desc("Longest one consistent content fetch of a document may take.")
            .to(&DingTalkOptions::fetch_max_duration),
        OptionSpec::long_("scan.document.max-bytes")
            .default_("52428800")
            .at_least(1)
            .desc("Largest document (raw blocks plus rendered Markdown); larger ones are not "
                  "emitted and read again later (next poll, then doubling, at most hourly).")
            .to(&DingTalkOptions::document_max_bytes),
        OptionSpec::integer("scan.block.fetch-size")
            .default_("10")
            .at_least(1)
            .desc("Top-level blocks requested per Block API call.")
            .to(&DingTalkOptions::block_fetch_size),
        OptionSpec::integer("scan.block.max-pages")
            .default_("1000")
            .at_least(1)
            .desc("Most Block API pages read per document; a longer document is emitted with "
                  "the pages read and the metadata column content_truncated = true.")
            .to(&DingTalkOptions::block_max_pages),
        OptionSpec::boolean("scan.block.include-raw-json")
            .default_("false")
            .desc("Add the `blocks_json` column (raw block JSON); cannot change on restore.")
            .to(&DingTalkOptions::include_raw_json),
        OptionSpec::boolean("scan.document.emit-deletes")
            .default_("false")
            .desc("cdcd extension: emit DELETE for documents a complete scan no longer finds.")
            .to(&DingTalkOptions::emit_deletes),
        OptionSpec::duration("request.timeout")
            .default_("30s")
            .at_least(1)
            .desc("Timeout of one OpenAPI request.")
            .to(&DingTalkOptions::request_timeout),
        OptionSpec::integer("request.max-retries")
            .default_("3")
            .at_least(0)
            .desc("Retries of one failed OpenAPI request.")
            .to(&DingTalkOptions::request_max_retries),
        OptionSpec::duration("request.retry-after.max-delay")
            .default_("60s")
            .at_least(0)
            .desc("Longest Retry-After waited for; longer ones fail the request.")
            .to(&DingTalkOptions::retry_after_max_delay),
        OptionSpec::double_("scan.discovery.rate-limit.requests-per-second")
            .default_("5")
            .at_least(0.001)
            .desc("Workspace and node listing requests per second, shared per app-key.")
            .to(&DingTalkOptions::discovery_rps),
        OptionSpec::double_("scan.metadata.rate-limit.requests-per-second")
            .default_("20")
            .at_least(0.001)
            .desc("Node metadata requests per second, shared per app-key.")
            .to(&DingTalkOptions::metadata_rps),
        OptionSpec::double_("scan.content.rate-limit.requests-per-second")
            .default_("10")
            .at_least(0.001)
            .desc("Block API requests per second, shared per app-key.")
            .to(&DingTalkOptions::content_rps),
        OptionSpec::double_("scan.fetch.rate-limit.requests-per-second")
            .default_("10")
            .at_least(0.001)
            .desc("Document fetches per second, shared per app-key.")
            .to(&DingTalkOptions::fetch_rps),
    }};
    return bindings;
}

config::ConnectorOptionsSpec option_spec() {
    return option_bindings().spec();
}

namespace {

// The spec calls `endpoint` the OpenAPI's domain name: a bare host means https.
std::string endpoint_url(std::string endpoint) {
    if (endpoint.find("://") == std::string::npos) endpoint.insert(0, "https://");
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    return endpoint;
}

}  // namespace

void validate(const config::ValidatedOptions& options, config::Diagnostics& diags) {
    auto o = option_bindings().read(options);
    if (o->startup_mode == StartupMode::Timestamp)
        diags.error(o.where(o->startup_mode),
                    "scan.startup.mode `timestamp` is not supported by dingtalk-cdc: the DingTalk "
                    "OpenAPI cannot read a document's historical content (use initial, snapshot or "
                    "latest-offset)");
    std::string error;
    std::string endpoint = endpoint_url(o->endpoint);
    if (!net::parse_url(endpoint, &error))
        diags.error(o.where(o->endpoint), "endpoint `" + endpoint + "` is not a URL: " + error);
}

DingTalkOptions read_options(const config::ValidatedOptions& options) {
    DingTalkOptions d = option_bindings().read(options).take();
    d.endpoint = endpoint_url(d.endpoint);
    return d;
}

}  // namespace cdcd::dingtalk
