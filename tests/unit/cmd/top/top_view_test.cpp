// What `cdcd top` shows of a daemon, line by line, from two scrapes one second apart: rates from
// counters, the checkpoint, bad records, the lag per partition, progress with a bar and time left.
#include "cmd/top/top_view.h"

#include <catch2/catch.hpp>

using namespace cdcd::top;

namespace {

Scrape scrape(const char* text, double at) {
    Scrape s;
    s.address = "127.0.0.1:8081";
    s.samples = parse_prometheus_text(text);
    s.at = at;
    s.wall = 1'000'000 + at;
    return s;
}

const char* const kBefore = R"(cdcd_ready{pipeline="orders"} 1
cdcd_process_start_time_seconds{pipeline="orders"} 999900
cdcd_process_cpu_seconds_total{pipeline="orders"} 10
cdcd_process_resident_memory_bytes{pipeline="orders"} 31000000
cdcd_records_in_total{pipeline="orders",role="sink",connector="kafka"} 1000
cdcd_records_out_total{pipeline="orders",role="sink",connector="kafka"} 900
cdcd_records_in_total{pipeline="orders",role="source",connector="kafka"} 1000
cdcd_records_out_total{pipeline="orders",role="source",connector="kafka"} 1000
cdcd_errors_total{pipeline="orders",role="sink",connector="kafka"} 2
cdcd_retries_total{pipeline="orders",role="sink",connector="kafka"} 5
cdcd_checkpoint_last_id{pipeline="orders"} 41
cdcd_bad_records_total{pipeline="orders",stage="source",reason="parse",action="skip"} 3
cdcd_progress_items_done{pipeline="orders",connector="oss-cdc",phase="scan"} 100
cdcd_progress_items_total{pipeline="orders",connector="oss-cdc",phase="scan"} 1100
)";

const char* const kNow = R"(cdcd_ready{pipeline="orders"} 1
cdcd_process_start_time_seconds{pipeline="orders"} 999900
cdcd_process_cpu_seconds_total{pipeline="orders"} 10.5
cdcd_process_resident_memory_bytes{pipeline="orders"} 31000000
cdcd_records_in_total{pipeline="orders",role="sink",connector="kafka"} 3500
cdcd_records_out_total{pipeline="orders",role="sink",connector="kafka"} 3400
cdcd_records_in_total{pipeline="orders",role="source",connector="kafka"} 3500
cdcd_records_out_total{pipeline="orders",role="source",connector="kafka"} 3500
cdcd_errors_total{pipeline="orders",role="sink",connector="kafka"} 2
cdcd_retries_total{pipeline="orders",role="sink",connector="kafka"} 7
cdcd_checkpoint_last_id{pipeline="orders"} 42
cdcd_checkpoint_last_age_seconds{pipeline="orders"} 0.4
cdcd_checkpoint_last_duration_seconds{pipeline="orders"} 0.012
cdcd_checkpoint_last_size_bytes{pipeline="orders"} 2048
cdcd_checkpoints_failed_total{pipeline="orders"} 1
cdcd_pipeline_failures_total{pipeline="orders"} 0
cdcd_bad_records_total{pipeline="orders",stage="source",reason="parse",action="skip"} 4
cdcd_kafka_consumer_lag{pipeline="orders",role="source",connector="kafka",topic="in",partition="0"} 12
cdcd_kafka_consumer_lag{pipeline="orders",role="source",connector="kafka",topic="in",partition="1"} 3400
cdcd_progress_items_done{pipeline="orders",connector="oss-cdc",phase="scan"} 600
cdcd_progress_items_total{pipeline="orders",connector="oss-cdc",phase="scan"} 1100
)";

}  // namespace

TEST_CASE("a daemon's lines: title, stages, checkpoint, bad records, lag, progress") {
    Scrape before = scrape(kBefore, 100);
    Scrape now = scrape(kNow, 101);
    auto lines = daemon_lines(now, &before, 80);
    REQUIRE(lines.size() == 8);
    CHECK(lines[0] ==
          "── orders @ 127.0.0.1:8081 ── ready · up 3m21s · cpu 50% · rss 31 MB ───────────");
    CHECK(lines[1] == "  stage    connector       in/s      out/s     errors    retries");
    CHECK(lines[2] == "  source   kafka           2,500      2,500          0          0");
    CHECK(lines[3] == "  sink     kafka           2,500      2,500          2          7");
    CHECK(lines[4] ==
          "  checkpoint #42 · age 0s · took 12 ms · 2.0 kB · failed 1 · pipeline failures 0");
    CHECK(lines[5] == "  bad records · source skip 4 · 1/s");
    CHECK(lines[6] == "  lag 3,412 in 2 partitions: in[1] 3,400 in[0] 12");
    CHECK(lines[7] ==
          "  oss-cdc scan [###############..............]  55% 600/1,100 · 500/s · eta 1s");
}

TEST_CASE("the first frame has no rates yet, and every line fits the width") {
    Scrape now = scrape(kNow, 101);
    auto lines = daemon_lines(now, nullptr, 40);
    for (const auto& line : lines) CHECK(fit(line, 40) == line);
    CHECK(lines[0].starts_with("── orders @ 127.0.0.1:8081 ── ready"));
    auto wide = daemon_lines(now, nullptr, 120);
    CHECK(wide[2] == "  source   kafka               -          -          0          0");
    CHECK(wide[7].find("55% 600/1,100") != std::string::npos);  // no rate, no time left
    CHECK(wide[7].find("eta") == std::string::npos);
}

TEST_CASE("a counter that went down (the daemon restarted) shows no rate, not a negative one") {
    Scrape before = scrape(kNow, 100);
    Scrape now = scrape(kBefore, 101);
    auto lines = daemon_lines(now, &before, 80);
    CHECK(lines[2] == "  source   kafka               -          -          0          0");
}

TEST_CASE("a daemon that cannot be read is one line saying why") {
    Scrape down;
    down.address = "127.0.0.1:9";
    down.error = "connection refused";
    auto lines = daemon_lines(down, nullptr, 60);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].starts_with("── 127.0.0.1:9 ── unreachable: connection refused ──"));
    CHECK(fit(lines[0], 59) != lines[0]);  // ruled to the full width of 60 columns
    CHECK(fit(lines[0], 60) == lines[0]);
}

TEST_CASE("numbers, spans and sizes as the screen writes them") {
    CHECK(grouped(0) == "0");
    CHECK(grouped(999) == "999");
    CHECK(grouped(1234567) == "1,234,567");
    CHECK(grouped(-1234.7) == "-1,234");
    CHECK(span(59.9) == "59s");
    CHECK(span(187) == "3m07s");
    CHECK(span(7500) == "2h05m");
    CHECK(span(3 * 86400 + 4 * 3600) == "3d04h");
    CHECK(span(-1) == "-");
    CHECK(span(1e300) == "∞");
    CHECK(grouped(1e300) == "1e+300");
    CHECK(grouped(-1e19) == "-1e+19");
    CHECK(bytes(512) == "512 B");
    CHECK(bytes(1500) == "1.5 kB");
    CHECK(bytes(26'000'000) == "26 MB");
    CHECK(fit("ab──cd", 4) == "ab──");
}

TEST_CASE("a label's control characters never reach the terminal") {
    Scrape now = scrape(
        "cdcd_kafka_consumer_lag{pipeline=\"p\",topic=\"a\\n\x1b[2Jb\",partition=\"0\"} 5\n", 1);
    auto lines = daemon_lines(now, nullptr, 80);
    REQUIRE(lines.size() == 3);
    CHECK(lines[2] == "  lag 5 in 1 partition: a??[2Jb[0] 5");
}
