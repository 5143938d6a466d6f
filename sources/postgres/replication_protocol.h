#pragma once
// The streaming replication protocol's CopyData messages (PostgreSQL docs, "Streaming Replication
// Protocol"): from the server XLogData ('w', a pgoutput message with its WAL position) and the
// primary keepalive ('k'); to the server the standby status update ('r') that reports how far
// the client has received and durably processed the stream. Also LSN text ("16/B374D848").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "sources/postgres/pgoutput_decoder.h"

namespace cdcd::postgres {

struct XLogData {
    Lsn wal_start = 0;
    Lsn wal_end = 0;
    std::int64_t send_time_us = 0;
    std::string_view payload;  // into the decoded buffer
};

struct PrimaryKeepalive {
    Lsn wal_end = 0;
    std::int64_t send_time_us = 0;
    bool reply_requested = false;
};

using ServerCopyMessage = std::variant<XLogData, PrimaryKeepalive>;

/// Decodes one CopyData payload the server sends during START_REPLICATION; throws PgoutputError.
ServerCopyMessage decode_server_copy(std::string_view bytes);

/// The standby status update: `flushed` is what the slot may forget (its confirmed_flush_lsn).
std::string standby_status_update(Lsn received, Lsn flushed, std::int64_t now_us,
                                  bool reply_requested = false);

/// Microseconds since 2000-01-01 00:00 UTC (PostgreSQL's epoch) of a Unix time in microseconds.
std::int64_t to_postgres_epoch_us(std::int64_t unix_us);
std::int64_t postgres_epoch_now_us();
/// Milliseconds since 1970 of a PostgreSQL timestamp (microseconds since 2000), rounded down.
std::int64_t unix_ms_of(std::int64_t postgres_epoch_us);

/// "16/B374D848".
std::string format_lsn(Lsn lsn);
/// Parses "16/B374D848"; nullopt when it is not one.
std::optional<Lsn> parse_lsn(std::string_view text);

}  // namespace cdcd::postgres
