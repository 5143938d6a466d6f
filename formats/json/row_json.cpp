#include "formats/json/row_json.h"

#include <stdexcept>

#include "pipeline/data/field_format.h"
#include "pipeline/data/temporal.h"
#include "pipeline/util/base64.h"

namespace cdcd::json {

namespace {

std::string timestamp_text(Timestamp ts, const JsonFormatOptions& o, bool utc_suffix) {
    std::string s = temporal::format_sql_timestamp(ts, 9);
    if (o.iso8601_timestamps) s[10] = 'T';
    if (utc_suffix) s += "Z";
    return s;
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

}  // namespace

void write_field(Writer& w, RowView row, std::size_t i, const DataType& type, const JsonFormatOptions& o) {
    if (row.is_null(i)) {
        w.null();
        return;
    }
    switch (type.root()) {
        case TypeRoot::Boolean: w.boolean(row.get_bool(i)); return;
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt: w.integer(row.get_long(i)); return;
        case TypeRoot::Float: w.raw(java_float_to_string(static_cast<float>(row.get_double(i)))); return;
        case TypeRoot::Double: w.raw(java_double_to_string(row.get_double(i))); return;
        case TypeRoot::Decimal:
            w.raw(decimal_text(row.get_decimal(i), type.scale(), o.decimal_as_plain_number));
            return;
        case TypeRoot::Char:
        case TypeRoot::Varchar: w.string(row.get_string(i)); return;
        case TypeRoot::Binary:
        case TypeRoot::Varbinary: w.string(base64_encode(row.get_bytes(i))); return;
        case TypeRoot::Date: w.string(temporal::format_date(row.get_long(i))); return;
        case TypeRoot::Time: w.string(time_text(row.get_long(i))); return;
        case TypeRoot::Timestamp: w.string(timestamp_text(row.get_timestamp(i), o, false)); return;
        case TypeRoot::TimestampLtz: w.string(timestamp_text(row.get_timestamp(i), o, true)); return;
        case TypeRoot::TimestampTz: w.string(temporal::format_offset_date_time(row.get_zoned_timestamp(i))); return;
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
                        throw std::runtime_error("JSON format doesn't support a null map key; set map-null-key.mode");
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

void write_row_object(Writer& w, RowView row, const Schema& schema, const JsonFormatOptions& o) {
    w.begin_object();
    const auto& cols = schema.columns();
    for (std::size_t i = 0; i < cols.size(); ++i) {
        if (o.ignore_null_fields && (i >= row.arity() || row.is_null(i))) continue;
        w.key(cols[i].name);
        if (i >= row.arity()) {
            w.null();
        } else {
            write_field(w, row, i, cols[i].type, o);
        }
    }
    w.end_object();
}

}  // namespace cdcd::json
