#include "formats/debezium/connect_value.h"

#include <cstdint>

#include "formats/json/message_parser.h"
#include "pipeline/data/temporal.h"
#include "pipeline/util/base64.h"

namespace cdcd::kafka {

std::string& ConnectScratch::next() {
    if (used_ == strings_.size()) strings_.emplace_back();
    std::string& s = strings_[used_++];
    s.clear();
    return s;
}

namespace {

bool is_number(ValueKind k) {
    return k == ValueKind::Int || k == ValueKind::Decimal || k == ValueKind::Double;
}
bool is_string(ValueKind k) {
    return k == ValueKind::String || k == ValueKind::Date || k == ValueKind::Timestamp ||
           k == ValueKind::TimestampLtz;
}

const char* json_kind(ValueKind k) {
    if (is_number(k)) return "a number";
    if (is_string(k)) return "a string";
    if (k == ValueKind::Bool) return "a boolean";
    if (k == ValueKind::Null) return "null";
    return "an object or array";
}

struct FieldError {
    std::string_view image;
    const ConnectField& field;
    [[noreturn]] void operator()(const std::string& why) const {
        throw ParseError("field '" + std::string(image) + "." + field.name + "' (declared " +
                         field.type_text + "): " + why);
    }
    [[noreturn]] void wrong_kind(const FieldValue& v, const char* expected) const {
        (*this)(std::string("the value is ") + json_kind(v.kind) + ", not " + expected);
    }
};

// Kafka Connect's Decimal: the unscaled value as big-endian two's complement bytes.
Decimal unscaled_from_bytes(std::string_view bytes, const FieldError& fail) {
    if (bytes.empty()) fail("the Decimal's value has no bytes");
    if (bytes.size() > 16) fail("the Decimal's value is wider than 38 digits");
    __int128 v = static_cast<unsigned char>(bytes[0]);
    if (v >= 128) v -= 256;  // the sign bit
    for (std::size_t i = 1; i < bytes.size(); ++i)
        v = v * 256 + static_cast<unsigned char>(bytes[i]);
    return Decimal{v};
}

std::string_view decode_base64(std::string_view text, ConnectScratch& scratch,
                               const FieldError& fail) {
    auto bytes = base64_decode(text);
    if (!bytes) fail("'" + std::string(text.substr(0, 64)) + "' is not base64");
    std::string& s = scratch.next();
    s = std::move(*bytes);
    return s;
}

// A decimal's text as classify_number reads a literal (kind Decimal or Int, precision, scale).
void set_decimal_text(FieldValue& v, Decimal d, int scale, ConnectScratch& scratch) {
    std::string& s = scratch.next();
    s = d.to_string(scale);
    classify_number(v, s);
}

// A decimal value within the declared DECIMAL(p, s): at most p - s integer digits.
void check_integer_digits(const FieldValue& v, const ConnectField& f, const FieldError& fail) {
    if (f.type.root() != TypeRoot::Decimal) return;  // wider than 38 digits: kept as text
    int digits = 0;
    bool leading = true;
    for (char c : v.text) {
        if (c == '.' || c == 'e' || c == 'E') break;
        if (c < '0' || c > '9') continue;
        if (leading && c == '0') continue;
        leading = false;
        ++digits;
    }
    if (digits > f.type.precision() - f.type.scale())
        fail("'" + std::string(v.text) + "' has more integer digits than " + f.type.to_string() +
             " holds");
}

void read_decimal(FieldValue& v, const ConnectField& f, ConnectScratch& scratch,
                  const FieldError& fail) {
    if (v.kind == ValueKind::String) {
        Decimal d = unscaled_from_bytes(decode_base64(v.text, scratch, fail), fail);
        set_decimal_text(v, d, f.scale, scratch);
    } else if (!is_number(v.kind)) {
        // A number: what Flink CDC's serializer writes for a DECIMAL under this schema.
        fail.wrong_kind(v, "a base64 string or a number");
    }
    check_integer_digits(v, f, fail);
}

void read_variable_scale_decimal(FieldValue& v, ConnectScratch& scratch, const FieldError& fail) {
    if (v.kind != ValueKind::Raw) fail.wrong_kind(v, "an object {\"scale\",\"value\"}");
    simdjson::dom::element root;
    simdjson::dom::object obj;
    std::int64_t scale = 0;
    std::string_view value;
    if (scratch.parser().parse(v.text.data(), v.text.size(), true).get(root) ||
        root.get_object().get(obj) || obj["scale"].get_int64().get(scale) ||
        obj["value"].get_string().get(value))
        fail("the value is not an object {\"scale\": int, \"value\": base64 string}");
    if (scale < 0 || scale > 38) fail("scale " + std::to_string(scale) + " is not 0 to 38");
    const std::string_view bytes = decode_base64(value, scratch, fail);
    set_decimal_text(v, unscaled_from_bytes(bytes, fail), static_cast<int>(scale), scratch);
    if (v.kind == ValueKind::Double) fail("the value has more than 38 digits");
}

// Dates and timestamps within the years 0000 to 9999, as their text forms (and Flink) allow;
// beyond them epoch values are no calendar dates cdcd can print.
bool within_calendar(std::int64_t epoch_days) {
    static const std::int64_t first = temporal::days_from_civil(0, 1, 1);
    static const std::int64_t last = temporal::days_from_civil(9999, 12, 31);
    return epoch_days >= first && epoch_days <= last;
}

void read_time(FieldValue& v, std::int64_t nanos_per_unit, const FieldError& fail) {
    std::int64_t nanos = 0;
    if (v.kind == ValueKind::Int) {
        if (v.integer < 0 || v.integer >= temporal::kNanosPerDay / nanos_per_unit)
            fail(std::to_string(v.integer) + " is not a time of day (0 to 24 hours)");
        nanos = v.integer * nanos_per_unit;
    } else if (is_string(v.kind)) {
        auto parsed = temporal::parse_time(v.text);
        if (!parsed) fail("'" + std::string(v.text) + "' is not a time HH:mm:ss[.f]");
        nanos = *parsed;
    } else {
        fail.wrong_kind(v, "a number");
    }
    v.kind = ValueKind::Time;
    v.integer = nanos;
}

void read_timestamp(FieldValue& v, std::int64_t units_per_milli, std::int64_t nanos_per_unit,
                    const FieldError& fail) {
    if (v.kind == ValueKind::Int) {
        v.nanos_of_milli = static_cast<std::int32_t>(
            temporal::floor_mod(v.integer, units_per_milli) * nanos_per_unit);
        v.integer = temporal::floor_div(v.integer, units_per_milli);
        if (!within_calendar(temporal::floor_div(v.integer, temporal::kMillisPerDay)))
            fail("epoch value out of the years 0000 to 9999");
    } else if (v.kind == ValueKind::Date) {
        v.integer *= temporal::kMillisPerDay;  // midnight
        v.nanos_of_milli = 0;
    } else if (v.kind != ValueKind::Timestamp) {
        if (is_string(v.kind))
            fail("'" + std::string(v.text) + "' is not a timestamp yyyy-MM-dd HH:mm:ss[.f] " +
                 "(without an offset)");
        fail.wrong_kind(v, "an integer");
    }
    v.kind = ValueKind::Timestamp;
}

void read_zoned_timestamp(FieldValue& v, const FieldError& fail) {
    if (v.kind != ValueKind::TimestampLtz) {
        if (is_string(v.kind))
            fail("'" + std::string(v.text) +
                 "' is not an ISO-8601 timestamp with an offset (2023-01-01T10:00:00Z)");
        fail.wrong_kind(v, "a string");
    }
    // TIMESTAMP_LTZ(0, 3, 6 or 9) as Flink CDC infers it, not one type per count of digits.
    v.precision = static_cast<std::uint8_t>((v.precision + 2) / 3 * 3);
}

void apply_field(FieldValue& v, const ConnectField& f, ConnectScratch& scratch,
                 const FieldError& fail) {
    v.declared = &f.type;
    if (v.kind == ValueKind::Null) {
        if (!f.optional) fail("the value is null but the field is not optional");
        return;
    }
    auto integer = [&](std::int64_t lo, std::int64_t hi) {
        if (v.kind != ValueKind::Int) fail.wrong_kind(v, "an integer");
        if (v.integer < lo || v.integer > hi)
            fail(std::to_string(v.integer) + " is out of the type's range");
    };
    switch (f.value) {
        case ConnectValue::Int8:
            integer(INT8_MIN, INT8_MAX);
            return;
        case ConnectValue::Int16:
            integer(INT16_MIN, INT16_MAX);
            return;
        case ConnectValue::Int32:
            integer(INT32_MIN, INT32_MAX);
            return;
        case ConnectValue::Int64:
            integer(INT64_MIN, INT64_MAX);
            return;
        case ConnectValue::Float:
            if (!is_number(v.kind)) fail.wrong_kind(v, "a number");
            v.kind = ValueKind::Double;  // read from its literal at store()
            return;
        case ConnectValue::Boolean:
            if (v.kind != ValueKind::Bool) fail.wrong_kind(v, "a boolean");
            return;
        case ConnectValue::String:
            if (!is_string(v.kind)) fail.wrong_kind(v, "a string");
            v.kind = ValueKind::String;  // a text column, whatever the text looks like
            return;
        case ConnectValue::Bytes:
            if (!is_string(v.kind)) fail.wrong_kind(v, "a base64 string");
            v.text = decode_base64(v.text, scratch, fail);
            v.kind = ValueKind::Bytes;
            return;
        case ConnectValue::Decimal:
            read_decimal(v, f, scratch, fail);
            return;
        case ConnectValue::VariableScaleDecimal:
            read_variable_scale_decimal(v, scratch, fail);
            v.declared = nullptr;  // DECIMAL(precision, scale) of the value, as Flink CDC
            return;
        case ConnectValue::Date:
            if (v.kind == ValueKind::Int) {
                if (!within_calendar(v.integer))
                    fail(std::to_string(v.integer) +
                         " epoch days is out of the years 0000 to 9999");
                v.kind = ValueKind::Date;  // v.integer: epoch days
            } else if (v.kind != ValueKind::Date) {
                if (is_string(v.kind)) fail("'" + std::string(v.text) + "' is not a date");
                fail.wrong_kind(v, "an integer");
            }
            return;
        case ConnectValue::TimeMillis:
            read_time(v, 1'000'000, fail);
            return;
        case ConnectValue::TimeMicros:
            read_time(v, 1'000, fail);
            return;
        case ConnectValue::TimeNanos:
            read_time(v, 1, fail);
            return;
        case ConnectValue::TimestampMillis:
            read_timestamp(v, 1, 0, fail);
            return;
        case ConnectValue::TimestampMicros:
            read_timestamp(v, 1'000, 1'000, fail);
            return;
        case ConnectValue::TimestampNanos:
            read_timestamp(v, 1'000'000, 1, fail);
            return;
        case ConnectValue::ZonedTimestamp:
            read_zoned_timestamp(v, fail);
            v.declared = nullptr;  // TIMESTAMP_LTZ of the value's precision, as Flink CDC
            return;
        case ConnectValue::Nested:
            if (v.kind != ValueKind::Raw) fail.wrong_kind(v, "an object or array");
            return;
    }
}

}  // namespace

void apply_connect_schema(Image& image, const ConnectStruct& schema, std::string_view image_name,
                          ConnectScratch& scratch) {
    if (!schema.present)
        throw ParseError("the message's schema declares no \"" + std::string(image_name) +
                         "\" struct for its \"" + std::string(image_name) + "\" image");
    for (std::size_t k = 0; k < image.size(); ++k) {
        FieldValue& v = image[k];
        const ConnectField* f = schema.find(v.name, k);
        if (!f)
            throw ParseError("field '" + std::string(image_name) + "." + std::string(v.name) +
                             "' is not in the message's schema");
        apply_field(v, *f, scratch, FieldError{image_name, *f});
    }
}

}  // namespace cdcd::kafka
