// BadRecordLog: the bad records of one stage, logged at a bounded rate whatever its threads.
#include "pipeline/runtime/bad_record_log.h"

#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <catch2/catch.hpp>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "metrics/registry.h"
#include "pipeline/runtime/bad_record_stage.h"

using namespace cdcd;

namespace {

// The default logger's lines while `body` runs.
std::string logged_by(const std::function<void()>& body) {
    std::ostringstream out;
    auto before = spdlog::default_logger();
    auto logger = std::make_shared<spdlog::logger>(
        "bad-records-test", std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
    logger->set_pattern("%v");
    spdlog::set_default_logger(logger);
    body();
    logger->flush();
    spdlog::set_default_logger(before);
    return out.str();
}

std::size_t lines_with(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

}  // namespace

TEST_CASE("the stages of one stage's threads log at most ten bad records a window together") {
    metrics::Registry registry;
    auto log = std::make_shared<BadRecordLog>("transform", "transform");
    std::vector<std::unique_ptr<BadRecordStage>> stages;
    for (int i = 0; i < 3; ++i)  // a lane, the loop's operator, a reader: one thread each
        stages.push_back(std::make_unique<BadRecordStage>(
            "transform", "transform", "p", BadRecordPolicy::Skip, registry, 1 << 20, log));
    std::string out = logged_by([&] {
        std::vector<std::thread> threads;
        for (auto& stage : stages)
            threads.emplace_back([&stage] {
                for (int k = 0; k < 50; ++k)
                    stage->handle(
                        BadRecord{"eval-error", "row " + std::to_string(k), "/ by zero", "{}"});
            });
        for (auto& t : threads) t.join();
    });
    CHECK(lines_with(out, "bad record at row") == 10);
    // The counter still counts every one.
    CHECK(registry
              .counter("cdcd_bad_records_total", "",
                       {{"stage", "transform"}, {"reason", "eval-error"}, {"action", "skip"}})
              .value() == 150);
}

TEST_CASE("a stage without a shared log logs ten a window of its own, per reason") {
    metrics::Registry registry;
    BadRecordStage stage("source", "kafka", "p", BadRecordPolicy::Skip, registry, 1 << 20);
    std::string out = logged_by([&] {
        for (int k = 0; k < 30; ++k) {
            stage.skip(BadRecord{"parse-error", "offset " + std::to_string(k), "not JSON", "x"});
            stage.skip(BadRecord{"missing-table", "offset " + std::to_string(k), "no table", "x"});
        }
    });
    CHECK(lines_with(out, "(parse-error), skipped") == 10);
    CHECK(lines_with(out, "(missing-table), skipped") == 10);
}
