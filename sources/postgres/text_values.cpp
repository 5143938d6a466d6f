#include "sources/postgres/text_values.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "pipeline/data/temporal.h"
#include "pipeline/data/values.h"
#include "sources/postgres/java_rendering.h"
#include "sources/postgres/postgis_geometry.h"

namespace cdcd::postgres {

namespace {

template <typename T>
std::optional<T> whole_number(std::string_view text) {
    T v{};
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return std::nullopt;
    return v;
}

std::optional<double> floating(std::string_view text) {
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (text.empty()) return std::nullopt;
    // strtod needs a NUL-terminated string; values are short.
    std::string copy(text);
    char* end = nullptr;
    const double v = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size()) return std::nullopt;
    return v;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// bytea_output hex: `\x` and two hex digits per byte.
std::optional<std::string> bytea_hex(std::string_view text) {
    if (text.size() < 2 || text[0] != '\\' || text[1] != 'x' || text.size() % 2 != 0)
        return std::nullopt;
    std::string out;
    out.reserve((text.size() - 2) / 2);
    for (std::size_t i = 2; i < text.size(); i += 2) {
        const int hi = hex_digit(text[i]), lo = hex_digit(text[i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out.push_back(static_cast<char>(hi * 16 + lo));
    }
    return out;
}

/// timestamptz under TimeZone UTC: `2024-01-15 10:15:30.5+00`; other zones' offsets
/// (`+05:30`, `-03`, `+05:53:28`) are applied too.
std::optional<Timestamp> timestamp_with_offset(std::string_view text) {
    // The offset's sign comes after the time of day, which starts after the date's space.
    const std::size_t space = text.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    const std::size_t sign = text.find_first_of("+-", space);
    if (sign == std::string_view::npos) return std::nullopt;
    auto local = temporal::parse_timestamp(text.substr(0, sign));
    if (!local) return std::nullopt;
    std::string_view offset = text.substr(sign + 1);
    std::int64_t seconds = 0;
    int part = 0;
    while (!offset.empty() && part < 3) {
        if (offset.size() < 2) return std::nullopt;
        auto n = whole_number<int>(offset.substr(0, 2));
        if (!n) return std::nullopt;
        seconds += static_cast<std::int64_t>(*n) * (part == 0 ? 3600 : part == 1 ? 60 : 1);
        offset.remove_prefix(2);
        ++part;
        if (!offset.empty()) {
            if (offset[0] != ':') return std::nullopt;
            offset.remove_prefix(1);
        }
    }
    if (part == 0 || !offset.empty()) return std::nullopt;
    if (text[sign] == '-') seconds = -seconds;
    local->millis -= seconds * 1000;
    return local;
}

/// An interval's fields as pgjdbc's PGInterval holds them (seconds a double: whole seconds plus
/// microseconds / 1e6, as PGInterval.getSeconds()).
struct IntervalParts {
    std::int64_t years = 0, months = 0, days = 0, hours = 0, minutes = 0;
    double seconds = 0;
};

/// interval under IntervalStyle postgres (`1 year 2 mons -3 days 04:05:06.789`, `-04:05:06.5`,
/// `00:00:00`) as its fields.
std::optional<IntervalParts> interval_parts(std::string_view text) {
    IntervalParts p;
    auto& [years, months, days, hours, minutes, seconds] = p;
    bool any = false;
    while (!text.empty()) {
        const std::size_t space = text.find(' ');
        const std::string_view token = text.substr(0, space);
        text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
        if (token.find(':') != std::string_view::npos) {
            // [+-]HH:MM:SS[.ffffff]: the sign applies to every field.
            std::string_view t = token;
            const bool negative = !t.empty() && t[0] == '-';
            if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
            const std::size_t c1 = t.find(':'), c2 = t.find(':', c1 + 1);
            if (c2 == std::string_view::npos) return std::nullopt;
            auto h = whole_number<std::int64_t>(t.substr(0, c1));
            auto m = whole_number<std::int64_t>(t.substr(c1 + 1, c2 - c1 - 1));
            std::string_view sec = t.substr(c2 + 1);
            const std::size_t dot = sec.find('.');
            auto whole = whole_number<std::int64_t>(sec.substr(0, dot));
            std::int64_t micros = 0;
            if (dot != std::string_view::npos) {
                std::string_view frac = sec.substr(dot + 1);
                if (frac.empty() || frac.size() > 6) return std::nullopt;
                auto f = whole_number<std::int64_t>(frac);
                if (!f) return std::nullopt;
                micros = *f;
                for (std::size_t i = frac.size(); i < 6; ++i) micros *= 10;
            }
            if (!h || !m || !whole) return std::nullopt;
            const std::int64_t sign = negative ? -1 : 1;
            hours = sign * *h;
            minutes = sign * *m;
            // pgjdbc's PGInterval.getSeconds(): whole seconds plus microseconds / 1e6.
            seconds = static_cast<double>(sign * *whole) +
                      static_cast<double>(sign * micros) / 1'000'000.0;
            any = true;
            continue;
        }
        const std::size_t unit_at = text.find(' ');
        const std::string_view unit = text.substr(0, unit_at);
        text = unit_at == std::string_view::npos ? std::string_view() : text.substr(unit_at + 1);
        auto n = whole_number<std::int64_t>(token.size() > 1 && token[0] == '+' ? token.substr(1)
                                                                                : token);
        if (!n) return std::nullopt;
        if (unit == "year" || unit == "years") {
            years = *n;
        } else if (unit == "mon" || unit == "mons") {
            months = *n;
        } else if (unit == "day" || unit == "days") {
            days = *n;
        } else {
            return std::nullopt;
        }
        any = true;
    }
    if (!any) return std::nullopt;
    return p;
}

/// An interval as Debezium's interval.handling.mode numeric gives it: MicroDuration.durationMicros
/// with 30.4375 days a month, in the same double arithmetic.
std::optional<std::int64_t> interval_micros(std::string_view text) {
    constexpr double kDaysPerMonth = 30.4375;
    const auto parts = interval_parts(text);
    if (!parts) return std::nullopt;
    const auto& [years, months, days, hours, minutes, seconds] = *parts;
    const double number_of_days =
        static_cast<double>(years * 12 + months) * kDaysPerMonth + static_cast<double>(days);
    const double number_of_seconds = ((number_of_days * 24.0 + static_cast<double>(hours)) * 60.0 +
                                      static_cast<double>(minutes)) *
                                         60.0 +
                                     seconds;
    const double micros = number_of_seconds * 1'000'000.0;
    // Java's (long) cast: toward zero, saturating.
    if (!(micros < 9.2233720368547758e18)) return std::numeric_limits<std::int64_t>::max();
    if (!(micros > -9.2233720368547758e18)) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(micros);
}

/// An interval as Debezium's interval.handling.mode string gives it (Interval.toIsoString):
/// `P1Y2M-3DT4H5M6.789S`, the seconds `new BigDecimal(double)` (the double's exact value) cut to
/// 9 decimals toward zero, without trailing zeros. nullopt when a field does not fit PGInterval's
/// int.
std::optional<std::string> interval_iso(std::string_view text) {
    const auto parts = interval_parts(text);
    if (!parts) return std::nullopt;
    for (std::int64_t v : {parts->years, parts->months, parts->days, parts->hours, parts->minutes})
        if (v < std::numeric_limits<std::int32_t>::min() ||
            v > std::numeric_limits<std::int32_t>::max())
            return std::nullopt;
    // |seconds| < 60 with microseconds: |seconds| * 1e9 as an exact integer, truncated. The
    // double is m * 2^e (m < 2^53), so m * 1e9 < 2^83 fits 128 bits before the shift.
    const double magnitude = std::fabs(parts->seconds);
    if (!(magnitude < 4096.0)) return std::nullopt;
    int exponent = 0;
    const double fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent
    const auto mantissa = static_cast<std::uint64_t>(std::ldexp(fraction, 53));
    const int shift = 53 - exponent;  // magnitude = mantissa / 2^shift, shift > 0 here
    unsigned __int128 scaled = static_cast<unsigned __int128>(mantissa) * 1'000'000'000U;
    scaled = shift >= 128 ? 0 : scaled >> shift;
    auto nanos = static_cast<std::uint64_t>(scaled);
    std::string seconds = std::to_string(nanos / 1'000'000'000U);
    if (std::uint64_t frac = nanos % 1'000'000'000U) {
        std::string digits = std::to_string(frac);
        digits.insert(0, 9 - digits.size(), '0');
        digits.erase(digits.find_last_not_of('0') + 1);
        seconds += "." + digits;
    }
    if (nanos != 0 && std::signbit(parts->seconds)) seconds.insert(0, "-");
    return "P" + std::to_string(parts->years) + "Y" + std::to_string(parts->months) + "M" +
           std::to_string(parts->days) + "DT" + std::to_string(parts->hours) + "H" +
           std::to_string(parts->minutes) + "M" + seconds + "S";
}

/// money under lc_monetary C: `$1,234.50`, `-$5.00`: the number without `$` and `,`.
std::optional<std::string> money_number(std::string_view text) {
    const bool negative = !text.empty() && text[0] == '-';
    if (negative) text.remove_prefix(1);
    if (text.empty() || text[0] != '$') return std::nullopt;
    std::string out = negative ? "-" : "";
    for (char c : text.substr(1))
        if (c != ',') out.push_back(c);
    return out;
}

/// money as pgjdbc's PGmoney reads it (Debezium's value of a money column): a double.
std::optional<double> money_double(std::string_view text) {
    const auto number = money_number(text);
    if (!number) return std::nullopt;
    auto v = floating(*number);
    if (!v || !std::isfinite(*v)) return std::nullopt;
    return v;
}

/// A numeric's text under decimal.handling.mode string: the number as the server prints it (what
/// BigDecimal.toPlainString gives back), the special values by Debezium's names for them.
std::string numeric_text(std::string_view text) {
    if (text == "NaN") return "NAN";
    if (text == "Infinity") return "POSITIVE_INFINITY";
    if (text == "-Infinity") return "NEGATIVE_INFINITY";
    return std::string(text);
}

/// Bytes as java.util.Base64's basic encoder writes them (with `=` padding).
std::string base64(std::string_view bytes) {
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        std::uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
        if (i + 1 < bytes.size())
            n |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
        if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
        out.push_back(kAlphabet[(n >> 18) & 63]);
        out.push_back(kAlphabet[(n >> 12) & 63]);
        out.push_back(i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=');
        out.push_back(i + 2 < bytes.size() ? kAlphabet[n & 63] : '=');
    }
    return out;
}

/// A one-dimensional array's text (`{1,NULL,"a b","q\"x"}`) as its elements; NULL as nullopt.
/// nullopt for what is not one (several dimensions, explicit bounds `[2:3]={...}`).
std::optional<std::vector<std::optional<std::string>>> array_elements(std::string_view text) {
    if (text.size() < 2 || text.front() != '{' || text.back() != '}') return std::nullopt;
    text = text.substr(1, text.size() - 2);
    std::vector<std::optional<std::string>> out;
    if (text.empty()) return out;
    std::size_t i = 0;
    for (;;) {
        std::string element;
        bool quoted = false;
        if (i < text.size() && text[i] == '"') {
            quoted = true;
            for (++i;; ++i) {
                if (i >= text.size()) return std::nullopt;
                if (text[i] == '\\' && i + 1 < text.size()) {
                    element.push_back(text[++i]);
                } else if (text[i] == '"') {
                    ++i;
                    break;
                } else {
                    element.push_back(text[i]);
                }
            }
        } else {
            while (i < text.size() && text[i] != ',') {
                if (text[i] == '{' || text[i] == '"') return std::nullopt;  // nested or broken
                element.push_back(text[i++]);
            }
        }
        if (!quoted && element == "NULL") {
            out.emplace_back(std::nullopt);
        } else {
            out.emplace_back(std::move(element));
        }
        if (i == text.size()) return out;
        if (text[i] != ',') return std::nullopt;
        ++i;
    }
}

/// A bit string (`0010`) as Debezium's bytes of it: the bits as a number, the last character its
/// lowest bit, in as few little-endian bytes as hold it (none when it is zero).
std::optional<std::string> bit_string_bytes(std::string_view text) {
    std::string out((text.size() + 7) / 8, '\0');
    std::size_t used = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[text.size() - 1 - i];
        if (c != '0' && c != '1') return std::nullopt;
        if (c == '1') {
            out[i / 8] =
                static_cast<char>(static_cast<unsigned char>(out[i / 8]) | (1U << (i % 8)));
            used = i / 8 + 1;
        }
    }
    out.resize(used);
    return out;
}

/// A point (`(3.456,7.89)`) as the JSON Flink CDC writes for Debezium's point structure:
/// `{"coordinates":"[[3.456,7.89]]","type":"Point","srid":0}` (a HashMap's order; the
/// coordinates a JSON text of their own, numbers as Java prints doubles; no SRID is 0).
std::optional<std::string> point_json(std::string_view text, std::string* why) {
    if (text.size() < 5 || text.front() != '(' || text.back() != ')') return std::nullopt;
    text = text.substr(1, text.size() - 2);
    const std::size_t comma = text.find(',');
    if (comma == std::string_view::npos) return std::nullopt;
    const auto x = floating(text.substr(0, comma)), y = floating(text.substr(comma + 1));
    if (!x || !y) return std::nullopt;
    if (std::isnan(*x) || std::isnan(*y)) {
        // Flink's geometry reader makes a point with a NaN coordinate an empty one.
        *why = "point '(" + std::string(text) +
               ")' has a NaN coordinate, whose rendering by Flink CDC cdcd does not reproduce";
        return std::nullopt;
    }
    // Jackson writes a non-finite double as a string.
    auto number = [](double v) {
        const std::string s = java::double_string(v);
        return std::isfinite(v) ? s : "\"" + s + "\"";
    };
    const std::string coordinates = "[[" + number(*x) + "," + number(*y) + "]]";
    std::string out = "{\"coordinates\":";
    java::append_json_string(out, coordinates);
    out += ",\"type\":\"Point\",\"srid\":0}";
    return out;
}

/// One double-quoted hstore string (`"a \"b\""`) from `text` at `i`, unescaped.
std::optional<std::string> hstore_quoted(std::string_view text, std::size_t& i) {
    if (i >= text.size() || text[i] != '"') return std::nullopt;
    std::string out;
    for (++i; i < text.size(); ++i) {
        if (text[i] == '\\') {
            if (++i == text.size()) return std::nullopt;
            out.push_back(text[i]);
        } else if (text[i] == '"') {
            ++i;
            return out;
        } else {
            out.push_back(text[i]);
        }
    }
    return std::nullopt;
}

/// An hstore as the server prints it (`"a"=>"1", "b"=>NULL`, empty for no pairs) as Debezium's
/// JSON of it (hstore.handling.mode json): an object written from the HashMap pgjdbc parses it
/// into, in that map's order, NULL as null.
struct HstorePairs {
    std::vector<std::string> keys;
    std::vector<std::optional<std::string>> values;
};

/// An hstore's pairs, in the server's order.
std::optional<HstorePairs> hstore_pairs(std::string_view text) {
    HstorePairs pairs;
    auto& [keys, values] = pairs;
    std::size_t i = 0;
    while (i < text.size()) {
        if (!keys.empty()) {
            if (text.substr(i, 2) != ", ") return std::nullopt;
            i += 2;
        }
        auto key = hstore_quoted(text, i);
        if (!key || text.substr(i, 2) != "=>") return std::nullopt;
        i += 2;
        if (text.substr(i, 4) == "NULL") {
            i += 4;
            values.emplace_back(std::nullopt);
        } else if (auto value = hstore_quoted(text, i)) {
            values.emplace_back(std::move(*value));
        } else {
            return std::nullopt;
        }
        keys.push_back(std::move(*key));
    }
    return pairs;
}

std::optional<std::string> hstore_json(std::string_view text) {
    const auto pairs = hstore_pairs(text);
    if (!pairs) return std::nullopt;
    const auto& [keys, values] = *pairs;
    std::string out = "{";
    for (std::size_t k : java::hash_map_order(keys)) {
        if (out.size() > 1) out.push_back(',');
        java::append_json_string(out, keys[k]);
        out.push_back(':');
        if (values[k]) {
            java::append_json_string(out, *values[k]);
        } else {
            out += "null";
        }
    }
    out.push_back('}');
    return out;
}

std::string not_a(std::string_view what, std::string_view text) {
    constexpr std::size_t kShown = 64;  // a value in an error text is cut here
    std::string shown(text.substr(0, kShown));
    if (text.size() > kShown) shown += "...";
    return "'" + shown + "' is not " + std::string(what);
}

/// An array's text; its elements are read with `form` (an array column's form is its elements').
std::optional<std::string> set_array_value(RowBuilder& row, std::size_t index, const DataType& type,
                                           std::string_view text, TextForm form) {
    auto elements = array_elements(text);
    if (!elements) return not_a("a one-dimensional array", text);
    RowBuilder array(elements->size());
    for (std::size_t k = 0; k < elements->size(); ++k) {
        const auto& element = (*elements)[k];
        if (!element) {
            array.set_null(k);
        } else if (auto why = set_text_value(array, k, type.element(), *element, form)) {
            return "array element " + std::to_string(k + 1) + ": " + *why;
        }
    }
    const Row built = std::move(array).build();
    row.set_row(index, built.view());
    return std::nullopt;
}

}  // namespace

std::optional<std::string> set_text_value(RowBuilder& row, std::size_t index, const DataType& type,
                                          std::string_view text, TextForm form) {
    if (type.root() == TypeRoot::Array) return set_array_value(row, index, type, text, form);
    switch (form) {
        case TextForm::Native:
            break;
        case TextForm::BitString: {
            if (!type.is_binary()) return "no bit string conversion to " + type.to_string();
            auto bytes = bit_string_bytes(text);
            if (!bytes) return not_a("a bit string", text);
            row.set_bytes(index, *bytes);
            return std::nullopt;
        }
        case TextForm::Point: {
            if (!type.is_character()) return "no point conversion to " + type.to_string();
            std::string why;
            auto json = point_json(text, &why);
            if (!json) return why.empty() ? not_a("a point", text) : why;
            row.set_string(index, *json);
            return std::nullopt;
        }
        case TextForm::Geometry: {
            if (!type.is_character()) return "no geometry conversion to " + type.to_string();
            std::string why;
            auto json = geometry_json(text, &why);
            if (!json) return not_a("a geometry", text) + ": " + why;
            row.set_string(index, *json);
            return std::nullopt;
        }
        case TextForm::Hstore: {
            if (!type.is_character()) return "no hstore conversion to " + type.to_string();
            auto json = hstore_json(text);
            if (!json) return not_a("an hstore", text);
            row.set_string(index, *json);
            return std::nullopt;
        }
        case TextForm::HstoreMap: {
            if (type.root() != TypeRoot::Map) return "no hstore conversion to " + type.to_string();
            const auto pairs = hstore_pairs(text);
            if (!pairs) return not_a("an hstore", text);
            // The order of the HashMap Debezium reads the pairs into, as the JSON form's.
            const std::vector<std::size_t> order = java::hash_map_order(pairs->keys);
            RowBuilder keys(order.size()), values(order.size());
            for (std::size_t k = 0; k < order.size(); ++k) {
                keys.set_string(k, pairs->keys[order[k]]);
                if (const auto& v = pairs->values[order[k]]) {
                    values.set_string(k, *v);
                } else {
                    values.set_null(k);
                }
            }
            const Row key_row = std::move(keys).build(), value_row = std::move(values).build();
            row.set_map(index, key_row.view(), value_row.view());
            return std::nullopt;
        }
        case TextForm::NumericText:
            if (!type.is_character()) return "no numeric text conversion to " + type.to_string();
            row.set_string(index, numeric_text(text));
            return std::nullopt;
        case TextForm::MoneyDouble:
        case TextForm::MoneyText: {
            const auto v = money_double(text);
            if (!v) return not_a("money", text);
            if (form == TextForm::MoneyText) {
                if (!type.is_character()) return "no money text conversion to " + type.to_string();
                row.set_string(index, java::double_string(*v));
            } else {
                if (type.root() != TypeRoot::Double)
                    return "no money conversion to " + type.to_string();
                row.set_double(index, *v);
            }
            return std::nullopt;
        }
        case TextForm::IntervalIso: {
            if (!type.is_character()) return "no interval text conversion to " + type.to_string();
            auto iso = interval_iso(text);
            if (!iso) return not_a("an interval that pgjdbc's PGInterval holds", text);
            row.set_string(index, *iso);
            return std::nullopt;
        }
        case TextForm::Base64:
        case TextForm::Hex: {
            if (!type.is_character()) return "no bytea text conversion to " + type.to_string();
            auto bytes = bytea_hex(text);
            if (!bytes) return not_a("bytea in hex output", text);
            if (form == TextForm::Base64) {
                row.set_string(index, base64(*bytes));
            } else {
                // Debezium's HexConverter: lower-case digits, as bytea_output hex prints them.
                row.set_string(index, text.substr(2));
            }
            return std::nullopt;
        }
    }
    switch (type.root()) {
        case TypeRoot::Boolean:
            // bool prints t/f; bit(1) prints 1/0.
            if (text == "t" || text == "1") {
                row.set_bool(index, true);
            } else if (text == "f" || text == "0") {
                row.set_bool(index, false);
            } else {
                return not_a("a boolean", text);
            }
            return std::nullopt;
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt: {
            auto v = whole_number<std::int64_t>(text);
            // An interval (BIGINT microseconds, as Debezium) never prints as a bare number.
            if (!v && type.root() == TypeRoot::BigInt) v = interval_micros(text);
            if (!v) return not_a("a whole number", text);
            row.set_long(index, *v);
            return std::nullopt;
        }
        case TypeRoot::Float:
        case TypeRoot::Double: {
            auto v = floating(text);
            if (!v) return not_a("a floating-point number", text);
            row.set_double(index, type.root() == TypeRoot::Float
                                      ? static_cast<double>(static_cast<float>(*v))
                                      : *v);
            return std::nullopt;
        }
        case TypeRoot::Decimal: {
            if (text == "NaN" || text == "Infinity" || text == "-Infinity")
                return "numeric " + std::string(text) +
                       " has no DECIMAL value (Debezium fails on it under decimal.handling.mode "
                       "precise; string or double keep it)";
            Decimal d;
            // money prints with a currency sign, which a numeric never has.
            const auto money = money_number(text);
            if (money) text = *money;
            if (!Decimal::parse(text, type.scale(), d))
                return not_a("a DECIMAL(" + std::to_string(type.precision()) + ", " +
                                 std::to_string(type.scale()) + ")",
                             text);
            row.set_decimal(index, d);
            return std::nullopt;
        }
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            row.set_string(index, text);
            return std::nullopt;
        case TypeRoot::Binary:
        case TypeRoot::Varbinary: {
            auto bytes = bytea_hex(text);
            if (!bytes) return not_a("bytea in hex output", text);
            row.set_bytes(index, *bytes);
            return std::nullopt;
        }
        case TypeRoot::Date: {
            auto days = temporal::parse_date(text);
            if (!days) return not_a("a date (yyyy-MM-dd; infinity and BC dates are refused)", text);
            row.set_long(index, *days);
            return std::nullopt;
        }
        case TypeRoot::Time: {
            // PostgreSQL allows 24:00:00, the end of the day.
            if (text.substr(0, 8) == "24:00:00") {
                row.set_long(index, temporal::kNanosPerDay);
                return std::nullopt;
            }
            auto nanos = temporal::parse_time(text);
            if (!nanos) return not_a("a time of day", text);
            row.set_long(index, *nanos);
            return std::nullopt;
        }
        case TypeRoot::Timestamp: {
            auto ts = temporal::parse_timestamp(text);
            if (!ts) return not_a("a timestamp (infinity and BC are refused)", text);
            row.set_timestamp(index, *ts);
            return std::nullopt;
        }
        case TypeRoot::TimestampLtz: {
            auto ts = timestamp_with_offset(text);
            if (!ts) return not_a("a timestamp with time zone (infinity and BC are refused)", text);
            row.set_timestamp(index, *ts);
            return std::nullopt;
        }
        default:
            return "no text conversion to " + type.to_string();
    }
}

}  // namespace cdcd::postgres
