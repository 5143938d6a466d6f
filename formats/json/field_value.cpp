#include "formats/json/field_value.h"

#include <charconv>
#include <cstdlib>
#include <string>

#include "pipeline/data/temporal.h"
#include "pipeline/types/type_merging.h"

namespace cdcd::kafka {

namespace {

bool digit(char c) {
    return c >= '0' && c <= '9';
}

bool digits_at(std::string_view s, std::size_t pos, std::size_t n) {
    if (pos + n > s.size()) return false;
    for (std::size_t i = pos; i < pos + n; ++i)
        if (!digit(s[i])) return false;
    return true;
}

}  // namespace

void classify_string(FieldValue& v) {
    std::string_view s = v.text;
    v.kind = ValueKind::String;
    // Cheap rejection first: every temporal form starts with yyyy-MM-dd.
    if (s.size() < 10 || s[4] != '-' || s[7] != '-' || !digits_at(s, 0, 4) || !digits_at(s, 5, 2) ||
        !digits_at(s, 8, 2))
        return;
    if (s.size() == 10) {
        if (auto days = temporal::parse_date(s)) {
            v.kind = ValueKind::Date;
            v.integer = *days;  // kept for store()
        }
        return;
    }
    if (s.size() < 19 || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' ||
        !digits_at(s, 11, 2) || !digits_at(s, 14, 2) || !digits_at(s, 17, 2))
        return;
    std::size_t i = 19;
    std::uint8_t precision = 0;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && digit(s[i])) {
            ++i;
            ++precision;
        }
        if (precision == 0 || precision > 9) return;
    }
    ValueKind kind = ValueKind::Timestamp;
    if (i < s.size()) {
        std::string_view zone = s.substr(i);
        bool offset = zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') &&
                      digits_at(zone, 1, 2) && zone[3] == ':' && digits_at(zone, 4, 2);
        if (zone != "Z" && !offset) return;
        kind = ValueKind::TimestampLtz;
    }
    auto ts = temporal::parse_timestamp(s);
    if (!ts) return;
    v.kind = kind;
    v.integer = ts->millis;  // kept for store()
    v.nanos_of_milli = ts->nanos_of_milli;
    v.precision = precision;
}

void classify_number(FieldValue& v, std::string_view lit) {
    v.text = lit;
    bool exponent = false, fraction = false;
    for (char c : lit) {
        if (c == 'e' || c == 'E') exponent = true;
        if (c == '.') fraction = true;
    }
    if (!exponent && !fraction) {
        auto [p, ec] = std::from_chars(lit.data(), lit.data() + lit.size(), v.integer);
        if (ec == std::errc() && p == lit.data() + lit.size()) {
            v.kind = ValueKind::Int;
            return;
        }
    }
    if (!exponent) {
        // Precision and scale of the literal, as BigDecimal reads it (leading zeros dropped).
        std::size_t dot = lit.find('.');
        std::size_t scale = dot == std::string_view::npos ? 0 : lit.size() - dot - 1;
        std::size_t significant = 0;
        bool leading = true;
        for (char c : lit) {
            if (!digit(c)) continue;
            if (leading && c == '0') continue;
            leading = false;
            ++significant;
        }
        std::size_t precision = std::max<std::size_t>(std::max<std::size_t>(significant, scale), 1);
        if (precision <= 38) {
            v.kind = ValueKind::Decimal;
            v.precision = static_cast<std::uint8_t>(precision);
            v.scale = static_cast<std::uint8_t>(scale);
            return;
        }
    }
    v.kind = ValueKind::Double;
}

DataType inferred_type(const FieldValue& v) {
    if (v.declared) return *v.declared;
    switch (v.kind) {
        case ValueKind::Bool:
            return DataType::boolean();
        case ValueKind::Int:
            return DataType::bigint();
        case ValueKind::Decimal:
            return DataType::decimal(v.precision, v.scale);
        case ValueKind::Double:
            return DataType::double_();
        case ValueKind::Date:
            return DataType::date();
        case ValueKind::Timestamp:
            return DataType::timestamp(v.precision);
        case ValueKind::TimestampLtz:
            return DataType::timestamp_ltz(v.precision);
        case ValueKind::Time:
            return DataType::time(9);
        case ValueKind::Bytes:
            return DataType::bytes();
        default:
            return DataType::string();
    }
}

bool fits(const FieldValue& v, const DataType& t) {
    if (v.declared) {
        // Nullability aside, the column is the declared type or one it widens to.
        // A NULL changes no column of its declared type's kind: a NULL VariableScaleDecimal
        // or ZonedTimestamp declares no precision (and nor need a NULL TIMESTAMP(6)).
        if (v.kind == ValueKind::Null && t.root() == v.declared->root()) return true;
        const DataType column = t.with_nullable(true);
        return column.equals_ignoring_nullability(*v.declared) ||
               least_common_type(column, *v.declared) == column;
    }
    if (v.kind == ValueKind::Null) return true;
    if (t.is_string()) return true;
    switch (v.kind) {
        case ValueKind::Bool:
            return t.root() == TypeRoot::Boolean;
        case ValueKind::Int: {
            if (t.root() == TypeRoot::BigInt || t.root() == TypeRoot::Double) return true;
            if (t.root() != TypeRoot::Decimal) return false;
            std::int64_t a = v.integer < 0 ? -(v.integer + 1) : v.integer;
            int digits = 1;
            for (; a >= 10; a /= 10) ++digits;
            return digits <= t.precision() - t.scale();
        }
        case ValueKind::Decimal:
            return t.root() == TypeRoot::Double ||
                   (t.root() == TypeRoot::Decimal && v.scale <= t.scale() &&
                    v.precision - v.scale <= t.precision() - t.scale());
        case ValueKind::Double:
            return t.root() == TypeRoot::Double;
        case ValueKind::Date:
            return t.root() == TypeRoot::Date;
        case ValueKind::Timestamp:
            return t.root() == TypeRoot::Timestamp && v.precision <= t.precision();
        case ValueKind::TimestampLtz:
            return t.root() == TypeRoot::TimestampLtz && v.precision <= t.precision();
        case ValueKind::Time:
            return t.root() == TypeRoot::Time;
        case ValueKind::Bytes:
            return t.is_binary();
        default:
            return false;
    }
}

bool store(RowBuilder& row, std::size_t i, const FieldValue& v, const DataType& t) {
    if (v.kind == ValueKind::Null) {
        row.set_null(i);
        return true;
    }
    switch (t.root()) {
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            if (v.kind == ValueKind::Bool) {
                row.set_string(i, v.boolean ? "true" : "false");
            } else if (v.declared && v.kind == ValueKind::Date) {
                row.set_string(i, temporal::format_date(v.integer));  // text is epoch days
            } else if (v.declared && v.kind == ValueKind::Timestamp) {
                row.set_string(
                    i, temporal::format_sql_timestamp(Timestamp{v.integer, v.nanos_of_milli}, 9));
            } else if (v.kind == ValueKind::Time) {
                row.set_string(i, temporal::format_time(v.integer));
            } else {
                row.set_string(i, v.text);
            }
            return true;
        case TypeRoot::Boolean:
            row.set_bool(i, v.boolean);
            return true;
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            if (v.kind != ValueKind::Int) return false;
            row.set_long(i, v.integer);
            return true;
        case TypeRoot::Float:
        case TypeRoot::Double: {
            if (v.kind == ValueKind::Int) {
                row.set_double(i, static_cast<double>(v.integer));
                return true;
            }
            std::string text(v.text);
            char* end = nullptr;
            // A FLOAT is read as a float: 3.14 stays 3.14, not 3.140000104904175.
            double d = t.root() == TypeRoot::Float ? std::strtof(text.c_str(), &end)
                                                   : std::strtod(text.c_str(), &end);
            if (end != text.c_str() + text.size()) return false;
            row.set_double(i, d);
            return true;
        }
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            if (v.kind != ValueKind::Bytes) return false;
            row.set_bytes(i, v.text);
            return true;
        case TypeRoot::Time:
            if (v.kind != ValueKind::Time) return false;
            row.set_long(i, v.integer);
            return true;
        case TypeRoot::Decimal: {
            if (v.kind == ValueKind::Decimal && v.precision <= 18 && t.scale() >= v.scale &&
                t.scale() - v.scale + v.precision <= 18) {
                // A plain literal (classify_number: no exponent) of at most 18 digits: its digits
                // are the unscaled value at the literal's scale; pad it to the column's scale.
                std::int64_t unscaled = 0;
                bool negative = false;
                for (char c : v.text) {
                    if (digit(c)) {
                        unscaled = unscaled * 10 + (c - '0');
                    } else if (c == '-') {
                        negative = true;
                    }
                }
                for (int k = v.scale; k < t.scale(); ++k) unscaled *= 10;
                row.set_decimal(i, Decimal{negative ? -unscaled : unscaled});
                return true;
            }
            Decimal d;
            if (!Decimal::parse(v.text, t.scale(), d)) return false;
            row.set_decimal(i, d);
            return true;
        }
        case TypeRoot::Date: {
            if (v.kind == ValueKind::Date) {
                row.set_long(i, v.integer);
                return true;
            }
            auto days = temporal::parse_date(v.text);
            if (!days) return false;
            row.set_long(i, *days);
            return true;
        }
        case TypeRoot::Timestamp:
        case TypeRoot::TimestampLtz: {
            if (v.kind == ValueKind::Timestamp || v.kind == ValueKind::TimestampLtz) {
                row.set_timestamp(i, Timestamp{v.integer, v.nanos_of_milli});
                return true;
            }
            if (v.kind == ValueKind::Date) {  // a declared DATE in a column widened to TIMESTAMP
                row.set_timestamp(i, Timestamp{v.integer * temporal::kMillisPerDay, 0});
                return true;
            }
            auto ts = temporal::parse_timestamp(v.text);
            if (!ts) return false;
            row.set_timestamp(i, *ts);
            return true;
        }
        default:
            return false;
    }
}

}  // namespace cdcd::kafka
