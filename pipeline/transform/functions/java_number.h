#pragma once
// Java's number parsing, narrowing and BigDecimal rounding, as Flink CDC's CastingFunctions and
// ArithmeticFunctions use them: Long.valueOf, Double.valueOf, new BigDecimal(text,
// MathContext(p)).setScale(s, HALF_UP), (int) of a double, BigDecimal.valueOf(double).
#include <cstdint>
#include <optional>
#include <string_view>

namespace cdcd::transform {

/// A decimal number as BigDecimal holds it: ±digits × 10^exponent. `digits` has no leading
/// zeros (none at all for zero). Only the first kMaxDigits significant digits of a longer text
/// are kept (each further one raises `exponent`): MathContext rounding to at most 38 digits
/// needs no more.
struct JavaDecimal {
    static constexpr int kMaxDigits = 40;
    bool negative = false;
    int count = 0;
    char digits[kMaxDigits] = {};
    std::int64_t exponent = 0;

    /// The digits of an unscaled value at `scale` (a DECIMAL's Datum).
    static JavaDecimal of_unscaled(__int128 unscaled, int scale);
    /// BigDecimal.valueOf(v) / new BigDecimal(Float.toString(v)): the shortest text that reads
    /// back as v. Only for finite values.
    static JavaDecimal of_double(double v);
    static JavaDecimal of_float(float v);

    /// setScale(-e, HALF_UP) when that drops digits (nothing when exponent >= e).
    void round_to_exponent(std::int64_t e);
    /// The value as a double/float, correctly rounded (BigDecimal.doubleValue/floatValue).
    double to_double() const;
    float to_float() const;
};

/// new BigDecimal(text): [+-] digits [. digits] [(e|E) [+-] digits], at least one digit, no
/// white space. False for anything else (NumberFormatException).
bool parse_big_decimal(std::string_view text, JavaDecimal& out);

/// castToBigDecimal's value: rounded to `precision` significant digits (MathContext, HALF_UP),
/// then to `scale` (setScale, HALF_UP); the unscaled integer at `scale`, or nullopt when it
/// needs more than `precision` digits (precision <= 38).
std::optional<__int128> java_decimal_value(JavaDecimal v, int precision, int scale);

/// Long.valueOf/Integer.valueOf/Short.valueOf/Byte.valueOf: [+-] ASCII digits, no white space,
/// within [lo, hi].
std::optional<std::int64_t> parse_java_integer(std::string_view text, std::int64_t lo,
                                               std::int64_t hi);
/// Double.valueOf/Float.valueOf: leading and trailing characters <= ' ' ignored, [+-], then
/// NaN, Infinity, a decimal with optional exponent, or a hexadecimal with binary exponent
/// (0x1.8p1); optional f/F/d/D suffix.
std::optional<double> parse_java_double(std::string_view text);
std::optional<float> parse_java_float(std::string_view text);

/// Java's narrowing of a double: (long) and (int) round toward zero and saturate, NaN is 0;
/// (short) and (byte) narrow through (int), keeping the low bits.
std::int64_t java_double_to_long(double v);
std::int32_t java_double_to_int(double v);

}  // namespace cdcd::transform
