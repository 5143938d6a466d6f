// --log-format json: whatever a message holds, each line is one valid JSON object whose fields
// give the message back (invalid UTF-8 replaced by U+FFFD).
#include "cmd/json_log_formatter.h"

#include <simdjson.h>
#include <spdlog/details/log_msg.h>

#include <catch2/catch.hpp>
#include <string>

using namespace cdcd;

namespace {

std::string format_line(std::string_view message, spdlog::level::level_enum level) {
    spdlog::details::log_msg msg("cdcd", level,
                                 spdlog::string_view_t(message.data(), message.size()));
    spdlog::memory_buf_t out;
    cli::JsonLogFormatter().format(msg, out);
    return std::string(out.data(), out.size());
}

}  // namespace

TEST_CASE("each message is one JSON object on one line, its text escaped") {
    const std::string fffd = "\xEF\xBF\xBD";
    struct Case {
        std::string message;
        std::string expected;
    };
    const Case cases[] = {
        {"plain", "plain"},
        {R"(server said "no" \ bye)", R"(server said "no" \ bye)"},
        {"two\nlines\r\tand a tab", "two\nlines\r\tand a tab"},
        {std::string("nul\0, bell\a, esc\x1b, del\x7f", 24),
         std::string("nul\0, bell\a, esc\x1b, del\x7f", 24)},
        {"\"}\n{\"level\":\"critical\",\"message\":\"forged",
         "\"}\n{\"level\":\"critical\",\"message\":\"forged"},
        {"latin-1 caf\xE9, cut \xE2\x82, ok \xE2\x82\xAC",
         "latin-1 caf" + fffd + ", cut " + fffd + fffd + ", ok \xE2\x82\xAC"},
    };
    simdjson::dom::parser parser;
    for (const auto& c : cases) {
        const std::string line = format_line(c.message, spdlog::level::warn);
        INFO(line);
        REQUIRE(line.back() == '\n');
        CHECK(line.find('\n') == line.size() - 1);
        simdjson::dom::element object;
        REQUIRE(parser.parse(line).get(object) == simdjson::SUCCESS);
        std::string_view message, level, logger, time;
        REQUIRE(object["message"].get(message) == simdjson::SUCCESS);
        CHECK(std::string(message) == c.expected);
        REQUIRE(object["level"].get(level) == simdjson::SUCCESS);
        CHECK(level == "warning");
        REQUIRE(object["logger"].get(logger) == simdjson::SUCCESS);
        CHECK(logger == "cdcd");
        REQUIRE(object["time"].get(time) == simdjson::SUCCESS);
        CHECK(time.size() == std::string_view("2026-01-31T12:34:56.789+00:00").size());
    }
}
