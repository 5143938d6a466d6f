#include "sources/oss/options.h"

#include <re2/re2.h>

#include <algorithm>
#include <set>

#include "net/url.h"
#include "regex/java_regex.h"
#include "text/ascii.h"

namespace cdcd::oss {

using config::OptionSpec;

const char* to_string(StartupMode m) {
    switch (m) {
        case StartupMode::EarliestOffset:
            return "EARLIEST_OFFSET";
        case StartupMode::LatestOffset:
            return "LATEST_OFFSET";
        case StartupMode::CommittedOffset:
            return "COMMITTED_OFFSET";
        case StartupMode::Timestamp:
            return "TIMESTAMP";
        case StartupMode::Initial:
            return "INITIAL";
        case StartupMode::Snapshot:
            return "SNAPSHOT";
    }
    return "?";
}

const std::vector<std::string>& metadata_keys() {
    static const std::vector<std::string> keys = {"eventName",
                                                  "eventSource",
                                                  "eventTime",
                                                  "eventVersion",
                                                  "ossBucketName",
                                                  "ossBucketArn",
                                                  "ossBucketOwnerIdentity",
                                                  "ossObjectKey",
                                                  "ossObjectSize",
                                                  "ossObjectETag",
                                                  "ossObjectDeltaSize",
                                                  "ossObjectReadFrom",
                                                  "ossObjectReadTo",
                                                  "ossOssSchemaVersion",
                                                  "ossRuleId",
                                                  "requestParametersSourceIPAddress",
                                                  "responseElementsRequestId",
                                                  "userIdentityPrincipalId"};
    return keys;
}

std::string metadata_type(const std::string& key) {
    if (key == "eventTime") return "TIMESTAMP_LTZ(3)";
    if (key == "ossObjectSize" || key == "ossObjectDeltaSize" || key == "ossObjectReadFrom" ||
        key == "ossObjectReadTo")
        return "BIGINT";
    return "STRING";
}

config::ConnectorOptionsSpec option_specs() {
    config::ConnectorOptionsSpec s;
    s.options = {
        // General
        OptionSpec::enum_of("scan.incremental.mode", {"MNS", "POLLING"})
            .default_("MNS")
            .desc("How changes are discovered: MNS consumes OSS event notifications from a queue; "
                  "POLLING "
                  "periodically lists the object metadata."),
        OptionSpec::string("mns.endpoint")
            .desc("MNS endpoint, http://{account-id}.mns.{region}.aliyuncs.com. "
                  "Required for MNS incremental consumption."),
        OptionSpec::string("mns.region")
            .desc("MNS region, e.g. cn-hangzhou. Optional (MNS signatures carry no region); when "
                  "set and mns.endpoint names a region ({account}.mns.{region}.aliyuncs.com), "
                  "the two must agree."),
        OptionSpec::string("mns.queue-name")
            .desc("The MNS queue OSS event notifications are delivered to."),
        OptionSpec::string("access-key-id").required().desc("Alibaba Cloud AccessKey ID."),
        OptionSpec::string("access-key-secret")
            .required()
            .secret()
            .desc("Alibaba Cloud AccessKey Secret."),
        OptionSpec::string("security-token")
            .secret()
            .desc("cdcd extension: STS security token sent with every OSS and MNS request."),
        OptionSpec::string("oss-key.to.table-id.matching.pattern")
            .desc("Java regex matched against oss://<bucket>/<key>; 1-3 capture groups give table, "
                  "namespace.table or namespace.schema.table; objects that do not match are "
                  "filtered out."),
        // Startup
        OptionSpec::enum_of("scan.startup.mode",
                            {"EARLIEST_OFFSET", "LATEST_OFFSET", "COMMITTED_OFFSET", "TIMESTAMP",
                             "INITIAL", "SNAPSHOT"})
            .desc("Startup mode; default COMMITTED_OFFSET for MNS, LATEST_OFFSET for POLLING."),
        OptionSpec::long_("scan.startup.timestamp-millis")
            .at_least(1)
            .desc("Epoch milliseconds to start from; required by (and only used with) TIMESTAMP."),
        OptionSpec::boolean("scan.read-changelog-as-append-only.enabled")
            .default_("false")
            .desc("Emit every incremental change as INSERT (+I)."),
        // Tuning
        OptionSpec::integer("mns.batch-size")
            .default_("1")
            .range(1, 16)
            .desc("Messages per BatchReceiveMessage."),
        OptionSpec::duration("mns.polling-wait-time")
            .default_("10s")
            .range(0, 30'000)
            .desc("MNS long-polling wait (0-30 s)."),
        OptionSpec::integer("mns.delete-max-retries")
            .default_("3")
            .at_least(0)
            .desc("Retries of a failed message delete."),
        OptionSpec::double_("scan.rate-limit.records-per-second")
            .desc("Maximum records emitted per second; unlimited when unset."),
        OptionSpec::integer("scan.parallelism")
            .at_least(1)
            .desc("Concurrent MNS receivers (1 when unset)."),
        OptionSpec::boolean("mns.use-vpc-endpoint.enabled")
            .default_("false")
            .desc("Call MNS through its VPC endpoint ({account}.mns.{region}-vpc.aliyuncs.com)."),
        OptionSpec::boolean("mns.batch-delete.enabled")
            .default_("false")
            .desc("Acknowledge messages with BatchDeleteMessage (16 per call) instead of one "
                  "DeleteMessage each."),
        OptionSpec::duration("polling.interval")
            .default_("10s")
            .at_least(1)
            .desc("POLLING: time between two metadata scans (at least 1 ms)."),
        OptionSpec::integer("polling.prefix-size")
            .default_("100")
            .at_least(1)
            .desc("POLLING: most changed objects per batch and path prefix; one scan's changes "
                  "go out in such batches back to back."),
        OptionSpec::boolean("polling.emit-deletes")
            .default_("false")
            .desc(
                "cdcd extension, POLLING: emit DELETE for a key a complete scan no longer finds."),
        // OSS access
        OptionSpec::string("oss-endpoint")
            .desc("OSS endpoint (https://oss-cn-hangzhou.aliyuncs.com; https when no scheme). "
                  "Required for "
                  "SNAPSHOT, INITIAL, POLLING and pre-signed URLs."),
        OptionSpec::string("oss-region")
            .desc("OSS region, e.g. cn-hangzhou; falls back to `region` when unset. Required (one "
                  "of the two) for SNAPSHOT, INITIAL, POLLING and V4."),
        OptionSpec::string("region").desc(
            "OSS region used when `oss-region` is unset (the spec's fallback)."),
        OptionSpec::string("oss-bucket")
            .desc("OSS bucket. Required for SNAPSHOT, INITIAL, POLLING and with `path`."),
        OptionSpec::boolean("oss-enable-v4-signature")
            .default_("false")
            .desc("Sign OSS requests with V4 (needs oss-region)."),
        OptionSpec::string("path").desc(
            "Comma-separated object key prefixes scanned by SNAPSHOT, INITIAL and POLLING."),
        OptionSpec::string("metadata.list")
            .desc("Comma-separated metadata columns exposed downstream (MNS event fields; NULL "
                  "outside the MNS "
                  "incremental phase)."),
        OptionSpec::boolean("oss-objects.pre-sign.enabled")
            .default_("false")
            .desc("Fill `url` with a pre-signed download URL instead of oss://<bucket>/<key>."),
        OptionSpec::duration("oss-objects.pre-sign.ttl")
            .default_("1h")
            .range(1'000, 7LL * 24 * 3600 * 1000)
            .desc("Validity of pre-signed URLs (1 s to 7 days)."),
        // FETCH_CONTENT
        OptionSpec::memory_size("fetch-content.max-size")
            .default_("64mb")
            .range(1, 1LL << 31)
            .desc("cdcd extension: FETCH_CONTENT refuses objects larger than this."),
        OptionSpec::boolean("fetch-content.ignore-errors")
            .default_("false")
            .desc("cdcd extension: a failed FETCH_CONTENT yields NULL (with a warning) instead of "
                  "failing the pipeline."),
        OptionSpec::duration("fetch-content.timeout")
            .default_("60s")
            .at_least(1'000)
            .desc("cdcd extension: time limit of one FETCH_CONTENT download, retries included; "
                  "the download is cancelled there."),
        OptionSpec::duration("request.timeout")
            .default_("30s")
            .at_least(100)
            .desc("cdcd extension: time limit of one OSS or MNS request (connect, send, answer); "
                  "an MNS receive may take mns.polling-wait-time longer. A request that times "
                  "out is retried like a 5xx."),
    };
    return s;
}

namespace {

IncrementalMode mode_of(const config::ValidatedOptions& o) {
    return o.get_enum("scan.incremental.mode") == "POLLING" ? IncrementalMode::Polling
                                                            : IncrementalMode::Mns;
}

StartupMode startup_of(const config::ValidatedOptions& o, IncrementalMode mode) {
    if (!o.has("scan.startup.mode"))
        return mode == IncrementalMode::Polling ? StartupMode::LatestOffset
                                                : StartupMode::CommittedOffset;
    std::string s = o.get_enum("scan.startup.mode");
    if (s == "EARLIEST_OFFSET") return StartupMode::EarliestOffset;
    if (s == "LATEST_OFFSET") return StartupMode::LatestOffset;
    if (s == "COMMITTED_OFFSET") return StartupMode::CommittedOffset;
    if (s == "TIMESTAMP") return StartupMode::Timestamp;
    if (s == "INITIAL") return StartupMode::Initial;
    return StartupMode::Snapshot;
}

std::string trimmed(const config::ValidatedOptions& o, const char* key) {
    if (!o.has(key)) return {};
    return std::string(ascii::trim(o.get_string(key), " \t"));
}

/// `oss-region`, or `region` when it is unset (the spec: "若未设置，则回退至region参数值").
std::string oss_region_of(const config::ValidatedOptions& o) {
    std::string r = trimmed(o, "oss-region");
    return r.empty() ? trimmed(o, "region") : r;
}

/// The region an MNS endpoint's host names ({account}.mns.{region}[-internal|-vpc].aliyuncs.com),
/// empty when the host is not of that form.
std::string mns_endpoint_region(const std::string& endpoint) {
    auto url = net::parse_url(normalize_endpoint(endpoint));
    if (!url) return {};
    static const RE2 re(R"(^[^.]+\.mns\.([a-z0-9-]+?)(?:-internal|-vpc)?\.aliyuncs\.com$)");
    std::string region;
    if (!RE2::FullMatch(url->host, re, &region)) return {};
    return region;
}

}  // namespace

std::string normalize_endpoint(const std::string& endpoint) {
    std::string e = endpoint;
    if (e.find("://") == std::string::npos) e = "https://" + e;
    while (!e.empty() && e.back() == '/') e.pop_back();
    return e;
}

std::string mns_vpc_endpoint(const std::string& endpoint) {
    auto url = net::parse_url(normalize_endpoint(endpoint));
    if (!url) return endpoint;
    static const RE2 re(R"(^([^.]+)\.mns\.([a-z0-9-]+?)(-internal|-vpc)?\.aliyuncs\.com$)");
    std::string account, region, suffix;
    if (!RE2::FullMatch(url->host, re, &account, &region, &suffix))
        return normalize_endpoint(endpoint);
    std::string out = url->scheme + "://" + account + ".mns." + region + "-vpc.aliyuncs.com";
    bool default_port =
        (url->scheme == "https" && url->port == 443) || (url->scheme == "http" && url->port == 80);
    if (!default_port && url->port != 0) out += ":" + std::to_string(url->port);
    return out;
}

void validate(const config::ValidatedOptions& o, const config::ConnectorDef& def,
              config::Diagnostics& d) {
    (void)def;
    IncrementalMode mode = mode_of(o);
    StartupMode startup = startup_of(o, mode);
    const char* mode_name = mode == IncrementalMode::Polling ? "POLLING" : "MNS";
    auto where_mode = o.is_set("scan.startup.mode") ? o.location("scan.startup.mode")
                                                    : o.location("scan.incremental.mode");

    if (mode == IncrementalMode::Polling &&
        (startup == StartupMode::EarliestOffset || startup == StartupMode::CommittedOffset ||
         startup == StartupMode::Timestamp)) {
        d.error(o.location("scan.startup.mode"),
                std::string("scan.startup.mode ") + to_string(startup) +
                    " is not supported with scan.incremental.mode POLLING (use LATEST_OFFSET, "
                    "INITIAL or SNAPSHOT)");
    }
    if (startup == StartupMode::Timestamp && !o.is_set("scan.startup.timestamp-millis"))
        d.error(o.location("scan.startup.mode"),
                "scan.startup.mode TIMESTAMP requires `scan.startup.timestamp-millis` (positive "
                "epoch milliseconds)");

    bool consumes_mns = mode == IncrementalMode::Mns && startup != StartupMode::Snapshot;
    if (consumes_mns) {
        for (const char* key : {"mns.endpoint", "mns.queue-name"})
            if (trimmed(o, key).empty())
                d.error(o.is_set(key) ? o.location(key) : where_mode,
                        std::string("`") + key +
                            "` is required by scan.incremental.mode MNS with scan.startup.mode " +
                            to_string(startup));
        if (!trimmed(o, "mns.endpoint").empty()) {
            std::string err;
            if (!net::parse_url(normalize_endpoint(trimmed(o, "mns.endpoint")), &err))
                d.error(o.location("mns.endpoint"), "`mns.endpoint` is not a valid URL: " + err);
        }
    }
    const std::string endpoint_region = mns_endpoint_region(trimmed(o, "mns.endpoint"));
    if (!endpoint_region.empty() && !trimmed(o, "mns.region").empty() &&
        trimmed(o, "mns.region") != endpoint_region)
        d.error(o.location("mns.region"), "`mns.region` " + trimmed(o, "mns.region") +
                                              " does not match the region " + endpoint_region +
                                              " of `mns.endpoint`; set it to " + endpoint_region +
                                              " (or leave it out)");
    bool lists_oss = startup == StartupMode::Snapshot || startup == StartupMode::Initial ||
                     mode == IncrementalMode::Polling;
    if (lists_oss) {
        std::string why = mode == IncrementalMode::Polling && startup != StartupMode::Snapshot &&
                                  startup != StartupMode::Initial
                              ? std::string("scan.incremental.mode POLLING")
                              : std::string("scan.startup.mode ") + to_string(startup);
        for (const char* key : {"oss-endpoint", "oss-bucket"})
            if (trimmed(o, key).empty())
                d.error(o.is_set(key) ? o.location(key) : where_mode,
                        std::string("`") + key + "` is required by " + why);
        if (oss_region_of(o).empty())
            d.error(o.is_set("oss-region") ? o.location("oss-region") : where_mode,
                    "`oss-region` is required by " + why + " (or `region`, its fallback)");
    }
    if (o.is_set("path") && trimmed(o, "oss-bucket").empty())
        d.error(o.location("path"), "`path` requires `oss-bucket`");
    if (o.is_set("path") && config::parse_list(o.get_string("path")).empty())
        d.error(o.location("path"), "`path` lists no prefix");
    if (o.get_bool("oss-enable-v4-signature") && oss_region_of(o).empty())
        d.error(o.location("oss-enable-v4-signature"),
                "`oss-enable-v4-signature` requires `oss-region` (or `region`, its fallback)");
    if (o.get_bool("oss-objects.pre-sign.enabled") && trimmed(o, "oss-endpoint").empty())
        d.error(o.location("oss-objects.pre-sign.enabled"),
                "`oss-objects.pre-sign.enabled` requires `oss-endpoint`");
    if (!trimmed(o, "oss-endpoint").empty()) {
        std::string err;
        if (!net::parse_url(normalize_endpoint(trimmed(o, "oss-endpoint")), &err))
            d.error(o.location("oss-endpoint"), "`oss-endpoint` is not a valid URL: " + err);
    }
    if (o.is_set("scan.rate-limit.records-per-second") &&
        !(o.get_double("scan.rate-limit.records-per-second") > 0))
        d.error(o.location("scan.rate-limit.records-per-second"),
                "`scan.rate-limit.records-per-second` must be positive");
    if (o.is_set("metadata.list")) {
        std::set<std::string> seen;
        for (const auto& key : config::parse_list(o.get_string("metadata.list"))) {
            const auto& keys = metadata_keys();
            auto it = std::find_if(keys.begin(), keys.end(),
                                   [&](const std::string& k) { return ascii::iequals(k, key); });
            if (it == keys.end()) {
                std::string all;
                for (const auto& k : keys) all += (all.empty() ? "" : ", ") + k;
                d.error(o.location("metadata.list"),
                        "unknown metadata column '" + key + "'; supported: " + all);
            } else if (!seen.insert(*it).second) {
                d.error(o.location("metadata.list"),
                        "metadata column '" + *it + "' is listed twice");
            }
        }
    }
    if (o.is_set("oss-key.to.table-id.matching.pattern")) {
        const std::string value = o.get_string("oss-key.to.table-id.matching.pattern");
        regex::Error error;
        auto re = regex::compile_java(value, &error);
        if (!re)
            d.error(o.location("oss-key.to.table-id.matching.pattern"),
                    "`oss-key.to.table-id.matching.pattern`: " + regex::refusal(value, error));
        else if (re->NumberOfCapturingGroups() < 1 || re->NumberOfCapturingGroups() > 3)
            d.error(
                o.location("oss-key.to.table-id.matching.pattern"),
                "`oss-key.to.table-id.matching.pattern` must have 1 to 3 capture groups, it has " +
                    std::to_string(re->NumberOfCapturingGroups()));
    }
    (void)mode_name;
}

OssSettings settings_from(const config::ValidatedOptions& o) {
    OssSettings s;
    s.mode = mode_of(o);
    s.startup = startup_of(o, s.mode);
    if (o.has("scan.startup.timestamp-millis"))
        s.startup_timestamp_ms = o.get_long("scan.startup.timestamp-millis");
    s.append_only = o.get_bool("scan.read-changelog-as-append-only.enabled");
    s.access_key_id = o.get_string("access-key-id");
    s.access_key_secret = o.get_string("access-key-secret");
    s.security_token = trimmed(o, "security-token");
    s.mns_use_vpc = o.get_bool("mns.use-vpc-endpoint.enabled");
    if (!trimmed(o, "mns.endpoint").empty())
        s.mns_endpoint = s.mns_use_vpc ? mns_vpc_endpoint(trimmed(o, "mns.endpoint"))
                                       : normalize_endpoint(trimmed(o, "mns.endpoint"));
    s.mns_region = trimmed(o, "mns.region");
    if (s.mns_region.empty()) s.mns_region = mns_endpoint_region(trimmed(o, "mns.endpoint"));
    s.mns_queue = trimmed(o, "mns.queue-name");
    s.mns_batch_size = o.get_int("mns.batch-size");
    s.mns_wait = o.get_duration("mns.polling-wait-time");
    s.mns_delete_max_retries = o.get_int("mns.delete-max-retries");
    s.mns_batch_delete = o.get_bool("mns.batch-delete.enabled");
    if (!trimmed(o, "oss-endpoint").empty())
        s.oss_endpoint = normalize_endpoint(trimmed(o, "oss-endpoint"));
    s.oss_region = oss_region_of(o);
    if (s.oss_region.rfind("oss-", 0) == 0) s.oss_region = s.oss_region.substr(4);
    s.oss_bucket = trimmed(o, "oss-bucket");
    s.v4 = o.get_bool("oss-enable-v4-signature");
    if (o.is_set("path")) {
        // A prefix covered by a shorter one is dropped: each object is listed once.
        auto list = config::parse_list(o.get_string("path"));
        std::sort(list.begin(), list.end());
        for (const auto& p : list) {
            bool covered = std::any_of(s.paths.begin(), s.paths.end(),
                                       [&](const std::string& q) { return p.rfind(q, 0) == 0; });
            if (!covered) s.paths.push_back(p);
        }
    }
    s.presign = o.get_bool("oss-objects.pre-sign.enabled");
    s.presign_ttl = std::chrono::duration_cast<std::chrono::seconds>(
        o.get_duration("oss-objects.pre-sign.ttl"));
    if (o.is_set("scan.rate-limit.records-per-second"))
        s.rate_limit = o.get_double("scan.rate-limit.records-per-second");
    if (o.is_set("scan.parallelism")) s.parallelism = o.get_int("scan.parallelism");
    if (o.is_set("oss-key.to.table-id.matching.pattern"))
        s.table_id_pattern = o.get_string("oss-key.to.table-id.matching.pattern");
    if (o.is_set("metadata.list")) {
        for (const auto& key : config::parse_list(o.get_string("metadata.list"))) {
            for (const auto& k : metadata_keys())
                if (ascii::iequals(k, key)) s.metadata.push_back(k);
        }
    }
    s.polling_interval = o.get_duration("polling.interval");
    s.polling_prefix_size = o.get_int("polling.prefix-size");
    s.polling_emit_deletes = o.get_bool("polling.emit-deletes");
    s.fetch_max_bytes = o.get_memory_size("fetch-content.max-size");
    s.fetch_ignore_errors = o.get_bool("fetch-content.ignore-errors");
    s.fetch_timeout = o.get_duration("fetch-content.timeout");
    s.request_timeout = o.get_duration("request.timeout");
    return s;
}

}  // namespace cdcd::oss
