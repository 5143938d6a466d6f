#include "sinks/kafka/murmur2.h"

#include <catch2/catch.hpp>

using namespace cdcd::kafka;

TEST_CASE("murmur2 equals Kafka's Utils.murmur2 (UtilsTest vectors)") {
    CHECK(murmur2("21") == -973932308);
    CHECK(murmur2("foobar") == -790332482);
    CHECK(murmur2("a-little-bit-long-string") == -985981536);
    CHECK(murmur2("a-little-bit-longer-string") == -1486304829);
    CHECK(murmur2("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8") == -58897971);
    CHECK(murmur2("abc") == 479470107);
}

TEST_CASE("keyed partition is toPositive(murmur2) % partitions") {
    CHECK(to_positive(-1) == 0x7fffffff);
    CHECK(key_partition("21", 7) == ((-973932308 & 0x7fffffff) % 7));
    for (int n = 1; n < 20; ++n) {
        int p = key_partition("{\"TableId\":\"db.t\",\"id\":1}", n);
        CHECK(p >= 0);
        CHECK(p < n);
    }
}
