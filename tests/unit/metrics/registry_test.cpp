#include "metrics/registry.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <thread>

#include "metrics/connector_metrics.h"
#include "metrics/exposition.h"

using namespace cdcd::metrics;

TEST_CASE("counters, gauges and constant labels are exposed in the text format") {
    Registry r(Labels{{"pipeline", "orders"}});
    auto& c = r.counter("cdcd_records_out_total", "Records out", {{"role", "source"}});
    c.inc(5);
    c.inc();
    r.gauge("cdcd_ready", "Ready").set(1);
    CHECK(r.expose() ==
          "# HELP cdcd_ready Ready\n"
          "# TYPE cdcd_ready gauge\n"
          "cdcd_ready{pipeline=\"orders\"} 1\n"
          "# HELP cdcd_records_out_total Records out\n"
          "# TYPE cdcd_records_out_total counter\n"
          "cdcd_records_out_total{pipeline=\"orders\",role=\"source\"} 6\n");
}

TEST_CASE("the same name and labels give the same series, other labels another") {
    Registry r;
    auto& a = r.counter("x_total", "x", {{"k", "1"}});
    auto& b = r.counter("x_total", "x", {{"k", "1"}});
    auto& c = r.counter("x_total", "x", {{"k", "2"}});
    CHECK(&a == &b);
    CHECK(&a != &c);
    a.inc(2);
    c.inc(3);
    auto text = r.expose();
    CHECK(text.find("x_total{k=\"1\"} 2\n") != std::string::npos);
    CHECK(text.find("x_total{k=\"2\"} 3\n") != std::string::npos);
    // One HELP/TYPE header per family.
    CHECK(text.find("# TYPE x_total") == text.rfind("# TYPE x_total"));
}

TEST_CASE("invalid names, reserved labels and type conflicts are rejected") {
    Registry r;
    CHECK_THROWS_AS(r.counter("9lives", "x"), std::invalid_argument);
    CHECK_THROWS_AS(r.counter("has-dash", "x"), std::invalid_argument);
    CHECK_THROWS_AS(r.counter("ok_total", "x", {{"__reserved", "v"}}), std::invalid_argument);
    CHECK_THROWS_AS(r.counter("ok_total", "x", {{"le", "v"}}), std::invalid_argument);
    CHECK_THROWS_AS(r.counter("ok_total", "x", {{"a", "1"}, {"a", "2"}}), std::invalid_argument);
    r.counter("typed", "x");
    CHECK_THROWS_AS(r.gauge("typed", "x"), std::invalid_argument);
    CHECK_THROWS_AS(Registry(Labels{{"bad-label", "x"}}), std::invalid_argument);
    Registry with_pipeline(Labels{{"pipeline", "p"}});
    CHECK_THROWS_AS(with_pipeline.counter("c_total", "x", {{"pipeline", "q"}}),
                    std::invalid_argument);
}

TEST_CASE("label values and help text are escaped") {
    Registry r;
    r.gauge("g", "line one\nback\\slash", {{"path", "a\"b\\c\nd"}}).set(2.5);
    auto text = r.expose();
    CHECK(text.find("# HELP g line one\\nback\\\\slash\n") != std::string::npos);
    CHECK(text.find("g{path=\"a\\\"b\\\\c\\nd\"} 2.5\n") != std::string::npos);
}

TEST_CASE("sample values: integers, fractions, NaN and infinities") {
    auto fmt = [](double v) {
        std::string s;
        append_value(s, v);
        return s;
    };
    CHECK(fmt(0) == "0");
    CHECK(fmt(42) == "42");
    CHECK(fmt(-3) == "-3");
    CHECK(fmt(0.25) == "0.25");
    CHECK(fmt(std::nan("")) == "NaN");
    CHECK(fmt(INFINITY) == "+Inf");
    CHECK(fmt(-INFINITY) == "-Inf");
    CHECK(std::stod(fmt(1e20)) == 1e20);
}

TEST_CASE("histograms expose cumulative buckets, sum and count") {
    Registry r;
    auto& h = r.histogram("lat_seconds", "Latency", {{"op", "get"}}, {0.1, 1});
    h.observe(0.05);
    h.observe(0.1);  // le is inclusive
    h.observe(0.5);
    h.observe(7);
    auto text = r.expose();
    CHECK(text.find("# TYPE lat_seconds histogram\n") != std::string::npos);
    CHECK(text.find("lat_seconds_bucket{op=\"get\",le=\"0.1\"} 2\n") != std::string::npos);
    CHECK(text.find("lat_seconds_bucket{op=\"get\",le=\"1\"} 3\n") != std::string::npos);
    CHECK(text.find("lat_seconds_bucket{op=\"get\",le=\"+Inf\"} 4\n") != std::string::npos);
    CHECK(text.find("lat_seconds_sum{op=\"get\"} 7.65\n") != std::string::npos);
    CHECK(text.find("lat_seconds_count{op=\"get\"} 4\n") != std::string::npos);
    CHECK_THROWS_AS(Histogram({1, 0.5}), std::invalid_argument);
}

TEST_CASE("callback series are evaluated at every scrape") {
    Registry r;
    double v = 1;
    r.gauge_fn("cb", "callback", {}, [&] { return v; });
    CHECK(r.expose().find("cb 1\n") != std::string::npos);
    v = 7;
    CHECK(r.expose().find("cb 7\n") != std::string::npos);
    CHECK_THROWS_AS(r.gauge("cb", "callback"), std::invalid_argument);
}

TEST_CASE("counters are exact under concurrent increments") {
    Registry r;
    auto& c = r.counter("n_total", "n");
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 100000; ++i) c.inc();
        });
    for (auto& t : threads) t.join();
    CHECK(c.value() == 400000);
}

TEST_CASE("connector metrics share families and carry role and connector labels") {
    Registry r(Labels{{"pipeline", "p"}});
    ConnectorMetrics source(r, Role::Source, "kafka");
    ConnectorMetrics again(r, Role::Source, "kafka");
    CHECK(&source.records_in == &again.records_in);
    source.records_in.inc(10);
    source.requests("GetMessages", 200).inc();
    source.requests("GetMessages", "timeout").inc(2);
    source.consumer_lag("orders", 3).set(17);
    source.observe_rate_limiter_wait("app", std::chrono::milliseconds(250));
    auto text = r.expose();
    CHECK(text.find(
              "cdcd_records_in_total{pipeline=\"p\",role=\"source\",connector=\"kafka\"} 10\n") !=
          std::string::npos);
    CHECK(
        text.find(
            "cdcd_http_requests_total{pipeline=\"p\",role=\"source\",connector=\"kafka\",endpoint="
            "\"GetMessages\",status=\"200\"} 1\n") != std::string::npos);
    CHECK(text.find("status=\"timeout\"} 2\n") != std::string::npos);
    CHECK(text.find("cdcd_kafka_consumer_lag{pipeline=\"p\",role=\"source\",connector=\"kafka\","
                    "topic=\"orders\","
                    "partition=\"3\"} 17\n") != std::string::npos);
    CHECK(
        text.find(
            "cdcd_rate_limiter_wait_seconds_sum{pipeline=\"p\",role=\"source\",connector=\"kafka\","
            "limiter=\"app\"} 0.25\n") != std::string::npos);
}
