#pragma once
// librdkafka's own log lines (connection failures, configuration warnings, …) through cdcd's
// logger rather than librdkafka's default, which prints them to stderr in a format of its own:
// so they follow --log-format, --log-file, --log-level and secret redaction like every other line.
//
// librdkafka calls the callback from its internal threads; that is safe because the default
// logger's sinks are the thread-safe (_mt) ones and it is set up before any client exists, so
// no log.queue (which would need a cdcd thread serving it for each client) is used.
#include <librdkafka/rdkafka.h>
#include <spdlog/common.h>

namespace cdcd::kafka {

/// librdkafka's syslog level (0 emergency … 7 debug) as an spdlog level.
spdlog::level::level_enum log_level_of(int syslog_level);

/// Routes the logs of the client made from `conf` to spdlog's default logger, each line as
/// "librdkafka <client name> <facility>: <message>"; and its statistics, which librdkafka emits
/// every properties.statistics.interval.ms when that is set (0, never, by default), as
/// "librdkafka <client name> STATS: <its JSON>" at info level. Call before rd_kafka_new.
void log_through_spdlog(rd_kafka_conf_t* conf);

}  // namespace cdcd::kafka
