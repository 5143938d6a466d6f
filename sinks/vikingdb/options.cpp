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

using Options = config::BoundOptions<VikingdbOptions>;

struct SecretPair {
    std::optional<std::string> VikingdbOptions::*direct;
    std::optional<std::string> VikingdbOptions::*env;
    bool required;
};

const SecretPair kSecretPairs[] = {
    {&VikingdbOptions::api_key, &VikingdbOptions::api_key_env, false},
    {&VikingdbOptions::access_key, &VikingdbOptions::access_key_env, true},
    {&VikingdbOptions::secret_key, &VikingdbOptions::secret_key_env, true},
};

/// The value of a `x` / `x-env` pair, or an error message.
std::optional<std::string> resolve_secret(const Options& o, const SecretPair& p,
                                          const EnvReader& env, std::string* error) {
    const auto& direct = (*o).*p.direct;
    const auto& via_env = (*o).*p.env;
    const std::string& direct_key = o.key(direct);
    const std::string& env_key = o.key(via_env);
    if (direct && via_env) {
        *error = "set only one of `" + direct_key + "` and `" + env_key + "`";
        return std::nullopt;
    }
    if (direct) {
        if (direct->empty()) *error = "`" + direct_key + "` is empty";
        return direct;
    }
    if (via_env) {
        const std::string& name = *via_env;
        auto v = env(name);
        if (!v || v->empty()) {
            *error = "`" + env_key + "` names the environment variable " + name +
                     ", which is not set or empty";
            return std::nullopt;
        }
        config::SecretRegistry::instance().add(*v);
        return v;
    }
    if (p.required)
        *error = "one of `" + direct_key + "` and `" + env_key +
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

const config::OptionBindings<VikingdbOptions>& vikingdb_sink_bindings() {
    static const config::OptionBindings<VikingdbOptions> bindings{
        {
            // Connection and authentication.
            OptionSpec::string("region")
                .required()
                .desc("VikingDB region, e.g. cn-beijing (signing scope).")
                .to(&VikingdbOptions::region),
            OptionSpec::string("control-plane.host")
                .required()
                .desc(
                    "Control-plane host (vikingdb.<region>.volcengineapi.com); `http://host:port` "
                    "selects plain HTTP (emulators), https otherwise.")
                .to(&VikingdbOptions::control_host),
            OptionSpec::string("data-plane.host")
                .required()
                .desc("Data-plane host (api-vikingdb.vikingdb.<region>.volces.com) for upsert, "
                      "delete and "
                      "truncate.")
                .to(&VikingdbOptions::data_host),
            OptionSpec::enum_of("data-plane.scheme", {"http", "https"})
                .default_("https")
                .desc("Data-plane protocol.")
                .to(&VikingdbOptions::data_scheme),
            OptionSpec::string("api-key")
                .secret()
                .desc("Data-plane API key (Bearer); one of api-key, api-key-env.")
                .to(&VikingdbOptions::api_key),
            OptionSpec::string("api-key-env")
                .desc("Environment variable holding the data-plane API key.")
                .to(&VikingdbOptions::api_key_env),
            OptionSpec::string("access-key")
                .secret()
                .desc("Volcengine Access Key (control plane, V4 signing).")
                .to(&VikingdbOptions::access_key),
            OptionSpec::string("access-key-env")
                .desc("Environment variable holding the Access Key.")
                .to(&VikingdbOptions::access_key_env),
            OptionSpec::string("secret-key")
                .secret()
                .desc("Volcengine Secret Key (control plane, V4 signing).")
                .to(&VikingdbOptions::secret_key),
            OptionSpec::string("secret-key-env")
                .desc("Environment variable holding the Secret Key.")
                .to(&VikingdbOptions::secret_key_env),
            // Collection and write.
            OptionSpec::string("collection-name-template")
                .templated()
                .desc("Collection name from the table id: ${database}, ${schema}, ${table}. "
                      "Default: the table id with '.' replaced by '_'.")
                .to(&VikingdbOptions::name_template),
            OptionSpec::string("resource-id")
                .desc("Collection resource id, used to address data-plane writes.")
                .to(&VikingdbOptions::resource_id),
            OptionSpec::string("project-name")
                .default_("default")
                .desc("VikingDB project (ProjectName).")
                .to(&VikingdbOptions::project_name),
            OptionSpec::string("default-database")
                .default_("default")
                .desc("Logical catalog database of the control plane; ${database} when the "
                      "table id has none.")
                .to(&VikingdbOptions::default_database),
            OptionSpec::boolean("auto-create-table")
                .default_("true")
                .desc("Create a missing collection on CREATE TABLE (an existing one is always "
                      "validated).")
                .to(&VikingdbOptions::auto_create),
            OptionSpec::long_("ttl")
                .at_least(1)
                .desc("Seconds a written record lives (upsert `ttl`).")
                .to(&VikingdbOptions::ttl_seconds),
            OptionSpec::boolean("async")
                .default_("false")
                .desc("Asynchronous upsert (minutes-level visibility).")
                .to(&VikingdbOptions::async_upsert),
            OptionSpec::integer("sink.bulk-flush.batch-size")
                .range(1, 100)
                .default_("100")
                .desc(
                    "Records per request (1 for collections with Vectorize, as the API requires).")
                .to(&VikingdbOptions::batch_size),
            OptionSpec::duration("sink.bulk-flush.interval")
                .default_("1s")
                .at_least(0)
                .desc("Longest time a partial batch waits; 0 disables time-based flushes.")
                .to(&VikingdbOptions::flush_interval),
            OptionSpec::boolean("sink.ignore-update-before")
                .default_("false")
                .desc("Do not delete the old key of an UPDATE that changes the primary key.")
                .to(&VikingdbOptions::ignore_update_before),
            OptionSpec::boolean("sink.ignore-delete")
                .default_("false")
                .desc("Drop DELETE events.")
                .to(&VikingdbOptions::ignore_delete),
            // Connection pool.
            OptionSpec::duration("connection.timeout")
                .default_("10s")
                .at_least(1)
                .desc("Connect timeout (TCP connect and TLS handshake), apart from the "
                      "request's own timeout.")
                .to(&VikingdbOptions::connect_timeout),
            OptionSpec::duration("socket.timeout")
                .default_("120s")
                .at_least(1)
                .desc("Data-plane request timeout, from the connection being ready.")
                .to(&VikingdbOptions::socket_timeout),
            OptionSpec::duration("read.timeout")
                .default_("120s")
                .at_least(1)
                .desc("Control-plane request timeout, from the connection being ready.")
                .to(&VikingdbOptions::read_timeout),
            OptionSpec::integer("max-retries")
                .default_("3")
                .at_least(0)
                .desc("Retries of a request after a 5xx or transport failure; 4xx is "
                      "never retried, and throttling (429) is waited out, not counted.")
                .to(&VikingdbOptions::max_retries),
            OptionSpec::duration("retry.initial-backoff")
                .default_("5s")
                .at_least(1)
                .desc("cdcd extension: backoff before the first retry, doubled for each "
                      "further one; each wait is drawn from [d/2, d].")
                .to(&VikingdbOptions::retry_initial_backoff),
            OptionSpec::duration("retry.max-backoff")
                .default_("60s")
                .at_least(1)
                .desc("cdcd extension: cap of the doubled retry backoff, and of the "
                      "Retry-After a throttled request waits for.")
                .to(&VikingdbOptions::retry_max_backoff),
            OptionSpec::integer("connection.max-total")
                .default_("200")
                .at_least(1)
                .desc("Connections open at once (in use or pooled), in all; a request "
                      "finding all busy waits for one.")
                .to(&VikingdbOptions::max_total_connections),
            OptionSpec::integer("connection.max-per-route")
                .default_("200")
                .at_least(1)
                .desc("Connections open at once to one host (route).")
                .to(&VikingdbOptions::max_per_route),
            OptionSpec::duration("connection.time-to-live")
                .default_("60s")
                .at_least(0)
                .desc("Longest a connection lives: one older is closed, not reused (0: no "
                      "limit).")
                .to(&VikingdbOptions::connection_ttl),
            OptionSpec::duration("connection.validate-after-inactivity")
                .default_("10s")
                .at_least(0)
                .desc("Idle time after which a pooled connection is checked before reuse "
                      "(closed by the server: replaced); 0: never checked.")
                .to(&VikingdbOptions::validate_after_inactivity),
            OptionSpec::duration("connection.idle-evict")
                .default_("30s")
                .at_least(0)
                .desc("Every this often, connections idle this long are closed; 0: no "
                      "eviction (idle connections are still dropped after 50 s).")
                .to(&VikingdbOptions::idle_evict),
        },
        {
            config::PrefixSpec{kFieldPrefix,
                               "vikingdb.field.<field>.type (vector, sparse_vector, list_string, "
                               "list_int64, date_time, "
                               "video, image, geo_point, text) and vikingdb.field.<field>.dim; "
                               "table schema options "
                               "with the same key win."}
                .to(&VikingdbOptions::fields),
            config::PrefixSpec{
                kVectorizePrefix,
                "vikingdb.vectorize.<param> (the dense model's: model-name, model-version, "
                "text-field, "
                "image-field, video-field, dim), vikingdb.vectorize.<dense|sparse>.<param>, or "
                "vikingdb.vectorize.<dense|sparse> as a JSON object passed through: Vectorize of "
                "auto-created collections."}
                .to(&VikingdbOptions::vectorize),
        },
    };
    return bindings;
}

config::ConnectorOptionsSpec vikingdb_sink_options() {
    return vikingdb_sink_bindings().spec();
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

void validate_vikingdb_sink(const config::ValidatedOptions& options, config::Diagnostics& d,
                            const EnvReader& env) {
    const Options o = vikingdb_sink_bindings().read(options);
    for (const auto& pair : kSecretPairs) {
        std::string error;
        resolve_secret(o, pair, env, &error);
        if (!error.empty()) {
            const auto& direct = (*o).*pair.direct;
            const auto& via_env = (*o).*pair.env;
            d.error(o.is_set(via_env) && !o.is_set(direct) ? o.where(via_env) : o.where(direct),
                    "sink `vikingdb`: " + error);
        }
    }
    for (const auto* host : {&o->control_host, &o->data_host}) {
        if (o.is_set(*host) && split_scheme(*host, "https").second.empty())
            d.error(o.where(*host), "sink `vikingdb`: `" + o.key(*host) + "` is empty");
    }
    for (const auto& [key, value] : o->fields) {
        try {
            parse_field_overrides({{key, value}});
        } catch (const std::exception& e) {
            d.error(o.where(o->fields, key), std::string("sink `vikingdb`: ") + e.what());
        }
    }
    const auto& vectorize = o->vectorize;
    std::set<std::string> whole, by_param;  // kinds given as one JSON object / param by param
    for (const auto& [key, value] : vectorize) {
        std::string full = std::string(kVectorizePrefix) + key;
        auto kind = vectorize_kind(key);
        if (kind && ascii::to_lower(key) == ascii::to_lower(*kind)) {  // `dense` / `sparse`
            whole.insert(*kind);
            simdjson::dom::parser parser;
            simdjson::dom::element doc;
            if (parser.parse(value).get(doc) != simdjson::SUCCESS || !doc.is_object())
                d.error(o.where(vectorize, key), "sink `vikingdb`: `" + full +
                                                     "` must be a JSON object (the API's "
                                                     "Vectorize." +
                                                     *kind + "), e.g. {\"ModelName\": \"bge-m3\"}");
            continue;
        }
        if (!kind)
            d.error(o.where(vectorize, key),
                    "sink `vikingdb`: `" + full +
                        "`: expected vikingdb.vectorize.<param> (dense), "
                        "vikingdb.vectorize.dense.<param> or vikingdb.vectorize.sparse.<param>");
        else
            by_param.insert(*kind);
    }
    for (const auto& kind : whole)
        if (by_param.count(kind))
            d.error(o.where(vectorize, kind), "sink `vikingdb`: Vectorize." + kind +
                                                  " is given both as `" + kVectorizePrefix + kind +
                                                  "` and param by param; use one form");
    if (!vectorize.empty() && o->async_upsert)
        d.error(o.where(o->async_upsert),
                "sink `vikingdb`: `async: true` cannot be combined with vikingdb.vectorize.* "
                "(VikingDB rejects asynchronous upserts into vectorizing collections)");
}

VikingdbSettings vikingdb_settings(const config::ValidatedOptions& options, const EnvReader& env) {
    config::Diagnostics d;
    validate_vikingdb_sink(options, d, env);
    if (!d.ok()) throw config::ConfigError(d);
    const Options bound = vikingdb_sink_bindings().read(options);
    const VikingdbOptions& o = *bound;
    VikingdbSettings s;
    s.region = o.region;
    std::tie(s.data_scheme, s.data_host) = split_scheme(o.data_host, o.data_scheme);
    std::tie(s.control_scheme, s.control_host) = split_scheme(o.control_host, "https");
    std::string ignored;
    s.credentials.api_key = resolve_secret(bound, kSecretPairs[0], env, &ignored).value_or("");
    s.credentials.access_key = resolve_secret(bound, kSecretPairs[1], env, &ignored).value_or("");
    s.credentials.secret_key = resolve_secret(bound, kSecretPairs[2], env, &ignored).value_or("");
    s.name_template = o.name_template;
    s.resource_id = o.resource_id;
    s.project_name = o.project_name;
    s.default_database = o.default_database;
    s.auto_create = o.auto_create;
    s.ttl_seconds = o.ttl_seconds;
    s.async_upsert = o.async_upsert;
    s.batch_size = o.batch_size;
    s.flush_interval = o.flush_interval;
    s.ignore_update_before = o.ignore_update_before;
    s.ignore_delete = o.ignore_delete;
    s.connect_timeout = o.connect_timeout;
    s.socket_timeout = o.socket_timeout;
    s.read_timeout = o.read_timeout;
    s.max_retries = o.max_retries;
    s.retry_initial_backoff = o.retry_initial_backoff;
    s.retry_max_backoff = o.retry_max_backoff;
    s.max_total_connections = o.max_total_connections;
    s.max_per_route = o.max_per_route;
    s.connection_ttl = o.connection_ttl;
    s.validate_after_inactivity = o.validate_after_inactivity;
    s.idle_evict = o.idle_evict;
    s.fields = parse_field_overrides(o.fields);
    s.vectorize = o.vectorize;
    return s;
}

}  // namespace cdcd::vikingdb
