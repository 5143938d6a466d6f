// The postgres source's options: Flink CDC's keys and defaults, the database from `tables`, and
// the refusals with their reasons.
#include "sources/postgres/options.h"

#include <catch2/catch.hpp>

#include "tests/unit/config/options_block.h"

using namespace cdcd;
using namespace cdcd::postgres;

namespace {

struct Parsed {
    config::ValidatedOptions options;
    std::string errors;
};

Parsed parse(std::map<std::string, std::string> kv) {
    kv.emplace("hostname", "127.0.0.1");
    kv.emplace("username", "u");
    kv.emplace("password", "p");
    kv.emplace("tables", "shop.public.orders");
    kv.emplace("slot.name", "s1");
    config::Diagnostics d;
    Parsed p{config::test::validate_block(option_bindings().spec(), kv, "source `postgres`", d),
             ""};
    if (d.ok()) validate_options(p.options, d);
    p.errors = d.ok() ? std::string() : d.to_string();
    return p;
}

}  // namespace

TEST_CASE("postgres options: Flink CDC's defaults") {
    Parsed p = parse({});
    REQUIRE(p.errors.empty());
    PostgresSettings s = settings_from(p.options);
    CHECK(s.database == "shop");
    CHECK(s.options.port == 5432);
    CHECK(s.options.startup == StartupMode::Initial);
    CHECK(s.options.connect_timeout == std::chrono::seconds(30));
    CHECK(s.options.heartbeat_interval == std::chrono::seconds(30));
    CHECK(s.options.connect_max_retries == 3);
    CHECK(s.options.snapshot_fetch_size == 1024);
    CHECK(s.options.lsn_commit_delay == 3);
    CHECK_FALSE(s.options.table_id_include_database);
    CHECK(s.publication == "dbz_publication");
    CHECK(s.autocreate == PublicationAutocreate::AllTables);
    CHECK(s.ssl_mode == "prefer");
}

TEST_CASE("postgres options: the debezium properties cdcd reads") {
    Parsed p = parse({{"debezium.publication.name", "pub1"},
                      {"debezium.publication.autocreate.mode", "filtered"},
                      {"debezium.database.sslmode", "verify-full"},
                      {"debezium.database.sslrootcert", "/etc/ca.pem"}});
    REQUIRE(p.errors.empty());
    PostgresSettings s = settings_from(p.options);
    CHECK(s.publication == "pub1");
    CHECK(s.autocreate == PublicationAutocreate::Filtered);
    CHECK(s.ssl_mode == "verify-full");
    CHECK(s.ssl_root_cert == "/etc/ca.pem");
}

TEST_CASE("postgres options: refusals name the key and the reason") {
    CHECK_THAT(parse({{"decoding.plugin.name", "decoderbufs"}}).errors,
               Catch::Contains("p.yaml:") && Catch::Contains("`decoding.plugin.name`") &&
                   Catch::Contains("pgoutput"));
    CHECK_THAT(parse({{"debezium.snapshot.mode", "never"}}).errors,
               Catch::Contains("`debezium.snapshot.mode` is refused"));
    CHECK_THAT(parse({{"debezium.database.sslpassword", "x"}}).errors,
               Catch::Contains("`debezium.database.sslpassword` is refused"));
    CHECK_THAT(parse({{"debezium.publication.autocreate.mode", "some"}}).errors,
               Catch::Contains("all_tables, filtered or disabled"));
    CHECK_THAT(parse({{"debezium.database.sslmode", "strict"}}).errors,
               Catch::Contains("verify-full"));
    CHECK_THAT(parse({{"metadata.list", "op_ts,row_kind"}}).errors,
               Catch::Contains("`metadata.list`: unknown metadata 'row_kind'"));
    CHECK_THAT(parse({{"slot.name", "Bad-Slot"}}).errors, Catch::Contains("lower-case letters"));
    CHECK_THAT(parse({{"server-time-zone", "Mars/Base"}}).errors,
               Catch::Contains("not a time zone id"));
    CHECK_THAT(parse({{"scan.startup.mode", "timestamp"}}).errors,
               Catch::Contains("scan.startup.mode"));
    CHECK(parse({{"server-time-zone", "Asia/Shanghai"}}).errors.empty());
    CHECK(parse({{"schema-change.enabled", "true"}}).errors.empty());
    Parsed meta = parse({{"metadata.list", "op_ts, schema_name"}});
    REQUIRE(meta.errors.empty());
    CHECK(settings_from(meta.options).metadata ==
          std::vector<MetadataField>{MetadataField::OpTs, MetadataField::SchemaName});
}

TEST_CASE("postgres options: `tables` names one database in db.schema.table form") {
    CHECK(parse({{"tables", "shop.public.orders, shop.app.\\.*"}}).errors.empty());
    CHECK_THAT(parse({{"tables", "public.orders"}}).errors,
               Catch::Contains("must have the form db.schema.table"));
    CHECK_THAT(parse({{"tables", "shop.public.orders,stock.public.items"}}).errors,
               Catch::Contains("must name the same database"));
    CHECK_THAT(parse({{"tables", "1shop.public.orders"}}).errors,
               Catch::Contains("not a valid PostgreSQL database name"));
    std::string error;
    CHECK(database_of_tables("db.s\\.x.t", &error) == "db");
}

TEST_CASE("postgres options: the debezium value modes Flink CDC maps types by") {
    const ValueModes defaults = settings_from(parse({}).options).modes;
    CHECK(defaults.decimal == ValueModes::Decimal::Precise);
    CHECK(defaults.binary == ValueModes::Binary::Bytes);
    CHECK(defaults.interval == ValueModes::Interval::Numeric);
    CHECK(defaults.hstore == ValueModes::Hstore::Json);
    CHECK(defaults.money_fraction_digits == 2);
    // Debezium reads its enumerations trimmed, in any case.
    Parsed p = parse({{"debezium.decimal.handling.mode", "String"},
                      {"debezium.binary.handling.mode", " hex "},
                      {"debezium.interval.handling.mode", "string"},
                      {"debezium.hstore.handling.mode", "MAP"},
                      {"debezium.money.fraction.digits", "0"},
                      {"debezium.time.precision.mode", "adaptive_time_microseconds"}});
    REQUIRE(p.errors.empty());
    const ValueModes m = settings_from(p.options).modes;
    CHECK(m.decimal == ValueModes::Decimal::String);
    CHECK(m.binary == ValueModes::Binary::Hex);
    CHECK(m.interval == ValueModes::Interval::String);
    CHECK(m.hstore == ValueModes::Hstore::Map);
    CHECK(m.money_fraction_digits == 0);
    CHECK(settings_from(parse({{"debezium.decimal.handling.mode", "double"},
                               {"debezium.binary.handling.mode", "base64"}})
                            .options)
              .modes.decimal == ValueModes::Decimal::Double);
}

TEST_CASE("postgres options: value modes Debezium refuses are refused naming the key") {
    CHECK_THAT(parse({{"debezium.decimal.handling.mode", "exact"}}).errors,
               Catch::Contains("`debezium.decimal.handling.mode` must be precise, double or "
                               "string, got 'exact'") &&
                   Catch::Contains("p.yaml:10"));
    CHECK_THAT(parse({{"debezium.binary.handling.mode", "base64-url-safe"}}).errors,
               Catch::Contains("`debezium.binary.handling.mode` must be bytes, base64 or hex"));
    CHECK_THAT(parse({{"debezium.interval.handling.mode", "iso"}}).errors,
               Catch::Contains("`debezium.interval.handling.mode` must be numeric or string"));
    CHECK_THAT(parse({{"debezium.hstore.handling.mode", "jsonb"}}).errors,
               Catch::Contains("`debezium.hstore.handling.mode` must be json or map"));
    for (const char* bad : {"-1", "39", "2.5", "", "two"})
        CHECK_THAT(parse({{"debezium.money.fraction.digits", bad}}).errors,
                   Catch::Contains("`debezium.money.fraction.digits` must be a whole number from "
                                   "0 to 38"));
    CHECK_THAT(parse({{"debezium.time.precision.mode", "isostring"}}).errors,
               Catch::Contains("`debezium.time.precision.mode` must be adaptive, "
                               "adaptive_time_microseconds or connect"));
    CHECK_THAT(parse({{"debezium.time.precision.mode", "connect"}}).errors,
               Catch::Contains("`debezium.time.precision.mode` connect is refused"));
    CHECK(parse({{"debezium.time.precision.mode", "adaptive"}}).errors.empty());
    // A property the type mapping does not read stays refused, with what cdcd reads.
    CHECK_THAT(parse({{"debezium.column.propagate.source.type", ".*"}}).errors,
               Catch::Contains("is refused: cdcd's postgres source does not read this Debezium "
                               "property") &&
                   Catch::Contains("decimal.handling.mode"));
}

TEST_CASE("postgres options: backfill is on by default, as Flink CDC's pipeline connector") {
    // Declared `true` before restarts in the snapshot were exactly-once: Flink's default is false.
    Parsed p = parse({});
    REQUIRE(p.errors.empty());
    const PostgresSettings s = settings_from(p.options);
    CHECK_FALSE(s.options.backfill_skip);
    CHECK_FALSE(s.options.chunk_key_column);
    Parsed skip = parse({{"scan.incremental.snapshot.backfill.skip", "true"},
                         {"scan.incremental.snapshot.chunk.key-column", "k"}});
    REQUIRE(skip.errors.empty());
    const PostgresSettings t = settings_from(skip.options);
    CHECK(t.options.backfill_skip);
    CHECK(t.options.chunk_key_column == "k");
    CHECK_THAT(
        parse({{"scan.incremental.snapshot.chunk.key-column", ""}}).errors,
        Catch::Contains("scan.incremental.snapshot.chunk.key-column") && Catch::Contains("empty"));
}
