// A tap's queue: bounded in lines and bytes, dropping (and counting) what does not fit.
#include "pipeline/runtime/tap_line_queue.h"

#include <catch2/catch.hpp>

using namespace cdcd;

TEST_CASE("a tap's line queue drops the newest line when its line count is reached") {
    TapLineQueue queue(2, 1000);
    CHECK(queue.push("a\n"));
    CHECK(queue.push("b\n"));
    CHECK_FALSE(queue.push("c\n"));
    CHECK(queue.dropped() == 1);
    std::string out;
    CHECK(queue.take_all(out) == 2);
    CHECK(out == "a\nb\n");
    CHECK(queue.push("d\n"));  // room again once taken
    out.clear();
    CHECK(queue.take_all(out) == 1);
    CHECK(out == "d\n");
    CHECK(queue.take_all(out) == 0);
}

TEST_CASE("a tap's line queue holds at most its byte budget") {
    TapLineQueue queue(100, 10);
    CHECK(queue.push("123456\n"));
    CHECK_FALSE(queue.push("1234\n"));  // 7 + 5 > 10
    CHECK(queue.push("12\n"));          // 7 + 3 fits
    CHECK_FALSE(queue.push(std::string(11, 'x')));
    CHECK(queue.dropped() == 2);
}
