#include "formats/json/row_json.h"

#include <stdexcept>

#include "pipeline/data/field_format.h"
#include "pipeline/data/temporal.h"
#include "pipeline/util/base64.h"

namespace cdcd::json {

namespace {

void write_date(Writer& w, std::int64_t epoch_days) {
    char buf[temporal::kMaxTemporalText];
    char* end = temporal::write_date(buf, epoch_days);
    w.string(std::string_view(buf, static_cast<std::size_t>(end - buf)));
}

/// format_sql_timestamp(ts, 9) (+ 'T' for ISO-8601, + 'Z' for LTZ) without allocating.
void write_timestamp(Writer& w, Timestamp ts, const JsonFormatOptions& o, bool utc_suffix) {
    char buf[temporal::kMaxTemporalText + 1];
    char* p = temporal::write_sql_timestamp(buf, ts, 9, o.iso8601_timestamps ? 'T' : ' ');
    if (utc_suffix) *p++ = 'Z';
    w.string(std::string_view(buf, static_cast<std::size_t>(p - buf)));
}

std::string time_text(std::int64_t nanos_of_day) {
    // Flink's JSON TIME is HH:mm:ss; the fraction is dropped.
    std::int64_t secs = nanos_of_day / 1'000'000'000;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", static_cast<long long>(secs / 3600),
                  static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
    return buf;
}

// java.math.BigDecimal#toString (what Jackson writes unless encode.decimal-as-plain-number):
// plain unless the adjusted exponent is below -6, then scientific (1.5E-7).
void write_decimal(Writer& w, Decimal d, int scale, bool plain);

std::string decimal_text(Decimal d, int scale, bool plain) {
    std::string text = d.to_string(scale);
    if (plain || scale <= 0) return text;
    bool negative = !text.empty() && text[0] == '-';
    std::string digits;
    for (char c : text)
        if (c >= '0' && c <= '9') digits.push_back(c);
    std::size_t lead = digits.find_first_not_of('0');
    if (lead == std::string::npos) return text;  // zero
    std::string coeff = digits.substr(lead);
    long adjusted = -static_cast<long>(scale) + static_cast<long>(coeff.size()) - 1;
    if (adjusted >= -6) return text;
    std::string out = negative ? "-" : "";
    out.push_back(coeff[0]);
    if (coeff.size() > 1) {
        out.push_back('.');
        out.append(coeff, 1, std::string::npos);
    }
    out += "E" + std::to_string(adjusted);
    return out;
}

void write_decimal(Writer& w, Decimal d, int scale, bool plain) {
    constexpr __int128 kLimit = static_cast<__int128>(1) << 62;
    if (scale < 0 || scale > 18 || d.unscaled >= kLimit || d.unscaled <= -kLimit ||
        (!plain && scale > 6 && d.unscaled != 0)) {
        w.raw(decimal_text(d, scale, plain));
        return;
    }
    // Plain notation of a 64-bit unscaled value: digits right to left, the point `scale` from the
    // end.
    auto v = static_cast<std::int64_t>(d.unscaled);
    bool negative = v < 0;
    std::uint64_t u = negative ? static_cast<std::uint64_t>(-v) : static_cast<std::uint64_t>(v);
    char buf[48];
    char* end = buf + sizeof buf;
    char* p = end;
    int digits = 0;
    do {
        *--p = static_cast<char>('0' + u % 10);
        u /= 10;
        ++digits;
        if (digits == scale) *--p = '.';
    } while (u != 0 || digits < scale);
    if (scale > 0 && *p == '.') *--p = '0';
    if (negative) *--p = '-';
    w.raw(std::string_view(p, static_cast<std::size_t>(end - p)));
}

}  // namespace

void write_field(Writer& w, RowView row, std::size_t i, const DataType& type,
                 const JsonFormatOptions& o) {
    if (row.is_null(i)) {
        w.null();
        return;
    }
    switch (type.root()) {
        case TypeRoot::Boolean:
            w.boolean(row.get_bool(i));
            return;
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            w.integer(row.get_long(i));
            return;
        case TypeRoot::Float:
            w.raw(java_float_to_string(static_cast<float>(row.get_double(i))));
            return;
        case TypeRoot::Double:
            w.raw(java_double_to_string(row.get_double(i)));
            return;
        case TypeRoot::Decimal:
            write_decimal(w, row.get_decimal(i), type.scale(), o.decimal_as_plain_number);
            return;
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            w.string(row.get_string(i));
            return;
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            w.string(base64_encode(row.get_bytes(i)));
            return;
        case TypeRoot::Date:
            write_date(w, row.get_long(i));
            return;
        case TypeRoot::Time:
            w.string(time_text(row.get_long(i)));
            return;
        case TypeRoot::Timestamp:
            write_timestamp(w, row.get_timestamp(i), o, false);
            return;
        case TypeRoot::TimestampLtz:
            write_timestamp(w, row.get_timestamp(i), o, true);
            return;
        case TypeRoot::TimestampTz:
            w.string(temporal::format_offset_date_time(row.get_zoned_timestamp(i)));
            return;
        case TypeRoot::Array: {
            RowView arr = row.get_array(i);
            w.begin_array();
            for (std::size_t k = 0; k < arr.arity(); ++k) write_field(w, arr, k, type.element(), o);
            w.end_array();
            return;
        }
        case TypeRoot::Map: {
            RowView keys = row.get_map_keys(i), values = row.get_map_values(i);
            w.begin_object();
            for (std::size_t k = 0; k < keys.arity(); ++k) {
                if (keys.is_null(k)) {
                    if (o.map_null_key == JsonFormatOptions::MapNullKey::Drop) continue;
                    if (o.map_null_key == JsonFormatOptions::MapNullKey::Fail)
                        throw std::runtime_error(
                            "JSON format doesn't support a null map key; set map-null-key.mode");
                    w.key(o.map_null_key_literal);
                } else {
                    w.key(format_field(keys, k, type.key()));
                }
                write_field(w, values, k, type.value(), o);
            }
            w.end_object();
            return;
        }
        case TypeRoot::Row: {
            RowView nested = row.get_row(i);
            w.begin_object();
            const auto& fields = type.fields();
            for (std::size_t k = 0; k < fields.size(); ++k) {
                if (o.ignore_null_fields && nested.is_null(k)) continue;
                w.key(fields[k].name);
                write_field(w, nested, k, *fields[k].type, o);
            }
            w.end_object();
            return;
        }
    }
}

ColumnKeys ColumnKeys::of(const Schema& schema) {
    ColumnKeys k;
    k.keys.reserve(schema.columns().size());
    for (const auto& c : schema.columns()) {
        std::string key;
        append_quoted(key, c.name);
        key.push_back(':');
        k.keys.push_back(std::move(key));
    }
    return k;
}

void write_row_object(Writer& w, RowView row, const Schema& schema, const JsonFormatOptions& o,
                      const ColumnKeys* keys) {
    w.begin_object();
    const auto& cols = schema.columns();
    for (std::size_t i = 0; i < cols.size(); ++i) {
        if (o.ignore_null_fields && (i >= row.arity() || row.is_null(i))) continue;
        if (keys) {
            w.quoted_key(keys->keys[i]);
        } else {
            w.key(cols[i].name);
        }
        if (i >= row.arity()) {
            w.null();
        } else {
            write_field(w, row, i, cols[i].type, o);
        }
    }
    w.end_object();
}

}  // namespace cdcd::json
