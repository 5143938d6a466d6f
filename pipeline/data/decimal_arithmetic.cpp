#include "pipeline/data/decimal_arithmetic.h"

namespace cdcd {

__int128 pow10_128(int n) {
    __int128 r = 1;
    for (int k = 0; k < n; ++k) r *= 10;
    return r;
}

__int128 rescale(__int128 v, int from, int to) {
    if (to >= from) return v * pow10_128(to - from);
    __int128 div = pow10_128(from - to);
    __int128 q = v / div, rem = v % div;
    if (rem < 0) rem = -rem;
    if (rem * 2 >= div) q += v < 0 ? -1 : 1;
    return q;
}

std::optional<__int128> scale_up(__int128 v, int n) {
    for (int k = 0; k < n; ++k)
        if (__builtin_mul_overflow(v, 10, &v)) return std::nullopt;
    return v;
}

int compare_decimals(__int128 a, int sa, __int128 b, int sb) {
    auto cmp = [](__int128 x, __int128 y) { return x < y ? -1 : (x > y ? 1 : 0); };
    if (sa == sb) return cmp(a, b);
    // The one at the smaller scale is brought up to the other's; past __int128 it is beyond
    // anything the other (which fits) can be, on the side of its sign.
    if (sa < sb) {
        auto up = scale_up(a, sb - sa);
        return up ? cmp(*up, b) : (a < 0 ? -1 : 1);
    }
    auto up = scale_up(b, sa - sb);
    return up ? cmp(a, *up) : (b < 0 ? 1 : -1);
}

std::optional<__int128> checked_mul(__int128 a, __int128 b) {
    __int128 r = 0;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

std::optional<__int128> checked_add(__int128 a, __int128 b) {
    __int128 r = 0;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}

std::optional<__int128> checked_sub(__int128 a, __int128 b) {
    __int128 r = 0;
    if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
    return r;
}

bool fits_precision(__int128 v, int precision) {
    if (v < 0) v = -v;
    return v < pow10_128(precision);
}

}  // namespace cdcd
