#include "pipeline/data/values.h"

#include <algorithm>
#include <cctype>

namespace cdcd {

namespace {
constexpr __int128 kMax38 =
    static_cast<__int128>(10000000000000000000ULL) * 10000000000000000000ULL;  // 1e38
}

std::string Decimal::to_string(int scale) const {
    bool negative = unscaled < 0;
    unsigned __int128 v = negative ? static_cast<unsigned __int128>(-(unscaled + 1)) + 1
                                   : static_cast<unsigned __int128>(unscaled);
    std::string digits;
    do {
        digits.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
        v /= 10;
    } while (v != 0);
    while (static_cast<int>(digits.size()) <= scale) digits.push_back('0');
    std::reverse(digits.begin(), digits.end());
    std::string out;
    if (negative) out.push_back('-');
    if (scale > 0) {
        out.append(digits, 0, digits.size() - scale);
        out.push_back('.');
        out.append(digits, digits.size() - scale, scale);
    } else {
        out.append(digits);
    }
    return out;
}

bool Decimal::parse(std::string_view text, int scale, Decimal& out) {
    size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    bool negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
    std::string digits;
    int frac_digits = 0;
    bool seen_point = false, any = false;
    for (; i < text.size(); ++i) {
        char c = text[i];
        if (std::isdigit(static_cast<unsigned char>(c))) {
            digits.push_back(c);
            any = true;
            if (seen_point) ++frac_digits;
        } else if (c == '.' && !seen_point) {
            seen_point = true;
        } else {
            break;
        }
    }
    if (!any) return false;
    int exponent = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool eneg = false;
        if (i < text.size() && (text[i] == '-' || text[i] == '+')) eneg = text[i++] == '-';
        size_t start = i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
            exponent = exponent * 10 + (text[i] - '0');
            if (exponent > 400) return false;
            ++i;
        }
        if (start == i) return false;
        if (eneg) exponent = -exponent;
    }
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i != text.size()) return false;
    // value = digits * 10^(exponent - frac_digits); rescale to `scale`.
    int shift = scale - frac_digits + exponent;
    bool round_up = false;
    if (shift < 0) {
        size_t drop = static_cast<size_t>(-shift);
        if (drop >= digits.size()) {
            round_up = drop == digits.size() && digits[0] >= '5';
            digits = "0";
        } else {
            round_up = digits[digits.size() - drop] >= '5';
            digits.resize(digits.size() - drop);
        }
    } else {
        digits.append(static_cast<size_t>(shift), '0');
    }
    __int128 v = 0;
    for (char c : digits) {
        if (v > (kMax38 - 1) / 10) return false;
        v = v * 10 + (c - '0');
    }
    if (round_up) ++v;
    if (v >= kMax38) return false;
    out.unscaled = negative ? -v : v;
    return true;
}

}  // namespace cdcd
