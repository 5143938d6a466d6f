#include "sinks/vikingdb/options.h"

#include <simdjson.h>

#include <cstdlib>
#include <set>
#include <stdexcept>

#include "config/secrets.h"
#include "text/ascii.h"

namespace cdcd::vikingdb {

namespace {

using config::OptionSpec;

const std::set<std::string>& override_types() {
    static const std::set<std::string> types = {"vector",     "sparse_vector", "list_string",
                                                "list_int64", "date_time",     "video",
                                                "image",      "geo_point",     "text"};
    return types;
}

struct SecretPair {
    const char* direct;
    const char* env;
    bool required;
};

const SecretPair kSecretPairs[] = {
    {"api-key", "api-key-env", false},
    {"access-key", "access-key-env", true},
    {"secret-key", "secret-key-env", true},
};

/// The value of a `x` / `x-env` pair, or an error message.
std::optional<std::string> resolve_secret(const config::ValidatedOptions& o, const SecretPair& p,
                                          const EnvReader& env, std::string* error) {
    bool direct = o.is_set(p.direct), via_env = o.is_set(p.env);
    if (direct && via_env) {
        *error = std::string("set only one of `") + p.direct + "` and `" + p.env + "`";
        return std::nullopt;
    }
    if (direct) {
        std::string v = o.get_string(p.direct);
        if (v.empty()) *error = std::string("`") + p.direct + "` is empty";
        return v;
    }
    if (via_env) {
        std::string name = o.get_string(p.env);
        auto v = env(name);
        if (!v || v->empty()) {
            *error = std::string("`") + p.env + "` names the environment variable " + name +
                     ", which is not set or empty";
            return std::nullopt;
        }
        config::SecretRegistry::instance().add(*v);
        return v;
    }
    if (p.required)
        *error = std::string("one of `") + p.direct + "` and `" + p.env +
                 "` is required (the control plane is always signed with AK/SK)";
    return std::nullopt;
}

}  // namespace

std::optional<std::string> vectorize_kind(const std::string& key) {
    auto dot = key.find('.');
    std::string head = ascii::to_lower(key.substr(0, dot));
    if (head == "dense") return std::string("Dense");
    if (head == "sparse") return std::string("Sparse");
    if (dot == std::string::npos) return std::string("Dense");  // a flat <param>
    return std::nullopt;
}

std::optional<std::string> read_process_env(const std::string& name) {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
}

config::ConnectorOptionsSpec vikingdb_sink_options() {
    config::ConnectorOptionsSpec spec;
    auto& o = spec.options;
    // Connection and authentication.
    o.push_back(OptionSpec::string("region").required().desc(
        "VikingDB region, e.g. cn-beijing (signing scope)."));
    o.push_back(
        OptionSpec::string("control-plane.host")
            .required()
            .desc("Control-plane host (vikingdb.<region>.volcengineapi.com); `http://host:port` "
                  "selects plain HTTP (emulators), https otherwise."));
    o.push_back(OptionSpec::string("data-plane.host")
                    .required()
                    .desc("Data-plane host (api-vikingdb.vikingdb.<region>.volces.com) for upsert, "
                          "delete and "
                          "truncate."));
    o.push_back(OptionSpec::enum_of("data-plane.scheme", {"http", "https"})
                    .default_("https")
                    .desc("Data-plane protocol."));
    o.push_back(OptionSpec::string("api-key").secret().desc(
        "Data-plane API key (Bearer); one of api-key, api-key-env."));
    o.push_back(OptionSpec::string("api-key-env")
                    .desc("Environment variable holding the data-plane API key."));
    o.push_back(OptionSpec::string("access-key")
                    .secret()
                    .desc("Volcengine Access Key (control plane, V4 signing)."));
    o.push_back(
        OptionSpec::string("access-key-env").desc("Environment variable holding the Access Key."));
    o.push_back(OptionSpec::string("secret-key")
                    .secret()
                    .desc("Volcengine Secret Key (control plane, V4 signing)."));
    o.push_back(
        OptionSpec::string("secret-key-env").desc("Environment variable holding the Secret Key."));
    // Collection and write.
    o.push_back(OptionSpec::string("collection-name-template")
                    .templated()
                    .desc("Collection name from the table id: ${database}, ${schema}, ${table}. "
                          "Default: the table id with '.' replaced by '_'."));
    o.push_back(OptionSpec::string("resource-id")
                    .desc("Collection resource id, used to address data-plane writes."));
    o.push_back(OptionSpec::string("project-name")
                    .default_("default")
                    .desc("VikingDB project (ProjectName)."));
    o.push_back(OptionSpec::string("default-database")
                    .default_("default")
                    .desc("Logical catalog database of the control plane; ${database} when the "
                          "table id has none."));
    o.push_back(OptionSpec::boolean("auto-create-table")
                    .default_("true")
                    .desc("Create a missing collection on CREATE TABLE (an existing one is always "
                          "validated)."));
    o.push_back(OptionSpec::long_("ttl").at_least(1).desc(
        "Seconds a written record lives (upsert `ttl`)."));
    o.push_back(OptionSpec::boolean("async").default_("false").desc(
        "Asynchronous upsert (minutes-level visibility)."));
    o.push_back(
        OptionSpec::integer("sink.bulk-flush.batch-size")
            .range(1, 100)
            .default_("100")
            .desc("Records per request (1 for collections with Vectorize, as the API requires)."));
    o.push_back(OptionSpec::duration("sink.bulk-flush.interval")
                    .default_("1s")
                    .at_least(0)
                    .desc("Longest time a partial batch waits; 0 disables time-based flushes."));
    o.push_back(OptionSpec::boolean("sink.ignore-update-before")
                    .default_("false")
                    .desc("Do not delete the old key of an UPDATE that changes the primary key."));
    o.push_back(
        OptionSpec::boolean("sink.ignore-delete").default_("false").desc("Drop DELETE events."));
    // Connection pool.
    o.push_back(OptionSpec::duration("connection.timeout")
                    .default_("10s")
                    .at_least(1)
                    .desc("Connect timeout (TCP connect and TLS handshake), apart from the "
                          "request's own timeout."));
    o.push_back(OptionSpec::duration("socket.timeout")
                    .default_("120s")
                    .at_least(1)
                    .desc("Data-plane request timeout, from the connection being ready."));
    o.push_back(OptionSpec::duration("read.timeout")
                    .default_("120s")
                    .at_least(1)
                    .desc("Control-plane request timeout, from the connection being ready."));
    o.push_back(OptionSpec::integer("max-retries")
                    .default_("3")
                    .at_least(0)
                    .desc("Retries of a request after a 5xx or transport failure; 4xx is "
                          "never retried, and throttling (429) is waited out, not counted."));
    o.push_back(OptionSpec::duration("retry.initial-backoff")
                    .default_("5s")
                    .at_least(1)
                    .desc("cdcd extension: backoff before the first retry, doubled for each "
                          "further one; each wait is drawn from [d/2, d]."));
    o.push_back(OptionSpec::duration("retry.max-backoff")
                    .default_("60s")
                    .at_least(1)
                    .desc("cdcd extension: cap of the doubled retry backoff, and of the "
                          "Retry-After a throttled request waits for."));
    o.push_back(OptionSpec::integer("connection.max-total")
                    .default_("200")
                    .at_least(1)
                    .desc("Connections open at once (in use or pooled), in all; a request "
                          "finding all busy waits for one."));
    o.push_back(OptionSpec::integer("connection.max-per-route")
                    .default_("200")
                    .at_least(1)
                    .desc("Connections open at once to one host (route)."));
    o.push_back(OptionSpec::duration("connection.time-to-live")
                    .default_("60s")
                    .at_least(0)
                    .desc("Longest a connection lives: one older is closed, not reused (0: no "
                          "limit)."));
    o.push_back(OptionSpec::duration("connection.validate-after-inactivity")
                    .default_("10s")
                    .at_least(0)
                    .desc("Idle time after which a pooled connection is checked before reuse "
                          "(closed by the server: replaced); 0: never checked."));
    o.push_back(OptionSpec::duration("connection.idle-evict")
                    .default_("30s")
                    .at_least(0)
                    .desc("Every this often, connections idle this long are closed; 0: no "
                          "eviction (idle connections are still dropped after 50 s)."));
    spec.prefixes.push_back(
        {kFieldPrefix,
         "vikingdb.field.<field>.type (vector, sparse_vector, list_string, list_int64, date_time, "
         "video, image, geo_point, text) and vikingdb.field.<field>.dim; table schema options "
         "with the same key win."});
    spec.prefixes.push_back(
        {kVectorizePrefix,
         "vikingdb.vectorize.<param> (the dense model's: model-name, model-version, text-field, "
         "image-field, video-field, dim), vikingdb.vectorize.<dense|sparse>.<param>, or "
         "vikingdb.vectorize.<dense|sparse> as a JSON object passed through: Vectorize of "
         "auto-created collections."});
    return spec;
}

FieldOverrides parse_field_overrides(const std::map<std::string, std::string>& keys) {
    FieldOverrides out;
    for (const auto& [key, value] : keys) {
        auto dot = key.rfind('.');
        std::string full = std::string(kFieldPrefix) + key;
        if (dot == std::string::npos || dot == 0)
            throw std::invalid_argument("`" + full + "`: expected " + kFieldPrefix +
                                        "<field>.type or .dim");
        std::string field = key.substr(0, dot), what = key.substr(dot + 1);
        if (what == "type") {
            if (!override_types().count(value))
                throw std::invalid_argument(
                    "`" + full + "`: unknown type '" + value +
                    "'; expected one of vector, sparse_vector, list_string, list_int64, "
                    "date_time, video, image, geo_point, text");
            out[field].type = value;
        } else if (what == "dim") {
            auto dim = config::parse_int(value);
            if (!dim || *dim < 4 || *dim > 4096 || *dim % 4 != 0)
                throw std::invalid_argument(
                    "`" + full + "`: '" + value +
                    "' is not a vector dimension (4..4096, a multiple of 4)");
            out[field].dim = *dim;
        } else {
            throw std::invalid_argument("`" + full + "`: unknown field setting '" + what +
                                        "'; expected type or dim");
        }
    }
    return out;
}

std::pair<std::string, std::string> split_scheme(const std::string& host,
                                                 const std::string& fallback) {
    for (const char* scheme : {"http", "https"}) {
        std::string prefix = std::string(scheme) + "://";
        if (host.rfind(prefix, 0) == 0) {
            std::string rest = host.substr(prefix.size());
            while (!rest.empty() && rest.back() == '/') rest.pop_back();
            return {scheme, rest};
        }
    }
    return {fallback, host};
}

void validate_vikingdb_sink(const config::ValidatedOptions& o, config::Diagnostics& d,
                            const EnvReader& env) {
    for (const auto& pair : kSecretPairs) {
        std::string error;
        resolve_secret(o, pair, env, &error);
        if (!error.empty()) {
            const char* where =
                o.is_set(pair.env) && !o.is_set(pair.direct) ? pair.env : pair.direct;
            d.error(o.location(where), "sink `vikingdb`: " + error);
        }
    }
    for (const char* host : {"control-plane.host", "data-plane.host"}) {
        if (o.has(host) && split_scheme(o.get_string(host), "https").second.empty())
            d.error(o.location(host), std::string("sink `vikingdb`: `") + host + "` is empty");
    }
    auto fields = o.with_prefix(kFieldPrefix);
    for (const auto& [key, value] : fields) {
        try {
            parse_field_overrides({{key, value}});
        } catch (const std::exception& e) {
            d.error(o.location(std::string(kFieldPrefix) + key),
                    std::string("sink `vikingdb`: ") + e.what());
        }
    }
    auto vectorize = o.with_prefix(kVectorizePrefix);
    std::set<std::string> whole, by_param;  // kinds given as one JSON object / param by param
    for (const auto& [key, value] : vectorize) {
        std::string full = std::string(kVectorizePrefix) + key;
        auto kind = vectorize_kind(key);
        if (kind && ascii::to_lower(key) == ascii::to_lower(*kind)) {  // `dense` / `sparse`
            whole.insert(*kind);
            simdjson::dom::parser parser;
            simdjson::dom::element doc;
            if (parser.parse(value).get(doc) != simdjson::SUCCESS || !doc.is_object())
                d.error(o.location(full), "sink `vikingdb`: `" + full +
                                              "` must be a JSON object (the API's Vectorize." +
                                              *kind + "), e.g. {\"ModelName\": \"bge-m3\"}");
            continue;
        }
        if (!kind)
            d.error(o.location(full),
                    "sink `vikingdb`: `" + full +
                        "`: expected vikingdb.vectorize.<param> (dense), "
                        "vikingdb.vectorize.dense.<param> or vikingdb.vectorize.sparse.<param>");
        else
            by_param.insert(*kind);
    }
    for (const auto& kind : whole)
        if (by_param.count(kind))
            d.error(o.location(std::string(kVectorizePrefix) + kind),
                    "sink `vikingdb`: Vectorize." + kind + " is given both as `" +
                        kVectorizePrefix + kind + "` and param by param; use one form");
    if (!vectorize.empty() && o.get_bool("async"))
        d.error(o.location("async"),
                "sink `vikingdb`: `async: true` cannot be combined with vikingdb.vectorize.* "
                "(VikingDB rejects asynchronous upserts into vectorizing collections)");
}

VikingdbSettings vikingdb_settings(const config::ValidatedOptions& o, const EnvReader& env) {
    config::Diagnostics d;
    validate_vikingdb_sink(o, d, env);
    if (!d.ok()) throw config::ConfigError(d);
    VikingdbSettings s;
    s.region = o.get_string("region");
    s.data_scheme = o.get_enum("data-plane.scheme");
    std::tie(s.data_scheme, s.data_host) =
        split_scheme(o.get_string("data-plane.host"), s.data_scheme);
    std::tie(s.control_scheme, s.control_host) =
        split_scheme(o.get_string("control-plane.host"), "https");
    std::string ignored;
    s.credentials.api_key = resolve_secret(o, kSecretPairs[0], env, &ignored).value_or("");
    s.credentials.access_key = resolve_secret(o, kSecretPairs[1], env, &ignored).value_or("");
    s.credentials.secret_key = resolve_secret(o, kSecretPairs[2], env, &ignored).value_or("");
    if (o.has("collection-name-template"))
        s.name_template = o.get_string("collection-name-template");
    if (o.has("resource-id")) s.resource_id = o.get_string("resource-id");
    s.project_name = o.get_string("project-name");
    s.default_database = o.get_string("default-database");
    s.auto_create = o.get_bool("auto-create-table");
    if (o.has("ttl")) s.ttl_seconds = o.get_long("ttl");
    s.async_upsert = o.get_bool("async");
    s.batch_size = o.get_int("sink.bulk-flush.batch-size");
    s.flush_interval = o.get_duration("sink.bulk-flush.interval");
    s.ignore_update_before = o.get_bool("sink.ignore-update-before");
    s.ignore_delete = o.get_bool("sink.ignore-delete");
    s.connect_timeout = o.get_duration("connection.timeout");
    s.socket_timeout = o.get_duration("socket.timeout");
    s.read_timeout = o.get_duration("read.timeout");
    s.max_retries = o.get_int("max-retries");
    s.retry_initial_backoff = o.get_duration("retry.initial-backoff");
    s.retry_max_backoff = o.get_duration("retry.max-backoff");
    s.max_total_connections = o.get_int("connection.max-total");
    s.max_per_route = o.get_int("connection.max-per-route");
    s.connection_ttl = o.get_duration("connection.time-to-live");
    s.validate_after_inactivity = o.get_duration("connection.validate-after-inactivity");
    s.idle_evict = o.get_duration("connection.idle-evict");
    s.fields = parse_field_overrides(o.with_prefix(kFieldPrefix));
    s.vectorize = o.with_prefix(kVectorizePrefix);
    return s;
}

}  // namespace cdcd::vikingdb
