#include "pipeline/schema/row_coercion.h"

#include <optional>

#include "pipeline/data/decimal_arithmetic.h"
#include "pipeline/data/field_format.h"
#include "pipeline/data/temporal.h"
#include "text/ascii.h"

namespace cdcd {

namespace {

// DecimalData.fromBigDecimal: rescale HALF_UP to `scale`; nullopt when it needs more than
// `precision` digits.
std::optional<Decimal> to_decimal(__int128 unscaled, int from_scale, int precision, int scale) {
    // Scaling up must stay within 38 digits, the most an __int128 holds.
    const int shift = scale - from_scale;
    if (shift > 38 || (shift >= 0 && !fits_precision(unscaled, 38 - shift))) return std::nullopt;
    unscaled = rescale(unscaled, from_scale, scale);
    if (!fits_precision(unscaled, precision)) return std::nullopt;
    return Decimal{unscaled};
}

double decimal_to_double(Decimal d, int scale) {
    return std::stod(d.to_string(scale));
}

}  // namespace

RowCoercion::RowCoercion(const Schema& upstream, const Schema& sink, TimeZone zone)
    : identity_(upstream == sink), zone_(std::move(zone)) {
    if (identity_) return;
    for (const Column& col : sink.columns()) {
        Field f;
        f.to = col.type;
        int j = upstream.index_of(col.name);
        if (j >= 0) {
            f.source = static_cast<std::size_t>(j);
            f.from = upstream.columns()[f.source].type;
            // Equal but for nullability: Flink's coerceObject returns the same value for these
            // (cdcd copies every type, including those coerceObject has no branch for).
            f.kind = f.from.equals_ignoring_nullability(f.to) ? Kind::Copy : Kind::Convert;
            f.variable = is_variable_length(f.from);
        }
        fields_.push_back(std::move(f));
    }
}

Row RowCoercion::coerce(RowView row) const {
    if (identity_) return Row(std::string(row.bytes()));
    RowBuilder out(fields_.size(), row.bytes().size());
    for (std::size_t i = 0; i < fields_.size(); ++i) {
        const Field& f = fields_[i];
        if (f.kind == Kind::Null || row.is_null(f.source)) continue;  // unset fields are NULL
        if (f.kind == Kind::Copy) {
            out.copy_field(i, row, f.source, f.variable);
        } else {
            convert(out, i, row, f);
        }
    }
    return std::move(out).build();
}

// coerceObject: the destination type decides; anything it cannot take stays NULL.
void RowCoercion::convert(RowBuilder& out, std::size_t i, RowView row, const Field& f) const {
    const std::size_t s = f.source;
    const TypeRoot from = f.from.root();
    // coerceToTimestamp: the wall-clock time of a DATE / TIMESTAMP / LTZ / TZ value.
    auto as_timestamp = [&]() -> std::optional<Timestamp> {
        switch (from) {
            case TypeRoot::Date:
                return Timestamp{row.get_long(s) * temporal::kMillisPerDay, 0};
            case TypeRoot::Timestamp:
                return row.get_timestamp(s);
            case TypeRoot::TimestampLtz:
                return zone_.to_local(row.get_timestamp(s));
            case TypeRoot::TimestampTz:
                return zone_.to_local(row.get_zoned_timestamp(s).instant);
            default:
                return std::nullopt;
        }
    };
    switch (f.to.root()) {
        case TypeRoot::Boolean:
            out.set_bool(i, ascii::iequals(format_field(row, s, f.from), "true"));
            return;
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
        case TypeRoot::Date:  // coerceToLong: an integer taken as epoch days
            if (f.from.is_integer() && (f.to.root() == TypeRoot::Date ||
                                        integer_digits(from) <= integer_digits(f.to.root())))
                out.set_long(i, row.get_long(s));
            return;
        case TypeRoot::Decimal: {
            std::optional<Decimal> d;
            if (f.from.is_integer()) {
                d = to_decimal(row.get_long(s), 0, f.to.precision(), f.to.scale());
            } else if (from == TypeRoot::Decimal) {
                d = to_decimal(row.get_decimal(s).unscaled, f.from.scale(), f.to.precision(),
                               f.to.scale());
            }
            if (d) out.set_decimal(i, *d);
            return;
        }
        case TypeRoot::Float:
        case TypeRoot::Double: {
            bool to_double = f.to.root() == TypeRoot::Double;
            double v;
            if (f.from.is_integer()) {
                v = static_cast<double>(row.get_long(s));
            } else if (from == TypeRoot::Decimal) {
                v = decimal_to_double(row.get_decimal(s), f.from.scale());
            } else if (from == TypeRoot::Float || (to_double && from == TypeRoot::Double)) {
                v = row.get_double(s);
            } else {
                return;
            }
            // Java narrows to float for a FLOAT column (Long#floatValue etc.).
            out.set_double(i, to_double ? v : static_cast<double>(static_cast<float>(v)));
            return;
        }
        case TypeRoot::Char:
        case TypeRoot::Varchar:
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            // coerceToString: Java toString (DATE as ISO date, bytes as base64); coerceToBytes:
            // bytes as-is, anything else its toString's bytes.
            if ((f.from.is_character() && f.to.is_character()) ||
                (f.from.is_binary() && f.to.is_binary())) {
                out.set_bytes(i, row.get_bytes(s));
            } else {
                out.set_string(i, format_field_java(row, s, f.from));
            }
            return;
        case TypeRoot::Timestamp:
            if (auto ts = as_timestamp()) out.set_timestamp(i, *ts);
            return;
        case TypeRoot::TimestampLtz:
            // LocalZonedTimestampData.fromEpochMillis(coerceToTimestamp(...).getMillisecond()).
            if (from == TypeRoot::TimestampLtz) {
                out.set_timestamp(i, row.get_timestamp(s));
            } else if (auto ts = as_timestamp()) {
                out.set_timestamp(i, *ts);
            }
            return;
        case TypeRoot::TimestampTz:
            // ZonedDateTime.ofInstant(localDateTime.toInstant(UTC), zone).
            if (from == TypeRoot::TimestampTz) {
                out.set_zoned_timestamp(i, row.get_zoned_timestamp(s));
            } else if (auto ts = as_timestamp()) {
                int offset = zone_.offset_at(temporal::floor_div(ts->millis, 1000));
                out.set_zoned_timestamp(i, ZonedTimestamp{*ts, offset});
            }
            return;
        default:
            return;  // TIME, ARRAY, MAP, ROW: "doesn't support type coercion"
    }
}

}  // namespace cdcd
