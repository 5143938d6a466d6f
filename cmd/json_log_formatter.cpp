#include "cmd/json_log_formatter.h"

#include <spdlog/details/log_msg.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <string_view>

#include "pipeline/util/json_escape.h"
#include "text/utf8.h"

namespace cdcd::cli {

namespace {

// Local time as 2026-01-31T12:34:56.789+01:00 (what the former pattern
// "%Y-%m-%dT%H:%M:%S.%e%z" printed).
std::string iso_time(spdlog::log_clock::time_point when) {
    const auto since_epoch = when.time_since_epoch();
    const std::time_t seconds =
        std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count();
    const auto millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count() % 1000;
    std::tm local{};
    localtime_r(&seconds, &local);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &local);
    const long offset_minutes = local.tm_gmtoff / 60;
    const long abs_offset = offset_minutes < 0 ? -offset_minutes : offset_minutes;
    char out[64];
    std::snprintf(out, sizeof out, "%s.%03d%c%02ld:%02ld", date, static_cast<int>(millis),
                  offset_minutes < 0 ? '-' : '+', abs_offset / 60, abs_offset % 60);
    return out;
}

void append_field(std::string& out, std::string_view name, std::string_view value) {
    out += ',';
    json::append_quoted(out, name);
    out += ':';
    json::append_quoted(out, utf8::scrubbed(value));
}

}  // namespace

void JsonLogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
    std::string line = "{\"time\":\"" + iso_time(msg.time) + "\"";
    const auto level = spdlog::level::to_string_view(msg.level);
    append_field(line, "level", std::string_view(level.data(), level.size()));
    append_field(line, "logger", std::string_view(msg.logger_name.data(), msg.logger_name.size()));
    append_field(line, "message", std::string_view(msg.payload.data(), msg.payload.size()));
    line += "}\n";
    dest.append(line.data(), line.data() + line.size());
}

std::unique_ptr<spdlog::formatter> JsonLogFormatter::clone() const {
    return std::make_unique<JsonLogFormatter>();
}

}  // namespace cdcd::cli
