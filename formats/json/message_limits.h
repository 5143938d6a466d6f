#pragma once
// What one Kafka source accepts from its messages, so that a hostile or broken message costs a
// bounded amount of time, memory and checkpoint space (docs/kafka.md, "Limits"). A message over a
// limit is a bad record (LimitError); the source options that raise each limit are named here for
// the error messages.
#include <cstddef>

namespace cdcd::kafka {

struct MessageLimits {
    /// Key and value bytes of one message. The default is librdkafka's fetch.max.bytes default
    /// (what the client fetches at most in one request).
    static constexpr const char* kMessageBytesOption = "scan.max-message-size";
    static constexpr std::size_t kDefaultMessageBytes = 52'428'800;
    std::size_t max_message_bytes = kDefaultMessageBytes;

    /// Nesting of objects and arrays, counted from the message's top level, for every value the
    /// source reads (row images and the JSON kept as text in their fields). MySQL's JSON type
    /// nests at most 100 deep; a Debezium envelope adds 3.
    static constexpr const char* kJsonDepthOption = "scan.max-json-depth";
    static constexpr std::size_t kDefaultJsonDepth = 128;
    std::size_t max_json_depth = kDefaultJsonDepth;

    /// Columns of one inferred table (MySQL allows 4096 columns a table, PostgreSQL 1600).
    static constexpr const char* kColumnsOption = "scan.max-columns-per-table";
    static constexpr std::size_t kDefaultColumns = 4096;
    std::size_t max_columns_per_table = kDefaultColumns;

    /// Distinct table ids the source tracks (each one keeps an inferred schema in every
    /// checkpoint, and table ids are interned for the life of the process).
    static constexpr const char* kTablesOption = "scan.max-tables";
    static constexpr std::size_t kDefaultTables = 10'000;
    std::size_t max_tables = kDefaultTables;

    /// Columns of all inferred tables together: the two limits above multiply to 41 million
    /// columns, gigabytes of schema in memory and in every checkpoint.
    static constexpr const char* kTotalColumnsOption = "scan.max-total-columns";
    static constexpr std::size_t kDefaultTotalColumns = 1'000'000;
    std::size_t max_total_columns = kDefaultTotalColumns;
};

}  // namespace cdcd::kafka
