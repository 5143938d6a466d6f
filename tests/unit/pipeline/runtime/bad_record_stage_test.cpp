// BadRecordStage: what each bad-record policy does with a record, and the dead-letter lines a
// stage hands over at its checkpoint cut.
#include "pipeline/runtime/bad_record_stage.h"

#include <catch2/catch.hpp>

#include "config/secrets.h"

using namespace cdcd;

namespace {

BadRecord parse_error(std::string raw = R"({"before":null)") {
    return BadRecord{"parse-error", "topic orders partition 3 offset 17",
                     "the message is not valid JSON", std::move(raw)};
}

std::uint64_t count(metrics::Registry& registry, const char* action) {
    return registry
        .counter("cdcd_bad_records_total", "",
                 {{"stage", "source"}, {"reason", "parse-error"}, {"action", action}})
        .value();
}

}  // namespace

TEST_CASE("policy fail: the error names the stage, the position and what went wrong") {
    metrics::Registry registry;
    BadRecordStage stage("source", "kafka", "p", BadRecordPolicy::Fail, registry, 1 << 20);
    try {
        stage.handle(parse_error());
        FAIL("no error");
    } catch (const BadRecordError& e) {
        std::string m = e.what();
        CHECK(m.find("topic orders partition 3 offset 17") != std::string::npos);
        CHECK(m.find("source") != std::string::npos);
        CHECK(m.find("not valid JSON") != std::string::npos);
        CHECK(m.find("bad-record.policy") != std::string::npos);
    }
    CHECK(count(registry, "fail") == 1);
    CHECK(stage.take_pending().empty());
}

TEST_CASE("policy skip: counted, nothing kept for the dead-letter file") {
    metrics::Registry registry;
    BadRecordStage stage("source", "kafka", "p", BadRecordPolicy::Skip, registry, 1 << 20);
    for (int i = 0; i < 25; ++i) stage.handle(parse_error());  // past the log's burst
    CHECK(count(registry, "skip") == 25);
    CHECK(stage.take_pending().empty());
}

TEST_CASE("a connector's own skip never fails, whatever the policy") {
    metrics::Registry registry;
    BadRecordStage stage("source", "kafka", "p", BadRecordPolicy::Fail, registry, 1 << 20);
    stage.skip(parse_error());
    CHECK(count(registry, "skip") == 1);
    CHECK(stage.take_pending().empty());
}

TEST_CASE("policy dead-letter: one JSON line per record, handed over once at the cut") {
    metrics::Registry registry;
    BadRecordStage stage("source", "kafka", "orders-relay", BadRecordPolicy::DeadLetter, registry,
                         1 << 20);
    stage.handle(parse_error());
    stage.handle(parse_error("x\"y"));
    std::string lines = stage.take_pending();
    CHECK(std::count(lines.begin(), lines.end(), '\n') == 2);
    CHECK(lines.find(R"("pipeline":"orders-relay","stage":"source","connector":"kafka",)"
                     R"("reason":"parse-error","position":"topic orders partition 3 offset 17",)"
                     R"("error":"the message is not valid JSON","record":"{\"before\":null"})") !=
          std::string::npos);
    CHECK(lines.find(R"("record":"x\"y"})") != std::string::npos);
    CHECK(count(registry, "dead-letter") == 2);
    CHECK(stage.take_pending().empty());  // the next checkpoint gets only what came after
}

TEST_CASE("a record that is not UTF-8 is dead-lettered as base64") {
    std::string line = dead_letter_line(
        BadRecord{"parse-error", "p", "e", std::string("\xff\x00z", 3)}, "source", "kafka", "p", 5);
    CHECK(line == R"({"time_ms":5,"pipeline":"p","stage":"source","connector":"kafka",)"
                  R"("reason":"parse-error","position":"p","error":"e","record_base64":"/wB6"})"
                  "\n");
}

TEST_CASE("a dead-letter line's error has secrets redacted and is valid UTF-8") {
    config::SecretRegistry::instance().add("dead-letter-api-key-9");
    std::string line = dead_letter_line(
        BadRecord{"write-error", "p", "server: bad key dead-letter-api-key-9 \xC3", "{}"}, "sink",
        "vikingdb", "p", 5);
    CHECK(line == R"({"time_ms":5,"pipeline":"p","stage":"sink","connector":"vikingdb",)"
                  R"("reason":"write-error","position":"p","error":"server: bad key ****** )"
                  "\xEF\xBF\xBD"
                  R"(","record":"{}"})"
                  "\n");
}

TEST_CASE("a stage that would hold too many dead-letter bytes stops instead of growing") {
    metrics::Registry registry;
    BadRecordStage stage("source", "kafka", "p", BadRecordPolicy::DeadLetter, registry, 600);
    stage.handle(parse_error(std::string(200, 'a')));
    CHECK_THROWS_AS(stage.handle(parse_error(std::string(400, 'b'))), BadRecordError);
    CHECK(stage.take_pending().find(std::string(200, 'a')) != std::string::npos);
}

TEST_CASE("outside a pipeline run, handlers fail like policy fail") {
    auto& handlers = BadRecordHandlers::detached();
    CHECK(handlers.source().policy() == BadRecordPolicy::Fail);
    CHECK_THROWS_AS(handlers.writer(0).handle(parse_error()), BadRecordError);
    handlers.source().skip(parse_error());  // does nothing, throws nothing
}

TEST_CASE("policy names as the pipeline option spells them") {
    CHECK(parse_bad_record_policy("dead-letter") == BadRecordPolicy::DeadLetter);
    CHECK(std::string(to_string(BadRecordPolicy::Skip)) == "skip");
    CHECK_THROWS_AS(parse_bad_record_policy("ignore"), std::invalid_argument);
}
