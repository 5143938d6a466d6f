#include "pipeline/transform/compile/types.h"

#include <algorithm>
#include <charconv>

#include "pipeline/data/field_format.h"
#include "pipeline/data/temporal.h"

namespace cdcd::transform {

bool is_integral(const DataType& t) {
    return t.is_integer();
}
bool is_approx(const DataType& t) {
    return t.root() == TypeRoot::Float || t.root() == TypeRoot::Double;
}
bool is_numeric(const DataType& t) {
    return t.is_numeric();
}
bool is_text(const DataType& t) {
    return t.is_character();
}
bool is_temporal(const DataType& t) {
    return t.root() == TypeRoot::Date || t.root() == TypeRoot::Time || t.is_timestamp();
}

DataType as_decimal(const DataType& t) {
    if (t.root() == TypeRoot::Decimal) return t;
    return DataType::decimal(integer_digits(t.root()), 0).with_nullable(t.nullable());
}

int java_class(const DataType& t) {
    switch (t.root()) {
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            return 1;
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            return 2;
        default:
            return 10 + static_cast<int>(t.root());
    }
}

namespace {

int numeric_rank(TypeRoot r) {
    switch (r) {
        case TypeRoot::TinyInt:
            return 1;
        case TypeRoot::SmallInt:
            return 2;
        case TypeRoot::Int:
            return 3;
        case TypeRoot::BigInt:
            return 4;
        case TypeRoot::Decimal:
            return 5;
        case TypeRoot::Float:
            return 6;
        case TypeRoot::Double:
            return 7;
        default:
            return 0;
    }
}

}  // namespace

std::optional<DataType> least_restrictive(const std::vector<DataType>& types) {
    if (types.empty()) return std::nullopt;
    bool nullable = false;
    for (const auto& t : types) nullable |= t.nullable();
    const DataType& first = types.front();
    if (std::all_of(types.begin(), types.end(), [](const DataType& t) { return t.is_numeric(); })) {
        int rank = 0;
        for (const auto& t : types) rank = std::max(rank, numeric_rank(t.root()));
        bool any_decimal = std::any_of(types.begin(), types.end(), [](const DataType& t) {
            return t.root() == TypeRoot::Decimal;
        });
        if (rank >= 6)
            return (rank == 7 ? DataType::double_() : DataType::float_()).with_nullable(nullable);
        if (any_decimal) {
            int int_digits = 0, scale = 0;
            for (const auto& t : types) {
                DataType d = as_decimal(t);
                int_digits = std::max(int_digits, d.precision() - d.scale());
                scale = std::max(scale, d.scale());
            }
            int p = std::min(38, int_digits + scale);
            return DataType::decimal(p, std::min(scale, p)).with_nullable(nullable);
        }
        for (const auto& t : types)
            if (numeric_rank(t.root()) == rank) return t.with_nullable(nullable);
    }
    if (std::all_of(types.begin(), types.end(),
                    [](const DataType& t) { return t.is_character(); })) {
        bool varchar = false;
        int len = 0;
        for (const auto& t : types) {
            varchar |= t.root() == TypeRoot::Varchar;
            len = std::max(len, t.length());
        }
        return (varchar ? DataType::varchar(len) : DataType::char_(len)).with_nullable(nullable);
    }
    if (std::all_of(types.begin(), types.end(), [](const DataType& t) { return t.is_binary(); })) {
        int len = 0;
        for (const auto& t : types) len = std::max(len, t.length());
        return DataType::varbinary(len).with_nullable(nullable);
    }
    for (const auto& t : types) {
        if (t.root() != first.root()) return std::nullopt;
    }
    if (first.root() == TypeRoot::Time || first.is_timestamp()) {
        int p = 0;
        for (const auto& t : types) p = std::max(p, t.precision());
        switch (first.root()) {
            case TypeRoot::Time:
                return DataType::time(p).with_nullable(nullable);
            case TypeRoot::Timestamp:
                return DataType::timestamp(p).with_nullable(nullable);
            case TypeRoot::TimestampLtz:
                return DataType::timestamp_ltz(p).with_nullable(nullable);
            default:
                return DataType::timestamp_tz(p).with_nullable(nullable);
        }
    }
    for (const auto& t : types)
        if (!t.equals_ignoring_nullability(first)) return std::nullopt;
    return first.with_nullable(nullable);
}

Datum read_field(RowView row, std::size_t i, const DataType& type) {
    if (row.is_null(i)) return Datum{};
    switch (value_class(type.root())) {
        case ValueClass::Long:
            return Datum::of_long(row.get_long(i));
        case ValueClass::Double:
            return Datum::of_double(row.get_double(i));
        case ValueClass::Decimal:
            return Datum::of_decimal(row.get_decimal(i).unscaled);
        case ValueClass::Timestamp:
            return Datum::of_timestamp(row.get_timestamp(i));
        case ValueClass::Zoned: {
            auto z = row.get_zoned_timestamp(i);
            return Datum::of_timestamp(z.instant, z.offset_seconds);
        }
        case ValueClass::Bytes:
            break;
    }
    return Datum::of_string(row.get_bytes(i));
}

void write_field(RowBuilder& b, std::size_t i, const Datum& d, const DataType& type) {
    if (d.null) {
        b.set_null(i);
        return;
    }
    switch (value_class(type.root())) {
        case ValueClass::Long:
            b.set_long(i, d.i);
            break;
        case ValueClass::Double:
            b.set_double(i, d.d);
            break;
        case ValueClass::Decimal:
            b.set_decimal(i, Decimal{d.dec});
            break;
        case ValueClass::Timestamp:
            b.set_timestamp(i, d.ts());
            break;
        case ValueClass::Zoned:
            b.set_zoned_timestamp(i, ZonedTimestamp{d.ts(), d.off});
            break;
        case ValueClass::Bytes:
            b.set_bytes(i, d.s);
            break;
    }
}

std::string_view to_java_string(const Datum& d, const DataType& type, Arena& arena) {
    switch (type.root()) {
        case TypeRoot::Char:
        case TypeRoot::Varchar:
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            return d.s;
        case TypeRoot::Boolean:
            return d.i ? "true" : "false";
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt: {
            char buf[24];
            auto r = std::to_chars(buf, buf + sizeof buf, d.i);
            return arena.copy(std::string_view(buf, r.ptr - buf));
        }
        default:
            break;
    }
    // Everything else renders as Java's toString of Flink CDC's data objects.
    RowBuilder b(1);
    write_field(b, 0, d, type);
    Row r = std::move(b).build();
    return arena.copy(format_field_java(r.view(), 0, type));
}

double to_double(const Datum& d, const DataType& type) {
    switch (type.root()) {
        case TypeRoot::Float:
        case TypeRoot::Double:
            return d.d;
        case TypeRoot::Decimal:
            return static_cast<double>(d.dec) / static_cast<double>(pow10_128(type.scale()));
        default:
            return static_cast<double>(d.i);
    }
}

}  // namespace cdcd::transform
