#include "pipeline/data/field_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "pipeline/data/temporal.h"
#include "pipeline/util/base64.h"

namespace cdcd {

bool is_variable_length(const DataType& type) {
    switch (type.root()) {
        case TypeRoot::Boolean:
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
        case TypeRoot::Float:
        case TypeRoot::Double:
        case TypeRoot::Date:
        case TypeRoot::Time:
            return false;
        default:
            return true;
    }
}

namespace {

// Converts the shortest round-trip digits of a value into Java's layout.
template <typename F>
std::string java_floating(F v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string sci(buf, res.ptr);  // d[.ddd]e±XX
    size_t e = sci.find('e');
    std::string mantissa = sci.substr(0, e);
    int exponent = std::stoi(sci.substr(e + 1));
    bool negative = mantissa[0] == '-';
    if (negative) mantissa.erase(0, 1);
    std::string digs;
    for (char c : mantissa)
        if (c != '.') digs.push_back(c);
    std::string out = negative ? "-" : "";
    F a = v < 0 ? -v : v;
    if (a >= static_cast<F>(1e-3) && a < static_cast<F>(1e7)) {
        if (exponent >= 0) {
            std::string intpart = digs.substr(0, std::min<size_t>(digs.size(), exponent + 1));
            while (static_cast<int>(intpart.size()) < exponent + 1) intpart.push_back('0');
            std::string frac =
                digs.size() > static_cast<size_t>(exponent) + 1 ? digs.substr(exponent + 1) : "0";
            out += intpart + "." + frac;
        } else {
            out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digs;
        }
    } else {
        std::string frac = digs.size() > 1 ? digs.substr(1) : "0";
        out += digs.substr(0, 1) + "." + frac + "E" + std::to_string(exponent);
    }
    return out;
}

}  // namespace

std::string java_double_to_string(double v) {
    return java_floating(v);
}
std::string java_float_to_string(float v) {
    return java_floating(v);
}

namespace {

// BinaryRecordDataExtractor#extractRecord (the values sink): `{name: TYPE -> value, ...}`.
std::string format_nested_row(RowView row, const DataType& type) {
    const auto& fields = type.fields();
    if (fields.empty()) return "{}";
    std::string s = "{";
    for (size_t i = 0; i < fields.size(); ++i) {
        if (i) s += ", ";
        s += fields[i].name;
        s += ": ";
        s += fields[i].type->to_string();
        s += " -> ";
        s += format_field(row, i, *fields[i].type);
    }
    return s + "}";
}

// BinaryRecordDataExtractor#extractRecord (the values sink): `{key -> value, ...}`.
std::string format_map(RowView keys, RowView values, const DataType& type) {
    std::string s = "{";
    for (size_t k = 0; k < keys.arity(); ++k) {
        if (k) s += ", ";
        s += format_field(keys, k, type.key());
        s += " -> ";
        s += format_field(values, k, type.value());
    }
    return s + "}";
}

std::string format_array(RowView arr, const DataType& element) {
    std::string s = "[";
    for (size_t i = 0; i < arr.arity(); ++i) {
        if (i) s += ", ";
        s += format_field(arr, i, element);
    }
    return s + "]";
}

}  // namespace

std::string format_field(RowView row, std::size_t i, const DataType& type) {
    if (row.is_null(i)) return "null";
    switch (type.root()) {
        case TypeRoot::Boolean:
            return row.get_bool(i) ? "true" : "false";
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            return std::to_string(row.get_long(i));
        case TypeRoot::Float:
            return java_float_to_string(static_cast<float>(row.get_double(i)));
        case TypeRoot::Double:
            return java_double_to_string(row.get_double(i));
        case TypeRoot::Decimal:
            return row.get_decimal(i).to_string(type.scale());
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            return std::string(row.get_string(i));
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            return base64_encode(row.get_bytes(i));
        case TypeRoot::Date:
            return temporal::format_date(row.get_long(i));
        case TypeRoot::Time:
            return temporal::format_time(row.get_long(i));
        case TypeRoot::Timestamp:
        case TypeRoot::TimestampLtz:
            // A TIMESTAMP_LTZ prints as LocalZonedTimestampData.toString(): the UTC date-time,
            // without a zone suffix.
            return temporal::format_local_date_time(row.get_timestamp(i));
        case TypeRoot::TimestampTz:
            // ZonedTimestampData.toString(): ISO_OFFSET_DATE_TIME.
            return temporal::format_iso_offset_date_time(row.get_zoned_timestamp(i));
        case TypeRoot::Array:
            return format_array(row.get_array(i), type.element());
        case TypeRoot::Map:
            return format_map(row.get_map_keys(i), row.get_map_values(i), type);
        case TypeRoot::Row:
            return format_nested_row(row.get_row(i), type);
    }
    return "?";
}

std::string format_field_java(RowView row, std::size_t i, const DataType& type) {
    if (row.is_null(i)) return "null";
    switch (type.root()) {
        case TypeRoot::Array: {  // GenericArrayData#toString: Arrays.asList(...).toString()
            RowView arr = row.get_array(i);
            std::string s = "[";
            for (size_t k = 0; k < arr.arity(); ++k) {
                if (k) s += ", ";
                s += format_field_java(arr, k, type.element());
            }
            return s + "]";
        }
        case TypeRoot::Map: {  // GenericMapData#toString: java.util.Map#toString
            RowView keys = row.get_map_keys(i), values = row.get_map_values(i);
            std::string s = "{";
            for (size_t k = 0; k < keys.arity(); ++k) {
                if (k) s += ", ";
                s += format_field_java(keys, k, type.key());
                s += '=';
                s += format_field_java(values, k, type.value());
            }
            return s + "}";
        }
        case TypeRoot::Row: {  // GenericRecordData#toString
            RowView nested = row.get_row(i);
            const auto& fields = type.fields();
            std::string s = "(";
            for (size_t k = 0; k < fields.size(); ++k) {
                if (k) s += ",";
                s += format_field_java(nested, k, *fields[k].type);
            }
            return s + ")";
        }
        default:
            return format_field(row, i, type);
    }
}

std::string format_row(RowView row, const std::vector<DataType>& types) {
    if (row.empty()) return "[]";
    std::string s = "[";
    for (size_t i = 0; i < types.size() && i < row.arity(); ++i) {
        if (i) s += ", ";
        s += format_field(row, i, types[i]);
    }
    return s + "]";
}

std::string format_row(RowView row, const Schema& schema) {
    if (row.empty()) return "[]";
    std::string s = "[";
    const auto& cols = schema.columns();
    for (size_t i = 0; i < cols.size() && i < row.arity(); ++i) {
        if (i) s += ", ";
        s += format_field(row, i, cols[i].type);
    }
    return s + "]";
}

}  // namespace cdcd
