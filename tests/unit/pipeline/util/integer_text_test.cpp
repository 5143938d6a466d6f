// write_int64 against std::to_chars: every digit count, both signs, and the extremes; and
// write_fixed_digits against printf's zero padding.
#include "pipeline/util/integer_text.h"

#include <catch2/catch.hpp>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace {

std::string ours(std::int64_t v) {
    char buf[cdcd::kMaxInt64Text];
    return std::string(buf, cdcd::write_int64(buf, v));
}

std::string theirs(std::int64_t v) {
    char buf[32];
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

}  // namespace

TEST_CASE("write_int64: the same text as std::to_chars around every power of ten") {
    std::vector<std::int64_t> values = {0, std::numeric_limits<std::int64_t>::min(),
                                        std::numeric_limits<std::int64_t>::min() + 1,
                                        std::numeric_limits<std::int64_t>::max()};
    std::int64_t p = 1;
    for (int digits = 1; digits <= 18; ++digits) {
        for (std::int64_t d : {-1, 0, 1}) {
            values.push_back(p + d);
            values.push_back(-(p + d));
            values.push_back(p * 9 + d);
        }
        p *= 10;
    }
    values.push_back(p - 1);  // 10^18 - 1
    values.push_back(p);
    for (std::int64_t v : values) {
        INFO(v);
        CHECK(ours(v) == theirs(v));
    }
    CHECK(ours(std::numeric_limits<std::int64_t>::min()).size() == cdcd::kMaxInt64Text);
}

TEST_CASE("decimal_digits: one for zero, twenty for the largest") {
    CHECK(cdcd::decimal_digits(0) == 1);
    CHECK(cdcd::decimal_digits(9) == 1);
    CHECK(cdcd::decimal_digits(10) == 2);
    CHECK(cdcd::decimal_digits(999999) == 6);
    CHECK(cdcd::decimal_digits(1000000) == 7);
    CHECK(cdcd::decimal_digits(std::numeric_limits<std::uint64_t>::max()) == 20);
}

TEST_CASE("write_fixed_digits writes the last `width` digits, zero-padded") {
    auto fixed = [](std::uint64_t v, int width) {
        char buf[24];
        char* end = cdcd::write_fixed_digits(buf, v, width);
        REQUIRE(end == buf + width);
        return std::string(buf, end);
    };
    CHECK(fixed(0, 1) == "0");
    CHECK(fixed(7, 2) == "07");
    CHECK(fixed(2024, 4) == "2024");
    CHECK(fixed(987, 4) == "0987");
    CHECK(fixed(123456789, 9) == "123456789");
    CHECK(fixed(5000000, 9) == "005000000");
    CHECK(fixed(12345, 3) == "345");  // higher digits dropped
    CHECK(fixed(99, 2) == "99");
    for (std::uint64_t v : {0ULL, 1ULL, 9ULL, 10ULL, 99ULL, 100ULL, 123456789ULL, 999999999ULL})
        for (int width = 1; width <= 10; ++width) {
            char expected[24];
            std::snprintf(expected, sizeof expected, "%0*llu", width,
                          static_cast<unsigned long long>(v % [](int w) {
                              std::uint64_t m = 1;
                              while (w-- > 0) m *= 10;
                              return m;
                          }(width)));
            CHECK(fixed(v, width) == expected);
        }
}
