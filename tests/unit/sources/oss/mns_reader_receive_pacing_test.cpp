// How often an MNS receiver asks an idle queue: mns.polling-wait-time in whole seconds, and the
// pause after empty answers that did not long-poll (MNS bills every request).
#include <catch2/catch.hpp>

#include "sources/oss/mns_reader.h"

using namespace cdcd::oss;
using std::chrono::milliseconds;

TEST_CASE("mns.polling-wait-time becomes whole seconds, a fraction rounded up") {
    CHECK(receive_wait_seconds(milliseconds(0)) == 0);
    CHECK(receive_wait_seconds(milliseconds(1)) == 1);
    CHECK(receive_wait_seconds(milliseconds(500)) == 1);
    CHECK(receive_wait_seconds(milliseconds(1'000)) == 1);
    CHECK(receive_wait_seconds(milliseconds(1'500)) == 2);
    CHECK(receive_wait_seconds(milliseconds(30'000)) == 30);
}

TEST_CASE("empty answers that came back at once are paced, doubling up to a cap") {
    EmptyReceiveBackoff b;
    CHECK(b.after_empty(3) == 250);
    CHECK(b.after_empty(3) == 500);
    CHECK(b.after_empty(3) == 1'000);
    CHECK(b.after_empty(3) == 2'000);
    CHECK(b.after_empty(3) == 4'000);
    CHECK(b.after_empty(3) == 5'000);
    CHECK(b.after_empty(3) == 5'000);
    SECTION("messages start over") {
        b.reset();
        CHECK(b.after_empty(3) == 250);
    }
    SECTION("a long poll that waited needs no pause, and starts over") {
        CHECK(b.after_empty(1'000) == 0);
        CHECK(b.after_empty(10) == 250);
    }
}
