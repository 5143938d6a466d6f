// Comparing unscaled decimals at different scales: exact, and without overflow when one of them
// brought to the other's scale would pass 38 digits.
#include "pipeline/data/decimal_arithmetic.h"

#include <catch2/catch.hpp>

using namespace cdcd;

TEST_CASE("decimals at different scales compare exactly") {
    CHECK(compare_decimals(150, 2, 15, 1) == 0);  // 1.50 and 1.5
    CHECK(compare_decimals(151, 2, 15, 1) == 1);  // 1.51 > 1.5
    CHECK(compare_decimals(-151, 2, -15, 1) == -1);
    CHECK(compare_decimals(15, 1, 151, 2) == -1);
    CHECK(compare_decimals(7, 0, 7, 0) == 0);
}

TEST_CASE("a decimal that would pass 38 digits at the other's scale is the larger in magnitude") {
    // 0.444444444444444454144444444444 (scale 30) against -11113333333.5 (scale 1): the latter
    // at scale 30 has 41 digits. (The fuzz finding: rescaling it overflowed __int128.)
    const __int128 small =
        static_cast<__int128>(444444444444444454ULL) * 1000000000000LL + 144444444444LL;
    CHECK(compare_decimals(small, 30, -111133333335, 1) == 1);
    CHECK(compare_decimals(-111133333335, 1, small, 30) == -1);
    CHECK(compare_decimals(small, 30, 111133333335, 1) == -1);
    CHECK(compare_decimals(111133333335, 1, small, 30) == 1);
    CHECK(compare_decimals(0, 1, small, 30) == -1);
}
