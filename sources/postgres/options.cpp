#include "sources/postgres/options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <initializer_list>
#include <stdexcept>

#include "pipeline/data/time_zone.h"
#include "pipeline/route/selectors.h"

namespace cdcd::postgres {

namespace {

using config::OptionSpec;

// The debezium.* keys cdcd reads; every other one is refused (it would be silently ignored).
constexpr const char* kPublicationName = "publication.name";
constexpr const char* kPublicationAutocreate = "publication.autocreate.mode";
constexpr const char* kSslMode = "database.sslmode";
constexpr const char* kSslRootCert = "database.sslrootcert";
constexpr const char* kSslCert = "database.sslcert";
constexpr const char* kSslKey = "database.sslkey";
// Read by Flink CDC's type mapping (PostgresTypeUtils) and by Debezium's value converters alike:
// they change a column's type and its values together (type_mapping.h's ValueModes).
constexpr const char* kDecimalMode = "decimal.handling.mode";
constexpr const char* kBinaryMode = "binary.handling.mode";
constexpr const char* kIntervalMode = "interval.handling.mode";
constexpr const char* kHstoreMode = "hstore.handling.mode";
constexpr const char* kMoneyDigits = "money.fraction.digits";
constexpr const char* kTimePrecision = "time.precision.mode";
const char* const kReadDebeziumKeys[] = {
    kPublicationName, kPublicationAutocreate, kSslMode,    kSslRootCert,  kSslCert,
    kSslKey,          kDecimalMode,           kBinaryMode, kIntervalMode, kHstoreMode,
    kMoneyDigits,     kTimePrecision};

/// A Debezium enumerated value as Debezium parses it (trimmed, any case), as one of `names`;
/// nullopt when it is none of them.
std::optional<std::size_t> debezium_enum(const std::string& value,
                                         std::initializer_list<const char*> names) {
    const auto first = value.find_first_not_of(" \t\r\n");
    const std::string trimmed =
        first == std::string::npos
            ? std::string()
            : value.substr(first, value.find_last_not_of(" \t\r\n") - first + 1);
    std::size_t i = 0;
    for (const char* name : names) {
        const std::string_view n(name);
        if (n.size() == trimmed.size() &&
            std::equal(n.begin(), n.end(), trimmed.begin(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) ==
                       std::tolower(static_cast<unsigned char>(b));
            }))
            return i;
        ++i;
    }
    return std::nullopt;
}

// Flink CDC maps money to DECIMAL(38, money.fraction.digits) under decimal.handling.mode precise.
constexpr int kMaxMoneyDigits = 38;

std::optional<int> money_digits(const std::string& value) {
    int v = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || p != value.data() + value.size() || value.empty() || v < 0 ||
        v > kMaxMoneyDigits)
        return std::nullopt;
    return v;
}

/// Why a value of one of the value-mode keys is refused, or nullopt.
std::optional<std::string> value_mode_refusal(const std::string& key, const std::string& value) {
    const std::string named = "`debezium." + key + "` ";
    const std::string got = ", got '" + value + "'";
    if (key == kDecimalMode && !debezium_enum(value, {"precise", "double", "string"}))
        return named + "must be precise, double or string" + got;
    if (key == kBinaryMode && !debezium_enum(value, {"bytes", "base64", "hex"}))
        return named + "must be bytes, base64 or hex" + got;
    if (key == kIntervalMode && !debezium_enum(value, {"numeric", "string"}))
        return named + "must be numeric or string" + got;
    if (key == kHstoreMode && !debezium_enum(value, {"json", "map"}))
        return named + "must be json or map" + got;
    if (key == kMoneyDigits && !money_digits(value))
        return named + "must be a whole number from 0 to 38 (the scale of Flink CDC's " +
               "DECIMAL(38, digits) for money)" + got;
    if (key == kTimePrecision) {
        const auto mode =
            debezium_enum(value, {"adaptive", "adaptive_time_microseconds", "connect"});
        if (!mode) return named + "must be adaptive, adaptive_time_microseconds or connect" + got;
        if (*mode == 2)
            return named +
                   "connect is refused: Debezium then sends time and timestamp values as "
                   "java.util.Date milliseconds, which cdcd does not reproduce (adaptive and "
                   "adaptive_time_microseconds give the same output in Flink CDC and are accepted)";
    }
    return std::nullopt;
}

// "Accepted, no effect" options tune Flink's chunk splitting and readers, which cdcd replaces
// with key-ordered pages inside one snapshot: their values change nothing in what is read.
constexpr const char* kNoEffect =
    " Accepted and checked; no effect in cdcd, which reads tables in key order inside one "
    "snapshot (docs/postgres.md).";

std::string split_unescaped_dots_error(const std::string& selector) {
    return "`tables` entry '" + selector +
           "' must have the form db.schema.table (dots inside a regex are escaped: \\.)";
}

/// Splits on '.' not preceded by a backslash, as Flink CDC's getValidateDatabaseName.
std::vector<std::string> split_unescaped(const std::string& s) {
    std::vector<std::string> parts(1);
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '.' && (i == 0 || s[i - 1] != '\\')) {
            parts.emplace_back();
        } else {
            parts.back().push_back(s[i]);
        }
    }
    return parts;
}

bool valid_database_name(const std::string& name) {
    // Flink CDC's isValidPostgresDbName: [a-zA-Z_$][a-zA-Z0-9_$-]*, at most 63 characters.
    if (name.empty() || name.size() > 63) return false;
    auto letter = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
    };
    if (!letter(name[0])) return false;
    for (char c : name)
        if (!letter(c) && !(c >= '0' && c <= '9') && c != '-') return false;
    return true;
}

}  // namespace

std::optional<std::string> database_of_tables(const std::string& tables, std::string* error) {
    std::optional<std::string> database;
    std::size_t start = 0;
    while (start <= tables.size()) {
        std::size_t comma = tables.find(',', start);
        if (comma == std::string::npos) comma = tables.size();
        std::string entry = tables.substr(start, comma - start);
        start = comma + 1;
        const auto first = entry.find_first_not_of(" \t");
        if (first == std::string::npos) continue;
        entry = entry.substr(first, entry.find_last_not_of(" \t") - first + 1);
        auto parts = split_unescaped(entry);
        if (parts.size() != 3) {
            *error = split_unescaped_dots_error(entry);
            return std::nullopt;
        }
        if (!valid_database_name(parts[0])) {
            *error = "'" + parts[0] + "' (in `tables`) is not a valid PostgreSQL database name";
            return std::nullopt;
        }
        if (database && *database != parts[0]) {
            *error = "every `tables` entry must name the same database (found '" + *database +
                     "' and '" + parts[0] + "'): one source reads one database";
            return std::nullopt;
        }
        database = parts[0];
    }
    if (!database) *error = "`tables` names no table";
    return database;
}

const config::OptionBindings<PostgresOptions>& option_bindings() {
    static const config::OptionBindings<PostgresOptions> bindings{
        {
            OptionSpec::string("hostname")
                .required()
                .desc("IP address or hostname of the PostgreSQL server.")
                .to(&PostgresOptions::hostname),
            OptionSpec::integer("port")
                .default_("5432")
                .range(1, 65535)
                .desc("Port of the PostgreSQL server.")
                .to(&PostgresOptions::port),
            OptionSpec::string("username")
                .required()
                .desc("User to connect as; needs the REPLICATION attribute (or superuser) and "
                      "SELECT on the captured tables.")
                .to(&PostgresOptions::username),
            OptionSpec::string("password")
                .required()
                .allow_empty()  // a server that asks for none (trust, peer)
                .secret()
                .desc("Password of `username` (redacted).")
                .to(&PostgresOptions::password),
            OptionSpec::string("tables")
                .required()
                .desc("Tables to capture: comma-separated `db.schema.table` selectors whose parts "
                      "are regular expressions (`\\.` is a dot inside one); all name the same "
                      "database.")
                .to(&PostgresOptions::tables),
            OptionSpec::string("tables.exclude")
                .desc("Tables left out of those `tables` selects, in the same form.")
                .to(&PostgresOptions::tables_exclude),
            OptionSpec::string("slot.name")
                .required()
                .desc("Logical replication slot to stream from; created (with the snapshot) "
                      "when missing.")
                .to(&PostgresOptions::slot_name),
            OptionSpec::string("decoding.plugin.name")
                .default_("pgoutput")
                .desc("Logical decoding plugin; cdcd decodes pgoutput only (decoderbufs is "
                      "refused).")
                .to(&PostgresOptions::decoding_plugin),
            OptionSpec::string("server-time-zone")
                .desc("Checked as a time zone id; no effect on values: timestamptz is read as "
                      "an instant and timestamp as a wall-clock time, as in Flink CDC.")
                .to(&PostgresOptions::server_time_zone),
            OptionSpec::enum_of<StartupMode>("scan.startup.mode",
                                             {{"initial", StartupMode::Initial},
                                              {"snapshot", StartupMode::Snapshot},
                                              {"latest-offset", StartupMode::LatestOffset},
                                              {"committed-offset", StartupMode::CommittedOffset}})
                .default_("initial")
                .desc("initial: snapshot, then changes from the slot; snapshot: the snapshot "
                      "only (the pipeline then ends); latest-offset: changes from now on; "
                      "committed-offset: changes from the slot's confirmed position.")
                .to(&PostgresOptions::startup),
            OptionSpec::duration("connect.timeout")
                .default_("30s")
                .at_least(1000)
                .desc("Longest wait for one connection attempt.")
                .to(&PostgresOptions::connect_timeout),
            OptionSpec::integer("connect.max-retries")
                .default_("3")
                .range(0, 1000)
                .desc("Connection attempts after the first failed one, before the source fails.")
                .to(&PostgresOptions::connect_max_retries),
            OptionSpec::integer("connection.pool.size")
                .default_("20")
                .at_least(1)
                .desc(std::string("Flink's JDBC pool size.") + kNoEffect),
            OptionSpec::duration("heartbeat.interval")
                .default_("30s")
                .range(100, 3'600'000)
                .desc("Longest time between two standby status updates to the server, which "
                      "also move the slot past WAL of other tables while idle; keep it below "
                      "the server's wal_sender_timeout.")
                .to(&PostgresOptions::heartbeat_interval),
            OptionSpec::integer("scan.snapshot.fetch.size")
                .default_("1024")
                .range(1, 1'000'000)
                .desc("Rows handed downstream at once while reading the snapshot (and fetched at "
                      "once from a table without a primary key).")
                .to(&PostgresOptions::snapshot_fetch_size),
            OptionSpec::integer("scan.incremental.snapshot.chunk.size")
                .default_("8096")
                .range(2, 10'000'000)
                .desc("Rows per snapshot query of a table with a primary key, read in key order; "
                      "the checkpoint records the last key emitted, so that a restart reads on "
                      "after it.")
                .to(&PostgresOptions::snapshot_chunk_size),
            OptionSpec::string("scan.incremental.snapshot.chunk.key-column")
                .desc("A NOT NULL column that the snapshot of a table without a primary key is "
                      "read in chunks by (in its order, every row of one value in the same "
                      "chunk), so that a restart reads on after the last value emitted; a table "
                      "without a primary key that lacks the column stops the source naming this "
                      "option. Unset: such a table is read whole, and again from its start after "
                      "a restart. Tables with a primary key are read by the whole key.")
                .to(&PostgresOptions::chunk_key_column),
            OptionSpec::boolean("scan.incremental.snapshot.backfill.skip")
                .default_("false")
                .desc("false (Flink CDC's default): after a restart in the middle of the "
                      "snapshot, a streamed change to a row that the restarted snapshot already "
                      "read is dropped, so that every change arrives exactly once. true: such "
                      "changes arrive twice (at-least-once).")
                .to(&PostgresOptions::backfill_skip),
            OptionSpec::boolean("scan.incremental.close-idle-reader.enabled")
                .default_("false")
                .desc(std::string("Flink closes idle readers after the snapshot.") + kNoEffect),
            OptionSpec::boolean("scan.incremental.snapshot.unbounded-chunk-first.enabled")
                .default_("false")
                .desc(std::string("Flink's chunk order.") + kNoEffect),
            OptionSpec::integer("chunk-meta.group.size")
                .default_("1000")
                .at_least(2)
                .desc(std::string("Flink's chunk metadata grouping.") + kNoEffect),
            OptionSpec::double_("chunk-key.even-distribution.factor.upper-bound")
                .default_("1000.0")
                .at_least(1)
                .desc(std::string("Flink's even-chunk test.") + kNoEffect),
            OptionSpec::double_("chunk-key.even-distribution.factor.lower-bound")
                .default_("0.05")
                .range(0, 1)
                .desc(std::string("Flink's even-chunk test.") + kNoEffect),
            OptionSpec::double_("split-key.even-distribution.factor.upper-bound")
                .at_least(1)
                .desc(std::string("Flink's older spelling of "
                                  "chunk-key.even-distribution.factor.upper-bound.") +
                      kNoEffect),
            OptionSpec::double_("split-key.even-distribution.factor.lower-bound")
                .range(0, 1)
                .desc(std::string("Flink's older spelling of "
                                  "chunk-key.even-distribution.factor.lower-bound.") +
                      kNoEffect),
            OptionSpec::integer("scan.lsn-commit.checkpoints-num-delay")
                .default_("3")
                .range(0, 1000)
                .desc("The slot's confirmed position is the LSN of the checkpoint this many "
                      "completed checkpoints back (0: the newest), so that an older retained "
                      "checkpoint can still be resumed from.")
                .to(&PostgresOptions::lsn_commit_delay),
            OptionSpec::string("metadata.list")
                .desc("Metadata columns for transforms, comma-separated: op_ts (commit time in "
                      "milliseconds since the epoch, 0 in the snapshot), table_name, "
                      "database_name, schema_name.")
                .to(&PostgresOptions::metadata_list),
            OptionSpec::boolean("table-id.include-database")
                .default_("false")
                .desc("Table ids are database.schema.table instead of schema.table.")
                .to(&PostgresOptions::table_id_include_database),
            OptionSpec::boolean("schema-change.enabled")
                .default_("false")
                .desc("A captured table whose columns change (a pgoutput Relation message that "
                      "differs from its schema) becomes DropColumn, AddColumn, AlterColumnType or "
                      "RenameColumn events; with false it stops the source with an error naming "
                      "the table and the change.")
                .to(&PostgresOptions::schema_change_enabled),
        },
        {config::PrefixSpec{"debezium.",
                            "Debezium properties; cdcd reads publication.name (default "
                            "dbz_publication), publication.autocreate.mode (all_tables, filtered, "
                            "disabled; default all_tables), database.sslmode, "
                            "database.sslrootcert, database.sslcert, database.sslkey, and the "
                            "value modes Flink CDC maps types by: decimal.handling.mode (precise, "
                            "double, string; default precise), binary.handling.mode (bytes, "
                            "base64, hex), interval.handling.mode (numeric, string), "
                            "hstore.handling.mode (json, map), money.fraction.digits (0..38, "
                            "default 2), time.precision.mode (adaptive, "
                            "adaptive_time_microseconds; connect is refused); it refuses every "
                            "other key."}
             .to(&PostgresOptions::debezium)},
    };
    return bindings;
}

void validate_options(const config::ValidatedOptions& options, config::Diagnostics& d) {
    const auto o = option_bindings().read(options);
    auto quoted = [&](const auto& member) { return "`" + o.key(member) + "`"; };
    if (o->decoding_plugin != "pgoutput")
        d.error(o.where(o->decoding_plugin),
                quoted(o->decoding_plugin) + " '" + o->decoding_plugin +
                    "' is refused: cdcd decodes pgoutput (built into PostgreSQL 10+) only");
    if (!o->tables.empty()) {
        std::string error;
        if (!database_of_tables(o->tables, &error)) d.error(o.where(o->tables), error);
        if (!Selectors::parse(o->tables, &error))
            d.error(o.where(o->tables), quoted(o->tables) + ": " + error);
    }
    if (o->tables_exclude) {
        std::string error;
        if (!Selectors::parse(*o->tables_exclude, &error))
            d.error(o.where(o->tables_exclude), quoted(o->tables_exclude) + ": " + error);
    }
    if (o->server_time_zone && !TimeZone::of(*o->server_time_zone))
        d.error(o.where(o->server_time_zone), quoted(o->server_time_zone) + " '" +
                                                  *o->server_time_zone + "' is not a time zone id");
    if (o->metadata_list) {
        try {
            parse_metadata_list(*o->metadata_list);
        } catch (const std::invalid_argument& e) {
            d.error(o.where(o->metadata_list), quoted(o->metadata_list) + ": " + e.what());
        }
    }
    for (const auto& [key, value] : o->debezium) {
        bool read = false;
        for (const char* k : kReadDebeziumKeys) read = read || key == k;
        if (!read) {
            d.error(o.where(o->debezium, key),
                    "`debezium." + key +
                        "` is refused: cdcd's postgres source does not read this Debezium "
                        "property (it reads publication.name, publication.autocreate.mode, "
                        "database.ssl*, and the value modes Flink CDC's type mapping reads: "
                        "decimal.handling.mode, binary.handling.mode, interval.handling.mode, "
                        "hstore.handling.mode, money.fraction.digits, time.precision.mode)");
            continue;
        }
        if (auto why = value_mode_refusal(key, value)) d.error(o.where(o->debezium, key), *why);
        if (key == kPublicationAutocreate && value != "all_tables" && value != "filtered" &&
            value != "disabled")
            d.error(o.where(o->debezium, key),
                    "`debezium.publication.autocreate.mode` must be all_tables, filtered or "
                    "disabled, got '" +
                        value + "'");
        if (key == kSslMode && value != "disable" && value != "allow" && value != "prefer" &&
            value != "require" && value != "verify-ca" && value != "verify-full")
            d.error(o.where(o->debezium, key),
                    "`debezium.database.sslmode` must be disable, allow, prefer, require, "
                    "verify-ca or verify-full, got '" +
                        value + "'");
        if (key == kPublicationName && value.empty())
            d.error(o.where(o->debezium, key), "`debezium.publication.name` is empty");
    }
    if (o->chunk_key_column && o->chunk_key_column->empty())
        d.error(o.where(o->chunk_key_column), quoted(o->chunk_key_column) + " is empty");
    if (o->slot_name.empty() && o.is_set(o->slot_name))
        d.error(o.where(o->slot_name), quoted(o->slot_name) + " is empty");
    for (char c : o->slot_name)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
            d.error(o.where(o->slot_name),
                    quoted(o->slot_name) +
                        " may hold lower-case letters, digits and underscores only (PostgreSQL's "
                        "rule for replication slot names)");
            break;
        }
}

PostgresSettings settings_from(const config::ValidatedOptions& options) {
    config::Diagnostics d;
    validate_options(options, d);
    if (!d.ok()) throw std::invalid_argument(d.items().front().message);
    PostgresSettings s;
    s.options = option_bindings().read(options).take();
    std::string error;
    s.database = database_of_tables(s.options.tables, &error).value_or("");
    const auto& dbz = s.options.debezium;
    if (auto it = dbz.find(kPublicationName); it != dbz.end()) s.publication = it->second;
    if (auto it = dbz.find(kPublicationAutocreate); it != dbz.end())
        s.autocreate = it->second == "filtered"   ? PublicationAutocreate::Filtered
                       : it->second == "disabled" ? PublicationAutocreate::Disabled
                                                  : PublicationAutocreate::AllTables;
    if (auto it = dbz.find(kSslMode); it != dbz.end()) s.ssl_mode = it->second;
    if (auto it = dbz.find(kSslRootCert); it != dbz.end()) s.ssl_root_cert = it->second;
    if (auto it = dbz.find(kSslCert); it != dbz.end()) s.ssl_cert = it->second;
    if (auto it = dbz.find(kSslKey); it != dbz.end()) s.ssl_key = it->second;
    if (s.options.metadata_list) s.metadata = parse_metadata_list(*s.options.metadata_list);
    // Validated above: every value names one of the choices.
    auto choice = [&](const char* key, std::initializer_list<const char*> names) {
        auto it = dbz.find(key);
        return it == dbz.end() ? std::size_t{0} : debezium_enum(it->second, names).value_or(0);
    };
    s.modes.decimal =
        static_cast<ValueModes::Decimal>(choice(kDecimalMode, {"precise", "double", "string"}));
    s.modes.binary =
        static_cast<ValueModes::Binary>(choice(kBinaryMode, {"bytes", "base64", "hex"}));
    s.modes.interval =
        static_cast<ValueModes::Interval>(choice(kIntervalMode, {"numeric", "string"}));
    s.modes.hstore = static_cast<ValueModes::Hstore>(choice(kHstoreMode, {"json", "map"}));
    if (auto it = dbz.find(kMoneyDigits); it != dbz.end())
        s.modes.money_fraction_digits = money_digits(it->second).value_or(2);
    return s;
}

}  // namespace cdcd::postgres
