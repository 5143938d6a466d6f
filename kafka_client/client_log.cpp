#include "kafka_client/client_log.h"

#include <spdlog/spdlog.h>

#include <string_view>

namespace cdcd::kafka {

namespace {

void on_log(const rd_kafka_t* rk, int level, const char* facility, const char* message) {
    spdlog::log(log_level_of(level), "librdkafka {} {}: {}", rk ? rd_kafka_name(rk) : "client",
                facility, message);
}

// Returns 0: librdkafka frees the JSON.
int on_stats(rd_kafka_t* rk, char* json, size_t json_len, void* /*opaque*/) {
    spdlog::info("librdkafka {} STATS: {}", rd_kafka_name(rk), std::string_view(json, json_len));
    return 0;
}

}  // namespace

spdlog::level::level_enum log_level_of(int syslog_level) {
    if (syslog_level <= 2) return spdlog::level::critical;  // emergency, alert, critical
    if (syslog_level == 3) return spdlog::level::err;
    if (syslog_level == 4) return spdlog::level::warn;
    if (syslog_level <= 6) return spdlog::level::info;  // notice, info
    return spdlog::level::debug;
}

void log_through_spdlog(rd_kafka_conf_t* conf) {
    rd_kafka_conf_set_log_cb(conf, &on_log);
    rd_kafka_conf_set_stats_cb(conf, &on_stats);
}

}  // namespace cdcd::kafka
