#include "pipeline/transform/functions/java_number.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "pipeline/data/decimal_arithmetic.h"

namespace cdcd::transform {

namespace {

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// Appends one significant digit (leading zeros are skipped by the caller's count of zeros).
void push_digit(JavaDecimal& v, char c) {
    if (v.count == 0 && c == '0') return;
    if (v.count < JavaDecimal::kMaxDigits)
        v.digits[v.count++] = c;
    else
        ++v.exponent;  // a digit past those kept: only its place counts
}

// The shortest round-trip digits of a value in scientific form ("d.ddde±x").
template <typename F>
JavaDecimal shortest(F value) {
    JavaDecimal v;
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));
    parse_big_decimal(text, v);
    return v;
}

// Reads `text` as a double or float through the C library, which also gives overflow as
// infinity and underflow as zero or a subnormal, as Java does.
template <typename F>
F read_floating(std::string_view text, bool hex) {
    F v = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), v,
                             hex ? std::chars_format::hex : std::chars_format::general);
    if (r.ec == std::errc()) return v;
    std::string s = (hex ? "0x" : "") + std::string(text);  // out of range: rare
    if constexpr (std::is_same_v<F, float>)
        return std::strtof(s.c_str(), nullptr);
    else
        return std::strtod(s.c_str(), nullptr);
}

template <typename F>
std::optional<F> parse_floating(std::string_view s) {
    while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
    while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
    bool negative = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        negative = s[0] == '-';
        s.remove_prefix(1);
    }
    auto sign = [&](F v) { return negative ? -v : v; };
    if (s == "NaN") return std::numeric_limits<F>::quiet_NaN();
    if (s == "Infinity") return sign(std::numeric_limits<F>::infinity());
    if (!s.empty() && (s.back() == 'f' || s.back() == 'F' || s.back() == 'd' || s.back() == 'D'))
        s.remove_suffix(1);
    bool hex = s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    std::size_t i = hex ? 2 : 0;
    auto is_mantissa_digit = [&](char c) {
        return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0 : is_digit(c);
    };
    std::size_t digits = 0;
    while (i < s.size() && is_mantissa_digit(s[i])) ++i, ++digits;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && is_mantissa_digit(s[i])) ++i, ++digits;
    }
    if (digits == 0) return std::nullopt;
    bool has_exponent =
        i < s.size() && (hex ? (s[i] == 'p' || s[i] == 'P') : (s[i] == 'e' || s[i] == 'E'));
    if (hex && !has_exponent) return std::nullopt;  // Java requires the binary exponent
    if (has_exponent) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        std::size_t start = i;
        while (i < s.size() && is_digit(s[i])) ++i;
        if (i == start) return std::nullopt;
    }
    if (i != s.size()) return std::nullopt;
    return sign(read_floating<F>(hex ? s.substr(2) : s, hex));
}

}  // namespace

JavaDecimal JavaDecimal::of_unscaled(__int128 unscaled, int scale) {
    JavaDecimal v;
    v.negative = unscaled < 0;
    auto u = static_cast<unsigned __int128>(v.negative ? -unscaled : unscaled);
    char buf[40];
    int n = 0;
    while (u != 0) {
        buf[n++] = static_cast<char>('0' + static_cast<int>(u % 10));
        u /= 10;
    }
    for (int k = n - 1; k >= 0; --k) v.digits[v.count++] = buf[k];
    v.exponent = -scale;
    return v;
}

JavaDecimal JavaDecimal::of_double(double v) {
    return shortest(v);
}
JavaDecimal JavaDecimal::of_float(float v) {
    return shortest(v);
}

void JavaDecimal::round_to_exponent(std::int64_t e) {
    if (exponent >= e) return;
    std::int64_t drop = e - exponent;
    exponent = e;
    if (drop > count) {
        count = 0;
        return;
    }
    int keep = count - static_cast<int>(drop);
    bool up = digits[keep] >= '5';
    count = keep;
    if (!up) return;
    int k = count - 1;
    while (k >= 0 && digits[k] == '9') digits[k--] = '0';
    if (k >= 0) {
        ++digits[k];
        return;
    }
    // All nines (or nothing kept): the carry adds a leading 1; the trailing zeros can go.
    digits[0] = '1';
    exponent += count;
    count = 1;
}

namespace {

// digits "e" exponent, in a buffer on the stack.
template <typename F>
F read_digits(const JavaDecimal& v) {
    if (v.count == 0) return v.negative ? -F(0) : F(0);
    char buf[JavaDecimal::kMaxDigits + 24];
    std::memcpy(buf, v.digits, static_cast<std::size_t>(v.count));
    buf[v.count] = 'e';
    auto r = std::to_chars(buf + v.count + 1, buf + sizeof buf, v.exponent);
    F f = read_floating<F>(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)), false);
    return v.negative ? -f : f;
}

}  // namespace

double JavaDecimal::to_double() const {
    return read_digits<double>(*this);
}
float JavaDecimal::to_float() const {
    return read_digits<float>(*this);
}

bool parse_big_decimal(std::string_view s, JavaDecimal& out) {
    out = JavaDecimal{};
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) out.negative = s[i++] == '-';
    std::size_t digits = 0;
    std::int64_t fraction = 0;
    while (i < s.size() && is_digit(s[i])) push_digit(out, s[i++]), ++digits;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && is_digit(s[i])) push_digit(out, s[i++]), ++digits, ++fraction;
    }
    if (digits == 0) return false;
    std::int64_t exp = 0;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        bool neg = false;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
        std::size_t start = i;
        while (i < s.size() && is_digit(s[i])) {
            exp = exp * 10 + (s[i++] - '0');
            if (exp > std::numeric_limits<std::int32_t>::max()) return false;  // Java: NFE
        }
        if (i == start) return false;
        if (neg) exp = -exp;
    }
    if (i != s.size()) return false;
    // Digits dropped past kMaxDigits already raised the exponent; fraction digits lower it.
    out.exponent += exp - fraction;
    return true;
}

std::optional<__int128> java_decimal_value(JavaDecimal v, int precision, int scale) {
    if (v.count > precision) v.round_to_exponent(v.exponent + (v.count - precision));
    v.round_to_exponent(-scale);
    if (v.count == 0) return 0;
    std::int64_t shift = v.exponent + scale;  // >= 0 now
    if (v.count + shift > precision) return std::nullopt;
    __int128 u = 0;
    for (int k = 0; k < v.count; ++k) u = u * 10 + (v.digits[k] - '0');
    u *= pow10_128(static_cast<int>(shift));
    return v.negative ? -u : u;
}

std::optional<std::int64_t> parse_java_integer(std::string_view s, std::int64_t lo,
                                               std::int64_t hi) {
    bool negative = false;
    std::size_t i = 0;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) negative = s[i++] == '-';
    if (i == s.size()) return std::nullopt;
    // Accumulated negatively, as Long.parseLong does, so that MIN_VALUE fits.
    std::int64_t v = 0;
    for (; i < s.size(); ++i) {
        if (!is_digit(s[i])) return std::nullopt;
        int d = s[i] - '0';
        if (v < (std::numeric_limits<std::int64_t>::min() + d) / 10) return std::nullopt;
        v = v * 10 - d;
    }
    if (!negative) {
        if (v == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
        v = -v;
    }
    if (v < lo || v > hi) return std::nullopt;
    return v;
}

std::optional<double> parse_java_double(std::string_view text) {
    return parse_floating<double>(text);
}
std::optional<float> parse_java_float(std::string_view text) {
    return parse_floating<float>(text);
}

std::int64_t java_double_to_long(double v) {
    if (std::isnan(v)) return 0;
    if (v >= 9223372036854775807.0) return std::numeric_limits<std::int64_t>::max();
    if (v <= -9223372036854775808.0) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(v);
}

std::int32_t java_double_to_int(double v) {
    if (std::isnan(v)) return 0;
    if (v >= 2147483647.0) return std::numeric_limits<std::int32_t>::max();
    if (v <= -2147483648.0) return std::numeric_limits<std::int32_t>::min();
    return static_cast<std::int32_t>(v);
}

}  // namespace cdcd::transform
