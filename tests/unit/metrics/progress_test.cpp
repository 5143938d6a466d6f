#include "metrics/progress.h"

#include <catch2/catch.hpp>

using namespace cdcd::metrics;
using Clock = ProgressReporter::Clock;

TEST_CASE("progress reports at most once per interval, with the figures as metrics") {
    Registry r;
    ProgressReporter p(r, "values", "generate", 1000, 0, std::chrono::seconds(10));
    auto t0 = Clock::now();
    p.advance_at(100, t0 + std::chrono::seconds(1));
    p.advance_at(100, t0 + std::chrono::seconds(5));
    CHECK(p.reports() == 0);
    p.advance_at(300, t0 + std::chrono::seconds(11));
    CHECK(p.reports() == 1);
    p.advance_at(100, t0 + std::chrono::seconds(12));
    CHECK(p.reports() == 1);
    p.advance_at(50, t0 + std::chrono::seconds(20));
    CHECK(p.reports() == 1);  // 9 s after the last report
    p.advance_at(50, t0 + std::chrono::seconds(21));
    CHECK(p.reports() == 2);
    auto text = r.expose();
    CHECK(text.find("cdcd_progress_items_done{connector=\"values\",phase=\"generate\"} 700\n") !=
          std::string::npos);
    CHECK(text.find("cdcd_progress_items_total{connector=\"values\",phase=\"generate\"} 1000\n") !=
          std::string::npos);
}

TEST_CASE("progress lines say how far, of how many, and how fast") {
    Registry r;
    ProgressReporter known(r, "x", "snapshot", 2000, 500);
    CHECK(known.describe(100) == "500 of 2000 items (25.0%), 100/s, about 16 s left");
    ProgressReporter unknown(r, "y", "scan");
    unknown.advance(42);
    CHECK(unknown.describe(7) == "42 items, 7/s");
}
