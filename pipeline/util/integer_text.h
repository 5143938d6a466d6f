#pragma once
// Decimal text of 64-bit integers, two digits per step from a table, with the length known
// before the first digit is written. std::to_chars finds the length by dividing in a loop, which
// made it the larger part of formatting an integer into CONCAT's result.
#include <bit>
#include <cstdint>
#include <cstring>

namespace cdcd {

/// The longest text of a 64-bit integer: "-9223372036854775808".
inline constexpr std::size_t kMaxInt64Text = 20;

/// The number of decimal digits of u (1 for 0).
inline int decimal_digits(std::uint64_t u) {
    static constexpr std::uint64_t kPow10[20] = {1ULL,
                                                 10ULL,
                                                 100ULL,
                                                 1000ULL,
                                                 10000ULL,
                                                 100000ULL,
                                                 1000000ULL,
                                                 10000000ULL,
                                                 100000000ULL,
                                                 1000000000ULL,
                                                 10000000000ULL,
                                                 100000000000ULL,
                                                 1000000000000ULL,
                                                 10000000000000ULL,
                                                 100000000000000ULL,
                                                 1000000000000000ULL,
                                                 10000000000000000ULL,
                                                 100000000000000000ULL,
                                                 1000000000000000000ULL,
                                                 10000000000000000000ULL};
    // u | 1 has u's digits (a power of ten is even) and gives 0 its one digit.
    const std::uint64_t w = u | 1;
    // bits * log10(2): the number of digits, or one less.
    const int guess = (std::bit_width(w) * 1233) >> 12;
    return guess + (w >= kPow10[guess] ? 1 : 0);
}

/// "00" to "99", each two-digit number's text at twice its value.
inline constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/// Writes the last `width` decimal digits of v at p, zero-padded (v mod 10^width: the higher
/// digits are dropped); returns p + width.
inline char* write_fixed_digits(char* p, std::uint64_t v, int width) {
    int i = width;
    while (i >= 2) {
        const auto pair = static_cast<std::size_t>(v % 100) * 2;
        v /= 100;
        i -= 2;
        std::memcpy(p + i, kDigitPairs + pair, 2);
    }
    if (i == 1) p[0] = static_cast<char>('0' + v % 10);
    return p + width;
}

/// Writes v's decimal text at p (at most kMaxInt64Text bytes); returns its end.
inline char* write_int64(char* p, std::int64_t v) {
    std::uint64_t u = static_cast<std::uint64_t>(v);
    if (v < 0) {
        *p++ = '-';
        u = 0 - u;
    }
    char* const end = p + decimal_digits(u);
    char* q = end;
    while (u >= 100) {
        const auto pair = static_cast<std::size_t>(u % 100) * 2;
        u /= 100;
        q -= 2;
        std::memcpy(q, kDigitPairs + pair, 2);
    }
    if (u >= 10) {
        std::memcpy(q - 2, kDigitPairs + static_cast<std::size_t>(u) * 2, 2);
    } else {
        q[-1] = static_cast<char>('0' + u);
    }
    return end;
}

}  // namespace cdcd
