#include "sinks/vikingdb/record_encoder.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "formats/json/json_writer.h"
#include "pipeline/data/field_format.h"
#include "pipeline/data/temporal.h"

namespace cdcd::vikingdb {

namespace {

constexpr double kFloat32Max = 3.4028234663852886e38;

double decimal_value(const Decimal& d, int scale) {
    return std::strtod(d.to_string(scale).c_str(), nullptr);
}

/// A numeric array element / map value as a double.
bool number_at(RowView r, std::size_t i, const DataType& t, double& out) {
    if (r.is_null(i)) return false;
    if (t.is_integer())
        out = static_cast<double>(r.get_long(i));
    else if (t.root() == TypeRoot::Decimal)
        out = decimal_value(r.get_decimal(i), t.scale());
    else
        out = r.get_double(i);
    return true;
}

const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(std::string_view in) {
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        unsigned v = (static_cast<unsigned char>(in[i]) << 16) |
                     (static_cast<unsigned char>(in[i + 1]) << 8) |
                     static_cast<unsigned char>(in[i + 2]);
        out += {kB64[v >> 18], kB64[(v >> 12) & 63], kB64[(v >> 6) & 63], kB64[v & 63]};
    }
    if (i < in.size()) {
        unsigned v = static_cast<unsigned char>(in[i]) << 16;
        if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
        out += kB64[v >> 18];
        out += kB64[(v >> 12) & 63];
        out += i + 1 < in.size() ? kB64[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

// printf's %02d of a non-negative value: two digits, more when it has them.
char* put_2_digits(char* p, int v) {
    if (v >= 0 && v < 100) {
        p[0] = static_cast<char>('0' + v / 10);
        p[1] = static_cast<char>('0' + v % 10);
        return p + 2;
    }
    return std::to_chars(p, p + 12, v).ptr;
}

// 0000-01-01 and 9999-12-31 as epoch days: the years RFC 3339 has.
constexpr std::int64_t kFirstRfc3339Day = -719'528;
constexpr std::int64_t kLastRfc3339Day = 2'932'896;

}  // namespace

std::string rfc3339(std::int64_t local_millis, int offset_seconds) {
    std::int64_t days = temporal::floor_div(local_millis, temporal::kMillisPerDay);
    std::int64_t ms = temporal::floor_mod(local_millis, temporal::kMillisPerDay);
    char buf[temporal::kMaxTemporalText + 32];
    char* p = nullptr;
    if (days >= kFirstRfc3339Day && days <= kLastRfc3339Day) {
        // yyyy-MM-ddTHH:mm:ss is the SQL timestamp text at precision 0 with the ISO separator.
        p = temporal::write_sql_timestamp(buf, Timestamp{local_millis, 0}, 0, 'T');
    } else {
        // Other years keep printf's %04lld (-001, 10000), not the shared writers' Java text
        // (-0001, +10000): neither is RFC 3339, and VikingDB rejects both.
        auto c = temporal::civil_from_days(days);
        int n = std::snprintf(
            buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld",
            static_cast<long long>(c.year), c.month, c.day, static_cast<long long>(ms / 3'600'000),
            static_cast<long long>(ms / 60'000 % 60), static_cast<long long>(ms / 1000 % 60));
        p = buf + n;
    }
    if (ms % 1000 != 0) {  // milliseconds, always three digits
        auto frac = static_cast<int>(ms % 1000);
        *p++ = '.';
        *p++ = static_cast<char>('0' + frac / 100);
        p = put_2_digits(p, frac % 100);
    }
    int off = offset_seconds < 0 ? -offset_seconds : offset_seconds;
    *p++ = offset_seconds < 0 ? '-' : '+';
    p = put_2_digits(p, off / 3600);
    *p++ = ':';
    p = put_2_digits(p, off / 60 % 60);
    return std::string(buf, p);
}

RecordEncoder::RecordEncoder(TableId table, CollectionSpec spec, TimeZone zone)
    : table_(table), spec_(std::move(spec)), zone_(std::move(zone)) {}

std::string RecordEncoder::key_json(RowView row) const {
    const FieldMapping& pk = spec_.pk();
    auto i = static_cast<std::size_t>(pk.column);
    if (i >= row.arity() || row.is_null(i))
        throw EncodeError("VikingDB sink: table " + table_.str() + ": primary key `" + pk.name +
                          "` is NULL; VikingDB needs a non-null primary key");
    std::string out;
    if (pk.source.is_character()) {
        json::append_quoted(out, row.get_string(i));
        if (row.get_string(i).empty())
            throw EncodeError("VikingDB sink: table " + table_.str() + ": primary key `" + pk.name +
                              "` is an empty string, which VikingDB rejects");
    } else if (pk.source.root() == TypeRoot::Decimal) {
        Decimal d = row.get_decimal(i);
        if (d.unscaled > std::numeric_limits<std::int64_t>::max() ||
            d.unscaled < std::numeric_limits<std::int64_t>::min())
            throw EncodeError("VikingDB sink: table " + table_.str() + ": primary key `" + pk.name +
                              "` = " + d.to_string(0) + " does not fit int64");
        out = d.to_string(0);
    } else {
        out = std::to_string(row.get_long(i));
    }
    return out;
}

std::string RecordEncoder::date_time(RowView row, std::size_t i, const DataType& t) const {
    switch (t.root()) {
        case TypeRoot::Date: {
            std::int64_t local = row.get_long(i) * temporal::kMillisPerDay;
            return rfc3339(local, zone_.offset_for_local(temporal::floor_div(local, 1000)));
        }
        case TypeRoot::Time: {
            std::int64_t local =
                row.get_long(i) / 1'000'000;  // nanos of day → millis on 1970-01-01
            return rfc3339(local, zone_.offset_for_local(local / 1000));
        }
        case TypeRoot::Timestamp: {
            Timestamp ts = row.get_timestamp(i);
            return rfc3339(ts.millis, zone_.offset_for_local(temporal::floor_div(ts.millis, 1000)));
        }
        case TypeRoot::TimestampLtz: {
            Timestamp ts = row.get_timestamp(i);
            int off = zone_.offset_at(temporal::floor_div(ts.millis, 1000));
            return rfc3339(ts.millis + static_cast<std::int64_t>(off) * 1000, off);
        }
        case TypeRoot::TimestampTz: {
            ZonedTimestamp z = row.get_zoned_timestamp(i);
            return rfc3339(z.instant.millis + static_cast<std::int64_t>(z.offset_seconds) * 1000,
                           z.offset_seconds);
        }
        default:
            return std::string(row.get_string(i));  // a string column passed through
    }
}

namespace {

void json_value(json::Writer& w, RowView r, std::size_t i, const DataType& t);

void json_nested_row(json::Writer& w, RowView r, const DataType& t) {
    w.begin_object();
    const auto& fields = t.fields();
    for (std::size_t k = 0; k < fields.size() && k < r.arity(); ++k) {
        w.key(fields[k].name);
        json_value(w, r, k, *fields[k].type);
    }
    w.end_object();
}

void json_value(json::Writer& w, RowView r, std::size_t i, const DataType& t) {
    if (r.is_null(i)) {
        w.null();
        return;
    }
    switch (t.root()) {
        case TypeRoot::Boolean:
            w.boolean(r.get_bool(i));
            break;
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            w.integer(r.get_long(i));
            break;
        case TypeRoot::Float:
        case TypeRoot::Double:
            w.number(r.get_double(i));
            break;
        case TypeRoot::Decimal:
            w.raw(r.get_decimal(i).to_string(t.scale()));
            break;
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            w.string(base64(r.get_bytes(i)));
            break;
        case TypeRoot::Array: {
            RowView a = r.get_array(i);
            w.begin_array();
            for (std::size_t k = 0; k < a.arity(); ++k) json_value(w, a, k, t.element());
            w.end_array();
            break;
        }
        case TypeRoot::Map: {
            RowView keys = r.get_map_keys(i), values = r.get_map_values(i);
            w.begin_object();
            for (std::size_t k = 0; k < keys.arity(); ++k) {
                w.key(keys.is_null(k) ? "null" : format_field(keys, k, t.key()));
                json_value(w, values, k, t.value());
            }
            w.end_object();
            break;
        }
        case TypeRoot::Row:
            json_nested_row(w, r.get_row(i), t);
            break;
        default:
            w.string(format_field(r, i, t));
            break;
    }
}

}  // namespace

void RecordEncoder::encode_field(const FieldMapping& f, RowView row, std::string& out,
                                 const std::string& key) const {
    auto i = static_cast<std::size_t>(f.column);
    const DataType& t = f.source;
    auto fail = [&](const std::string& what) {
        throw EncodeError("VikingDB sink: table " + table_.str() + ", primary key " + key +
                          ", field `" + f.name + "`: " + what);
    };
    json::Writer w(out);
    w.key(f.name);
    switch (f.type) {
        case VType::Int64:
            if (t.root() == TypeRoot::Decimal) {
                Decimal d = row.get_decimal(i);
                if (d.unscaled > std::numeric_limits<std::int64_t>::max() ||
                    d.unscaled < std::numeric_limits<std::int64_t>::min())
                    fail(d.to_string(0) + " does not fit int64");
                w.raw(d.to_string(0));
            } else {
                w.integer(row.get_long(i));
            }
            break;
        case VType::Float32: {
            double v = 0;
            number_at(row, i, t, v);
            if (!std::isfinite(v) || std::fabs(v) > kFloat32Max)
                fail("value " + std::to_string(v) + " is not a finite float32");
            w.number(v);
            break;
        }
        case VType::Bool:
            w.boolean(row.get_bool(i));
            break;
        case VType::String:
        case VType::Text:
        case VType::Image:
        case VType::GeoPoint:
            w.string(row.get_string(i));
            break;
        case VType::DateTime:
            w.string(date_time(row, i, t));
            break;
        case VType::Video:
            if (t.is_character()) {
                w.begin_object().key("value").string(row.get_string(i)).end_object();
            } else {
                RowView r = row.get_row(i);
                w.begin_object();
                const auto& fields = t.fields();
                for (std::size_t k = 0; k < fields.size() && k < r.arity(); ++k) {
                    if (r.is_null(k)) continue;
                    if (fields[k].name == "value") w.key("value").string(r.get_string(k));
                    double fps = 0;
                    if (fields[k].name == "fps" && number_at(r, k, *fields[k].type, fps))
                        w.key("fps").number(fps);
                }
                w.end_object();
            }
            break;
        case VType::ListString:
        case VType::ListInt64: {
            RowView a = row.get_array(i);
            const DataType& e = t.element();
            w.begin_array();
            for (std::size_t k = 0; k < a.arity(); ++k) {
                if (a.is_null(k)) fail("list element " + std::to_string(k) + " is NULL");
                if (f.type == VType::ListString)
                    w.string(a.get_string(k));
                else if (e.root() == TypeRoot::Decimal)
                    w.raw(a.get_decimal(k).to_string(0));
                else
                    w.integer(a.get_long(k));
            }
            w.end_array();
            break;
        }
        case VType::Vector: {
            RowView a = row.get_array(i);
            if (f.dim && a.arity() != static_cast<std::uint32_t>(*f.dim))
                fail("vector has dimension " + std::to_string(a.arity()) +
                     ", the collection expects " + std::to_string(*f.dim));
            w.begin_array();
            for (std::size_t k = 0; k < a.arity(); ++k) {
                double v = 0;
                if (!number_at(a, k, t.element(), v))
                    fail("vector element " + std::to_string(k) + " is NULL");
                if (!std::isfinite(v) || std::fabs(v) > kFloat32Max)
                    fail("vector element " + std::to_string(k) + " is not a finite float32 (" +
                         std::to_string(v) + ")");
                w.number(v);
            }
            w.end_array();
            break;
        }
        case VType::SparseVector: {
            RowView keys = row.get_map_keys(i), values = row.get_map_values(i);
            w.begin_object();
            for (std::size_t k = 0; k < keys.arity(); ++k) {
                double v = 0;
                if (keys.is_null(k)) fail("sparse vector has a NULL token");
                if (!number_at(values, k, t.value(), v) || !std::isfinite(v))
                    fail("sparse vector weight of '" + std::string(keys.get_string(k)) +
                         "' is NULL or not finite");
                w.key(keys.get_string(k)).number(v);
            }
            w.end_object();
            break;
        }
        case VType::JsonString: {
            std::string text;
            json::Writer inner(text);
            if (t.root() == TypeRoot::Binary || t.root() == TypeRoot::Varbinary)
                text = base64(row.get_bytes(i));
            else
                json_value(inner, row, i, t);
            w.string(text);
            break;
        }
    }
}

void RecordEncoder::encode(RowView row, const std::string& key, std::string& out) const {
    out.push_back('{');
    bool first = true;
    for (const auto& f : spec_.fields) {
        auto i = static_cast<std::size_t>(f.column);
        if (i >= row.arity() || row.is_null(i)) {
            if (requires_value(f.type))
                throw EncodeError("VikingDB sink: table " + table_.str() + ", primary key " + key +
                                  ", field `" + f.name + "` is NULL but a " + wire_name(f.type) +
                                  " field needs a value in every upsert");
            continue;  // the collection's default applies
        }
        if (!first) out.push_back(',');
        first = false;
        encode_field(f, row, out, key);
    }
    out.push_back('}');
}

}  // namespace cdcd::vikingdb
