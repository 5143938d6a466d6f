#include "cmd/test/row_text.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "pipeline/data/temporal.h"
#include "pipeline/util/base64.h"

namespace cdcd::cmd_test {

namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

std::optional<std::int64_t> parse_integer(std::string_view text, TypeRoot root) {
    std::int64_t v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    std::int64_t low = std::numeric_limits<std::int64_t>::min();
    std::int64_t high = std::numeric_limits<std::int64_t>::max();
    if (root == TypeRoot::TinyInt) low = -128, high = 127;
    if (root == TypeRoot::SmallInt) low = -32768, high = 32767;
    if (root == TypeRoot::Int)
        low = std::numeric_limits<std::int32_t>::min(),
        high = std::numeric_limits<std::int32_t>::max();
    if (v < low || v > high) return std::nullopt;
    return v;
}

int digits_of(__int128 v) {
    if (v < 0) v = -v;
    int digits = 1;
    for (; v >= 10; v /= 10) ++digits;
    return digits;
}

}  // namespace

bool store_text(RowBuilder& row, std::size_t i, std::string_view text, const DataType& type,
                std::string& why) {
    switch (type.root()) {
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            row.set_string(i, text);
            return true;
        case TypeRoot::Boolean:
            if (equals_ignoring_case(text, "true") || equals_ignoring_case(text, "false")) {
                row.set_bool(i, equals_ignoring_case(text, "true"));
                return true;
            }
            why = "true or false";
            return false;
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            if (auto v = parse_integer(text, type.root())) {
                row.set_long(i, *v);
                return true;
            }
            why = "an integer in the range of " + type.with_nullable(true).to_string();
            return false;
        case TypeRoot::Float:
        case TypeRoot::Double: {
            std::string copy(text);
            char* end = nullptr;
            double d = type.root() == TypeRoot::Float ? std::strtof(copy.c_str(), &end)
                                                      : std::strtod(copy.c_str(), &end);
            if (!copy.empty() && end == copy.c_str() + copy.size()) {
                row.set_double(i, d);
                return true;
            }
            why = "a number";
            return false;
        }
        case TypeRoot::Decimal: {
            Decimal d;
            if (Decimal::parse(text, type.scale(), d) &&
                digits_of(d.unscaled) <= std::max(type.precision(), 1)) {
                row.set_decimal(i, d);
                return true;
            }
            why = "a number with at most " + std::to_string(type.precision() - type.scale()) +
                  " digits before the point";
            return false;
        }
        case TypeRoot::Date:
            if (auto days = temporal::parse_date(text)) {
                row.set_long(i, *days);
                return true;
            }
            why = "a date yyyy-MM-dd";
            return false;
        case TypeRoot::Time:
            if (auto nanos = temporal::parse_time(text)) {
                row.set_long(i, *nanos);
                return true;
            }
            why = "a time HH:mm[:ss[.f]]";
            return false;
        case TypeRoot::Timestamp:
        case TypeRoot::TimestampLtz:
            if (auto ts = temporal::parse_timestamp(text)) {
                row.set_timestamp(i, *ts);
                return true;
            }
            why = "a timestamp yyyy-MM-dd HH:mm[:ss[.f]]";
            return false;
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            if (auto bytes = base64_decode(text)) {
                row.set_bytes(i, *bytes);
                return true;
            }
            why = "base64 text";
            return false;
        case TypeRoot::TimestampTz:
        case TypeRoot::Array:
        case TypeRoot::Map:
        case TypeRoot::Row:
            break;
    }
    why = "a type cdcd test cannot write yet (columns of it must be null)";
    return false;
}

Row build_row(const RowText& text, const Schema& schema, const TableId& table) {
    const std::string at = text.where.to_string() + ": ";
    std::vector<int> given(schema.size(), -1);
    for (std::size_t f = 0; f < text.fields.size(); ++f) {
        const std::string& name = text.fields[f].first;
        int index = schema.index_of(name);
        if (index < 0)
            throw RowTextError(text.field_where[f].to_string() + ": table " + table.str() +
                               " has no column '" + name + "' (its columns: " + schema.to_string() +
                               ")");
        given[static_cast<std::size_t>(index)] = static_cast<int>(f);
    }
    RowBuilder row(schema.size());
    for (std::size_t i = 0; i < schema.size(); ++i) {
        const Column& column = schema.columns()[i];
        if (given[i] < 0)
            throw RowTextError(at + "the row of " + table.str() + " gives no value for column '" +
                               column.name + "' (" + column.type.to_string() + "); write `" +
                               column.name + ": null` for NULL");
        const auto f = static_cast<std::size_t>(given[i]);
        const auto& value = text.fields[f].second;
        if (!value) {
            if (!column.type.nullable())
                throw RowTextError(text.field_where[f].to_string() + ": column '" + column.name +
                                   "' of " + table.str() + " is " + column.type.to_string() +
                                   " and cannot be null");
            row.set_null(i);
            continue;
        }
        std::string why;
        if (!store_text(row, i, *value, column.type, why))
            throw RowTextError(text.field_where[f].to_string() + ": '" + *value +
                               "' is not a value of column '" + column.name + "' of " +
                               table.str() + " (" + column.type.to_string() + "): expected " + why);
    }
    return std::move(row).build();
}

}  // namespace cdcd::cmd_test
