#include "sources/postgres/java_rendering.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace cdcd::postgres::java {

std::string double_string(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
    if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
    // The shortest round-trip digits, in scientific form: d[.ddd]e[+-]xx.
    char buf[64];
    const auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    const std::string_view sci(buf, static_cast<std::size_t>(result.ptr - buf));
    const std::size_t e = sci.find('e');
    std::string digits;
    std::string out;
    for (char c : sci.substr(0, e)) {
        if (c == '-') {
            out.push_back('-');
        } else if (c != '.') {
            digits.push_back(c);
        }
    }
    const int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
    const double magnitude = std::fabs(value);
    if (magnitude >= 1e-3 && magnitude < 1e7) {
        // Plain notation, at least one digit on each side of the point.
        if (exponent < 0) {
            out += "0.";
            out.append(static_cast<std::size_t>(-exponent - 1), '0');
            out += digits;
        } else {
            const auto whole = static_cast<std::size_t>(exponent) + 1;
            if (digits.size() <= whole) {
                out += digits;
                out.append(whole - digits.size(), '0');
                out += ".0";
            } else {
                out += digits.substr(0, whole);
                out += '.';
                out += digits.substr(whole);
            }
        }
        return out;
    }
    // Computerized scientific notation: one digit, the point, at least one more, E, exponent.
    out += digits[0];
    out += '.';
    out += digits.size() > 1 ? digits.substr(1) : "0";
    out += 'E';
    out += std::to_string(exponent);
    return out;
}

namespace {

/// The next code point of UTF-8 `text` from `i` (advanced past it); U+FFFD for a malformed
/// sequence, which consumes one byte.
std::uint32_t next_code_point(std::string_view text, std::size_t& i) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    std::uint32_t cp = 0;
    if (lead < 0x80) {
        ++i;
        return lead;
    }
    if ((lead & 0xE0) == 0xC0) {
        length = 2;
        cp = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3;
        cp = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4;
        cp = lead & 0x07;
    } else {
        ++i;
        return 0xFFFD;
    }
    if (i + length > text.size()) {
        ++i;
        return 0xFFFD;
    }
    for (std::size_t k = 1; k < length; ++k) {
        const auto b = static_cast<unsigned char>(text[i + k]);
        if ((b & 0xC0) != 0x80) {
            ++i;
            return 0xFFFD;
        }
        cp = (cp << 6) | (b & 0x3F);
    }
    constexpr std::uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinimum[length] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        ++i;
        return 0xFFFD;
    }
    i += length;
    return cp;
}

}  // namespace

std::int32_t string_hash(std::string_view text) {
    std::uint32_t h = 0;  // Java's int arithmetic wraps; unsigned does so without UB
    auto add = [&h](std::uint32_t unit) { h = 31 * h + unit; };
    for (std::size_t i = 0; i < text.size();) {
        const std::uint32_t cp = next_code_point(text, i);
        if (cp >= 0x10000) {
            add(0xD800 + ((cp - 0x10000) >> 10));
            add(0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else {
            add(cp);
        }
    }
    return static_cast<std::int32_t>(h);
}

std::vector<std::size_t> hash_map_order(const std::vector<std::string>& keys) {
    // HashMap's constants: the first table has 16 buckets and doubles when it holds more than
    // 3/4 of its size; a bucket reaching 9 keys doubles a table smaller than 64.
    constexpr std::size_t kInitialCapacity = 16, kTreeifyThreshold = 8, kMinTreeifyCapacity = 64;
    std::vector<std::uint32_t> spread;  // of each distinct key kept, in insertion order
    std::vector<std::size_t> kept;      // indexes into keys
    std::size_t capacity = kInitialCapacity;
    std::vector<std::vector<std::size_t>> buckets(capacity);  // positions in kept
    auto rehash = [&](std::size_t new_capacity) {
        // Splitting keeps the order within a bucket, which is insertion order.
        capacity = new_capacity;
        buckets.assign(capacity, {});
        for (std::size_t k = 0; k < kept.size(); ++k)
            buckets[spread[k] & (capacity - 1)].push_back(k);
    };
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const auto h = static_cast<std::uint32_t>(string_hash(keys[i]));
        const std::uint32_t s = h ^ (h >> 16);
        auto& bucket = buckets[s & (capacity - 1)];
        bool present = false;
        for (std::size_t k : bucket) present = present || keys[kept[k]] == keys[i];
        if (present) continue;
        const std::size_t before = bucket.size();
        spread.push_back(s);
        kept.push_back(i);
        bucket.push_back(kept.size() - 1);
        if (before >= kTreeifyThreshold && capacity < kMinTreeifyCapacity) rehash(capacity * 2);
        if (kept.size() > capacity / 4 * 3) rehash(capacity * 2);
    }
    std::vector<std::size_t> order;
    order.reserve(kept.size());
    for (const auto& bucket : buckets)
        for (std::size_t k : bucket) order.push_back(kept[k]);
    return order;
}

void append_json_string(std::string& out, std::string_view text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    out.push_back('"');
    for (char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\f':
                out += "\\f";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    out += "\\u00";
                    out.push_back(kHex[(c >> 4) & 0xF]);
                    out.push_back(kHex[c & 0xF]);
                } else {
                    out.push_back(c);
                }
        }
    }
    out.push_back('"');
}

}  // namespace cdcd::postgres::java
