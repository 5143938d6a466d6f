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

const config::OptionBindings<OssOptions>& option_bindings() {
    static const config::OptionBindings<OssOptions> bindings{{
        // General
        OptionSpec::enum_of<IncrementalMode>(
            "scan.incremental.mode",
            {{"MNS", IncrementalMode::Mns}, {"POLLING", IncrementalMode::Polling}})
            .default_("MNS")
            .desc("How changes are discovered: MNS consumes OSS event notifications from a queue; "
                  "POLLING "
                  "periodically lists the object metadata.")
            .to(&OssOptions::mode),
        OptionSpec::string("mns.endpoint")
            .desc("MNS endpoint, http://{account-id}.mns.{region}.aliyuncs.com. "
                  "Required for MNS incremental consumption.")
            .to(&OssOptions::mns_endpoint),
        OptionSpec::string("mns.region")
            .desc("MNS region, e.g. cn-hangzhou. Optional (MNS signatures carry no region); when "
                  "set and mns.endpoint names a region ({account}.mns.{region}.aliyuncs.com), "
                  "the two must agree.")
            .to(&OssOptions::mns_region),
        OptionSpec::string("mns.queue-name")
            .desc("The MNS queue OSS event notifications are delivered to.")
            .to(&OssOptions::mns_queue),
        OptionSpec::string("access-key-id")
            .required()
            .desc("Alibaba Cloud AccessKey ID.")
            .to(&OssOptions::access_key_id),
        OptionSpec::string("access-key-secret")
            .required()
            .secret()
            .desc("Alibaba Cloud AccessKey Secret.")
            .to(&OssOptions::access_key_secret),
        OptionSpec::string("security-token")
            .secret()
            .desc("cdcd extension: STS security token sent with every OSS and MNS request.")
            .to(&OssOptions::security_token),
        OptionSpec::string("oss-key.to.table-id.matching.pattern")
            .desc("Java regex matched against oss://<bucket>/<key>; 1-3 capture groups give table, "
                  "namespace.table or namespace.schema.table; objects that do not match are "
                  "filtered out.")
            .to(&OssOptions::table_id_pattern),
        // Startup
        OptionSpec::enum_of<StartupMode>("scan.startup.mode",
                                         {{"EARLIEST_OFFSET", StartupMode::EarliestOffset},
                                          {"LATEST_OFFSET", StartupMode::LatestOffset},
                                          {"COMMITTED_OFFSET", StartupMode::CommittedOffset},
                                          {"TIMESTAMP", StartupMode::Timestamp},
                                          {"INITIAL", StartupMode::Initial},
                                          {"SNAPSHOT", StartupMode::Snapshot}})
            .desc("Startup mode; default COMMITTED_OFFSET for MNS, LATEST_OFFSET for POLLING.")
            .to(&OssOptions::startup),
        OptionSpec::long_("scan.startup.timestamp-millis")
            .at_least(1)
            .desc("Epoch milliseconds to start from; required by (and only used with) TIMESTAMP.")
            .to(&OssOptions::startup_timestamp_ms),
        OptionSpec::boolean("scan.read-changelog-as-append-only.enabled")
            .default_("false")
            .desc("Emit every incremental change as INSERT (+I).")
            .to(&OssOptions::append_only),
        // Tuning
        OptionSpec::integer("mns.batch-size")
            .default_("1")
            .range(1, 16)
            .desc("Messages per BatchReceiveMessage.")
            .to(&OssOptions::mns_batch_size),
        OptionSpec::duration("mns.polling-wait-time")
            .default_("10s")
            .range(0, 30'000)
            .desc("MNS long-polling wait (0-30 s).")
            .to(&OssOptions::mns_wait),
        OptionSpec::integer("mns.delete-max-retries")
            .default_("3")
            .at_least(0)
            .desc("Retries of a failed message delete.")
            .to(&OssOptions::mns_delete_max_retries),
        OptionSpec::double_("scan.rate-limit.records-per-second")
            .desc("Maximum records emitted per second; unlimited when unset.")
            .to(&OssOptions::rate_limit),
        OptionSpec::integer("scan.parallelism")
            .at_least(1)
            .desc("Concurrent MNS receivers (pipeline.parallelism when unset).")
            .to(&OssOptions::parallelism),
        OptionSpec::boolean("mns.use-vpc-endpoint.enabled")
            .default_("false")
            .desc("Call MNS through its VPC endpoint ({account}.mns.{region}-vpc.aliyuncs.com).")
            .to(&OssOptions::mns_use_vpc),
        OptionSpec::boolean("mns.batch-delete.enabled")
            .default_("false")
            .desc("Acknowledge messages with BatchDeleteMessage (16 per call) instead of one "
                  "DeleteMessage each.")
            .to(&OssOptions::mns_batch_delete),
        OptionSpec::duration("polling.interval")
            .default_("10s")
            .at_least(1)
            .desc("POLLING: time between two metadata scans (at least 1 ms).")
            .to(&OssOptions::polling_interval),
        OptionSpec::integer("polling.prefix-size")
            .default_("100")
            .at_least(1)
            .desc("POLLING: most changed objects per batch and path prefix; one scan's changes "
                  "go out in such batches back to back.")
            .to(&OssOptions::polling_prefix_size),
        OptionSpec::boolean("polling.emit-deletes")
            .default_("false")
            .desc("cdcd extension, POLLING: emit DELETE for a key a complete scan no longer finds.")
            .to(&OssOptions::polling_emit_deletes),
        // OSS access
        OptionSpec::string("oss-endpoint")
            .desc("OSS endpoint (https://oss-cn-hangzhou.aliyuncs.com; https when no scheme). "
                  "Required for "
                  "SNAPSHOT, INITIAL, POLLING and pre-signed URLs.")
            .to(&OssOptions::oss_endpoint),
        OptionSpec::string("oss-region")
            .desc("OSS region, e.g. cn-hangzhou; falls back to `region` when unset. Required (one "
                  "of the two) for SNAPSHOT, INITIAL, POLLING and V4.")
            .to(&OssOptions::oss_region),
        OptionSpec::string("region")
            .desc("OSS region used when `oss-region` is unset (the spec's fallback).")
            .to(&OssOptions::region),
        OptionSpec::string("oss-bucket")
            .desc("OSS bucket. Required for SNAPSHOT, INITIAL, POLLING and with `path`.")
            .to(&OssOptions::oss_bucket),
        OptionSpec::boolean("oss-enable-v4-signature")
            .default_("false")
            .desc("Sign OSS requests with V4 (needs oss-region).")
            .to(&OssOptions::v4),
        OptionSpec::string("path")
            .desc("Comma-separated object key prefixes scanned by SNAPSHOT, INITIAL and POLLING.")
            .to(&OssOptions::path),
        OptionSpec::string("metadata.list")
            .desc("Comma-separated metadata columns exposed downstream (MNS event fields; NULL "
                  "outside the MNS "
                  "incremental phase).")
            .to(&OssOptions::metadata_list),
        OptionSpec::boolean("oss-objects.pre-sign.enabled")
            .default_("false")
            .desc("Fill `url` with a pre-signed download URL instead of oss://<bucket>/<key>.")
            .to(&OssOptions::presign),
        OptionSpec::duration("oss-objects.pre-sign.ttl")
            .default_("1h")
            .range(1'000, 7LL * 24 * 3600 * 1000)
            .desc("Validity of pre-signed URLs (1 s to 7 days).")
            .to(&OssOptions::presign_ttl),
        // FETCH_CONTENT
        OptionSpec::memory_size("fetch-content.max-size")
            .default_("64mb")
            .range(1, 1LL << 31)
            .desc("cdcd extension: FETCH_CONTENT refuses objects larger than this.")
            .to(&OssOptions::fetch_max_bytes),
        OptionSpec::boolean("fetch-content.ignore-errors")
            .default_("false")
            .desc("cdcd extension: a failed FETCH_CONTENT yields NULL (with a warning) instead of "
                  "failing the pipeline.")
            .to(&OssOptions::fetch_ignore_errors),
        OptionSpec::duration("fetch-content.timeout")
            .default_("60s")
            .at_least(1'000)
            .desc("cdcd extension: time limit of one FETCH_CONTENT download, retries included; "
                  "the download is cancelled there.")
            .to(&OssOptions::fetch_timeout),
        OptionSpec::duration("request.timeout")
            .default_("30s")
            .at_least(100)
            .desc("cdcd extension: time limit of one OSS or MNS request (connect, send, answer); "
                  "an MNS receive may take mns.polling-wait-time longer. A request that times "
                  "out is retried like a 5xx.")
            .to(&OssOptions::request_timeout),
    }};
    return bindings;
}

config::ConnectorOptionsSpec option_specs() {
    return option_bindings().spec();
}

namespace {

using Options = config::BoundOptions<OssOptions>;

/// The startup mode; its default depends on the incremental mode.
StartupMode startup_of(const OssOptions& o) {
    if (o.startup) return *o.startup;
    return o.mode == IncrementalMode::Polling ? StartupMode::LatestOffset
                                              : StartupMode::CommittedOffset;
}

std::string trimmed(const std::optional<std::string>& value) {
    return value ? std::string(ascii::trim(*value, " \t")) : std::string();
}

/// `oss-region`, or `region` when it is unset (the spec: "若未设置，则回退至region参数值").
std::string oss_region_of(const OssOptions& o) {
    std::string r = trimmed(o.oss_region);
    return r.empty() ? trimmed(o.region) : r;
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
    // Trailing slashes of the path only: "http://" keeps its "//" and reads as a URL without a
    // host, not as one without a scheme.
    const std::size_t host = e.find("://") + 3;
    while (e.size() > host && e.back() == '/') e.pop_back();
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

void validate(const config::ValidatedOptions& options, const config::ConnectorDef& def,
              config::Diagnostics& d) {
    (void)def;
    const Options o = option_bindings().read(options);
    IncrementalMode mode = o->mode;
    StartupMode startup = startup_of(*o);
    auto where_mode = o.is_set(o->startup) ? o.where(o->startup) : o.where(o->mode);
    // The position of an option when it is set, else that of the mode that requires it.
    auto where_or_mode = [&](const auto& member) {
        return o.is_set(member) ? o.where(member) : where_mode;
    };
    auto quoted = [&](const auto& member) { return "`" + o.key(member) + "`"; };

    if (mode == IncrementalMode::Polling &&
        (startup == StartupMode::EarliestOffset || startup == StartupMode::CommittedOffset ||
         startup == StartupMode::Timestamp)) {
        d.error(o.where(o->startup),
                std::string("scan.startup.mode ") + to_string(startup) +
                    " is not supported with scan.incremental.mode POLLING (use LATEST_OFFSET, "
                    "INITIAL or SNAPSHOT)");
    }
    if (startup == StartupMode::Timestamp && !o.is_set(o->startup_timestamp_ms))
        d.error(o.where(o->startup),
                "scan.startup.mode TIMESTAMP requires `scan.startup.timestamp-millis` (positive "
                "epoch milliseconds)");

    bool consumes_mns = mode == IncrementalMode::Mns && startup != StartupMode::Snapshot;
    if (consumes_mns) {
        for (const auto* member : {&o->mns_endpoint, &o->mns_queue})
            if (trimmed(*member).empty())
                d.error(where_or_mode(*member),
                        quoted(*member) +
                            " is required by scan.incremental.mode MNS with scan.startup.mode " +
                            to_string(startup));
        if (!trimmed(o->mns_endpoint).empty()) {
            std::string err;
            if (!net::parse_url(normalize_endpoint(trimmed(o->mns_endpoint)), &err))
                d.error(o.where(o->mns_endpoint),
                        quoted(o->mns_endpoint) + " is not a valid URL: " + err);
        }
    }
    const std::string endpoint_region = mns_endpoint_region(trimmed(o->mns_endpoint));
    const std::string mns_region = trimmed(o->mns_region);
    if (!endpoint_region.empty() && !mns_region.empty() && mns_region != endpoint_region)
        d.error(o.where(o->mns_region), quoted(o->mns_region) + " " + mns_region +
                                            " does not match the region " + endpoint_region +
                                            " of " + quoted(o->mns_endpoint) + "; set it to " +
                                            endpoint_region + " (or leave it out)");
    bool lists_oss = startup == StartupMode::Snapshot || startup == StartupMode::Initial ||
                     mode == IncrementalMode::Polling;
    if (lists_oss) {
        std::string why = mode == IncrementalMode::Polling && startup != StartupMode::Snapshot &&
                                  startup != StartupMode::Initial
                              ? std::string("scan.incremental.mode POLLING")
                              : std::string("scan.startup.mode ") + to_string(startup);
        for (const auto* member : {&o->oss_endpoint, &o->oss_bucket})
            if (trimmed(*member).empty())
                d.error(where_or_mode(*member), quoted(*member) + " is required by " + why);
        if (oss_region_of(*o).empty())
            d.error(where_or_mode(o->oss_region), quoted(o->oss_region) + " is required by " + why +
                                                      " (or " + quoted(o->region) +
                                                      ", its fallback)");
    }
    if (o.is_set(o->path) && trimmed(o->oss_bucket).empty())
        d.error(o.where(o->path), quoted(o->path) + " requires " + quoted(o->oss_bucket));
    if (o.is_set(o->path) && config::parse_list(o->path.value_or("")).empty())
        d.error(o.where(o->path), quoted(o->path) + " lists no prefix");
    if (o->v4 && oss_region_of(*o).empty())
        d.error(o.where(o->v4), quoted(o->v4) + " requires " + quoted(o->oss_region) + " (or " +
                                    quoted(o->region) + ", its fallback)");
    if (o->presign && trimmed(o->oss_endpoint).empty())
        d.error(o.where(o->presign), quoted(o->presign) + " requires " + quoted(o->oss_endpoint));
    if (!trimmed(o->oss_endpoint).empty()) {
        std::string err;
        if (!net::parse_url(normalize_endpoint(trimmed(o->oss_endpoint)), &err))
            d.error(o.where(o->oss_endpoint),
                    quoted(o->oss_endpoint) + " is not a valid URL: " + err);
    }
    if (o->rate_limit && !(*o->rate_limit > 0))
        d.error(o.where(o->rate_limit), quoted(o->rate_limit) + " must be positive");
    if (o->metadata_list) {
        std::set<std::string> seen;
        for (const auto& key : config::parse_list(*o->metadata_list)) {
            const auto& keys = metadata_keys();
            auto it = std::find_if(keys.begin(), keys.end(),
                                   [&](const std::string& k) { return ascii::iequals(k, key); });
            if (it == keys.end()) {
                std::string all;
                for (const auto& k : keys) all += (all.empty() ? "" : ", ") + k;
                d.error(o.where(o->metadata_list),
                        "unknown metadata column '" + key + "'; supported: " + all);
            } else if (!seen.insert(*it).second) {
                d.error(o.where(o->metadata_list), "metadata column '" + *it + "' is listed twice");
            }
        }
    }
    if (o->table_id_pattern) {
        const std::string& value = *o->table_id_pattern;
        regex::Error error;
        auto re = regex::compile_java(value, &error);
        if (!re)
            d.error(o.where(o->table_id_pattern),
                    quoted(o->table_id_pattern) + ": " + regex::refusal(value, error));
        else if (re->NumberOfCapturingGroups() < 1 || re->NumberOfCapturingGroups() > 3)
            d.error(o.where(o->table_id_pattern),
                    quoted(o->table_id_pattern) + " must have 1 to 3 capture groups, it has " +
                        std::to_string(re->NumberOfCapturingGroups()));
    }
}

OssSettings settings_from(const config::ValidatedOptions& options) {
    const OssOptions o = option_bindings().read(options).take();
    OssSettings s;
    s.mode = o.mode;
    s.startup = startup_of(o);
    if (o.startup_timestamp_ms) s.startup_timestamp_ms = *o.startup_timestamp_ms;
    s.append_only = o.append_only;
    s.access_key_id = o.access_key_id;
    s.access_key_secret = o.access_key_secret;
    s.security_token = trimmed(o.security_token);
    s.mns_use_vpc = o.mns_use_vpc;
    const std::string mns_endpoint = trimmed(o.mns_endpoint);
    if (!mns_endpoint.empty())
        s.mns_endpoint =
            s.mns_use_vpc ? mns_vpc_endpoint(mns_endpoint) : normalize_endpoint(mns_endpoint);
    s.mns_region = trimmed(o.mns_region);
    if (s.mns_region.empty()) s.mns_region = mns_endpoint_region(mns_endpoint);
    s.mns_queue = trimmed(o.mns_queue);
    s.mns_batch_size = o.mns_batch_size;
    s.mns_wait = o.mns_wait;
    s.mns_delete_max_retries = o.mns_delete_max_retries;
    s.mns_batch_delete = o.mns_batch_delete;
    if (!trimmed(o.oss_endpoint).empty())
        s.oss_endpoint = normalize_endpoint(trimmed(o.oss_endpoint));
    s.oss_region = oss_region_of(o);
    if (s.oss_region.rfind("oss-", 0) == 0) s.oss_region = s.oss_region.substr(4);
    s.oss_bucket = trimmed(o.oss_bucket);
    s.v4 = o.v4;
    if (o.path) {
        // A prefix covered by a shorter one is dropped: each object is listed once.
        auto list = config::parse_list(*o.path);
        std::sort(list.begin(), list.end());
        for (const auto& p : list) {
            bool covered = std::any_of(s.paths.begin(), s.paths.end(),
                                       [&](const std::string& q) { return p.rfind(q, 0) == 0; });
            if (!covered) s.paths.push_back(p);
        }
    }
    s.presign = o.presign;
    s.presign_ttl = std::chrono::duration_cast<std::chrono::seconds>(o.presign_ttl);
    s.rate_limit = o.rate_limit;
    if (o.parallelism) s.parallelism = *o.parallelism;
    if (o.table_id_pattern) s.table_id_pattern = *o.table_id_pattern;
    if (o.metadata_list) {
        for (const auto& key : config::parse_list(*o.metadata_list)) {
            for (const auto& k : metadata_keys())
                if (ascii::iequals(k, key)) s.metadata.push_back(k);
        }
    }
    s.polling_interval = o.polling_interval;
    s.polling_prefix_size = o.polling_prefix_size;
    s.polling_emit_deletes = o.polling_emit_deletes;
    s.fetch_max_bytes = o.fetch_max_bytes;
    s.fetch_ignore_errors = o.fetch_ignore_errors;
    s.fetch_timeout = o.fetch_timeout;
    s.request_timeout = o.request_timeout;
    return s;
}

}  // namespace cdcd::oss
