#pragma once
// The postgres source's options: Flink CDC's Postgres pipeline connector's keys and defaults
// (PostgresDataSourceOptions), each honoured, accepted as having no effect in this
// implementation (tuning of Flink's chunked snapshot), or refused with the reason.
#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "config/diagnostics.h"
#include "config/option_binding.h"
#include "config/option_validator.h"
#include "sources/postgres/metadata.h"
#include "sources/postgres/type_mapping.h"

namespace cdcd::postgres {

enum class StartupMode { Initial, Snapshot, LatestOffset, CommittedOffset };
enum class PublicationAutocreate { AllTables, Filtered, Disabled };

struct PostgresOptions {
    std::string hostname;
    int port = 5432;
    std::string username;
    std::string password;
    std::string tables;
    std::optional<std::string> tables_exclude;
    std::string slot_name;
    std::string decoding_plugin = "pgoutput";
    std::optional<std::string> server_time_zone;
    StartupMode startup = StartupMode::Initial;
    std::chrono::milliseconds connect_timeout{30'000};
    int connect_max_retries = 3;
    std::chrono::milliseconds heartbeat_interval{30'000};
    int snapshot_fetch_size = 1024;
    int snapshot_chunk_size = 8096;
    std::optional<std::string> chunk_key_column;  // tables without a primary key
    bool backfill_skip = false;
    int lsn_commit_delay = 3;
    bool table_id_include_database = false;
    bool schema_change_enabled = false;
    std::optional<std::string> metadata_list;
    std::map<std::string, std::string> debezium;  // debezium.*, prefix stripped
};

/// What the source runs with, derived from the options in one place.
struct PostgresSettings {
    PostgresOptions options;
    std::string database;  // the first part of every `tables` selector
    std::string publication = "dbz_publication";
    PublicationAutocreate autocreate = PublicationAutocreate::AllTables;
    std::string ssl_mode = "prefer";
    std::optional<std::string> ssl_root_cert, ssl_cert, ssl_key;
    std::vector<MetadataField> metadata;  // metadata.list
    ValueModes modes;  // debezium.decimal.handling.mode and the other value modes
};

const config::OptionBindings<PostgresOptions>& option_bindings();
void validate_options(const config::ValidatedOptions& options, config::Diagnostics& diagnostics);
/// Throws std::invalid_argument on what validate_options reports.
PostgresSettings settings_from(const config::ValidatedOptions& options);

/// The database named by `tables` (`db.schema.table` selectors, which must agree on db), or why
/// not.
std::optional<std::string> database_of_tables(const std::string& tables, std::string* error);

}  // namespace cdcd::postgres
