#include "formats/debezium/connect_schema.h"

#include <charconv>
#include <cstdint>
#include <optional>

#include "formats/json/message_parser.h"

namespace cdcd::kafka {

namespace {

constexpr int kMaxDecimalPrecision = 38;
// Flink CDC's DebeziumSchemaDataTypeInference: a Decimal without connect.decimal.precision.
constexpr int kDefaultDecimalPrecision = 20;

[[noreturn]] void malformed(std::string_view image, std::string_view field,
                            const std::string& why) {
    std::string where = "the message's schema";
    if (!image.empty()) where += ", field '" + std::string(image) + "." + std::string(field) + "'";
    throw ParseError(where + ": " + why);
}

std::string_view string_member(simdjson::dom::object o, const char* key) {
    std::string_view s;
    if (o[key].get_string().get(s)) return {};
    return s;
}

// A Decimal parameter ("scale": "2"); JsonConverter writes parameters as strings.
std::optional<int> int_parameter(simdjson::dom::object params, const char* key) {
    simdjson::dom::element e;
    if (params[key].get(e)) return std::nullopt;
    std::string_view s;
    std::int64_t n = 0;
    if (!e.get_string().get(s)) {
        int v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
        return v;
    }
    if (!e.get_int64().get(n) && n >= INT32_MIN && n <= INT32_MAX) return static_cast<int>(n);
    return std::nullopt;
}

ConnectField parse_field(simdjson::dom::object o, std::string_view image) {
    ConnectField f;
    std::string_view name = string_member(o, "field");
    if (name.empty()) malformed(image, "?", "a field without a \"field\" name");
    f.name = std::string(name);
    std::string_view type = string_member(o, "type");
    if (type.empty()) malformed(image, name, "no \"type\"");
    std::string_view logical = string_member(o, "name");
    bool optional = false;  // JsonConverter's default
    if (simdjson::dom::element e; !o["optional"].get(e) && e.get_bool().get(optional))
        malformed(image, name, "\"optional\" is not a boolean");
    f.optional = optional;
    f.type_text = std::string(type);
    if (!logical.empty()) f.type_text += " " + std::string(logical);

    auto set = [&](ConnectValue v, DataType t) {
        f.value = v;
        f.type = std::move(t);
    };
    if (type == "int8") {
        set(ConnectValue::Int8, DataType::tinyint());
    } else if (type == "int16") {
        set(ConnectValue::Int16, DataType::smallint());
    } else if (type == "int32") {
        if (logical == "io.debezium.time.Date" || logical == "org.apache.kafka.connect.data.Date") {
            set(ConnectValue::Date, DataType::date());
        } else if (logical == "io.debezium.time.Time" ||
                   logical == "org.apache.kafka.connect.data.Time") {
            set(ConnectValue::TimeMillis, DataType::time(3));
        } else {
            set(ConnectValue::Int32, DataType::int_());
        }
    } else if (type == "int64") {
        if (logical == "io.debezium.time.MicroTime") {
            set(ConnectValue::TimeMicros, DataType::time(6));
        } else if (logical == "io.debezium.time.NanoTime") {
            set(ConnectValue::TimeNanos, DataType::time(9));
        } else if (logical == "io.debezium.time.Timestamp" ||
                   logical == "org.apache.kafka.connect.data.Timestamp") {
            set(ConnectValue::TimestampMillis, DataType::timestamp(3));
        } else if (logical == "io.debezium.time.MicroTimestamp") {
            set(ConnectValue::TimestampMicros, DataType::timestamp(6));
        } else if (logical == "io.debezium.time.NanoTimestamp") {
            set(ConnectValue::TimestampNanos, DataType::timestamp(9));
        } else {
            set(ConnectValue::Int64, DataType::bigint());
        }
    } else if (type == "float32" || type == "float") {
        set(ConnectValue::Float, DataType::float_());
    } else if (type == "float64" || type == "double") {
        set(ConnectValue::Float, DataType::double_());
    } else if (type == "boolean") {
        set(ConnectValue::Boolean, DataType::boolean());
    } else if (type == "string") {
        if (logical == "io.debezium.time.ZonedTimestamp") {
            set(ConnectValue::ZonedTimestamp, DataType::timestamp_ltz(0));
        } else {
            // Also io.debezium.data.Json, Enum, EnumSet, Uuid, Xml, io.debezium.time.ZonedTime
            // (cdcd has no TIME WITH TIME ZONE: the text is kept).
            set(ConnectValue::String, DataType::string());
        }
    } else if (type == "bytes") {
        if (logical == "org.apache.kafka.connect.data.Decimal") {
            simdjson::dom::object params;
            if (o["parameters"].get_object().get(params))
                malformed(image, name, "a Decimal without \"parameters\"");
            auto scale = int_parameter(params, "scale");
            if (!scale || *scale < 0 || *scale > kMaxDecimalPrecision)
                malformed(image, name, "a Decimal's \"scale\" parameter is missing or not 0 to 38");
            int precision = kDefaultDecimalPrecision;
            simdjson::dom::element e;
            if (!params["connect.decimal.precision"].get(e)) {
                auto p = int_parameter(params, "connect.decimal.precision");
                if (!p || *p < 1)
                    malformed(image, name,
                              "a Decimal's \"connect.decimal.precision\" is not a positive number");
                precision = *p;
            }
            f.scale = *scale;
            if (precision > kMaxDecimalPrecision) {
                // As Flink CDC: wider than DECIMAL holds, kept as its decimal text.
                set(ConnectValue::Decimal, DataType::string());
            } else {
                if (*scale > precision)
                    malformed(image, name,
                              "a Decimal's scale " + std::to_string(*scale) +
                                  " is larger than its precision " + std::to_string(precision));
                set(ConnectValue::Decimal, DataType::decimal(precision, *scale));
            }
        } else {
            set(ConnectValue::Bytes, DataType::bytes());
        }
    } else if (type == "struct") {
        if (logical == "io.debezium.data.VariableScaleDecimal") {
            set(ConnectValue::VariableScaleDecimal, DataType::decimal(10, 0));
        } else {
            set(ConnectValue::Nested, DataType::string());
        }
    } else if (type == "array" || type == "map") {
        set(ConnectValue::Nested, DataType::string());
    } else {
        malformed(image, name, "unknown type '" + std::string(type) + "'");
    }
    if (!optional) f.type = f.type.not_null();
    return f;
}

void parse_struct(simdjson::dom::object o, std::string_view image, ConnectStruct& out) {
    if (string_member(o, "type") != "struct")
        malformed({}, {}, "\"" + std::string(image) + "\" is not a struct");
    simdjson::dom::array fields;
    if (o["fields"].get_array().get(fields))
        malformed({}, {}, "\"" + std::string(image) + "\" has no \"fields\" array");
    out.present = true;
    for (simdjson::dom::element e : fields) {
        simdjson::dom::object fo;
        if (e.get_object().get(fo))
            malformed({}, {}, "a field of \"" + std::string(image) + "\" is not an object");
        ConnectField f = parse_field(fo, image);
        if (!out.index.emplace(f.name, out.fields.size()).second)
            malformed(image, f.name, "declared twice");
        out.fields.push_back(std::move(f));
    }
}

}  // namespace

const ConnectField* ConnectStruct::find(std::string_view name, std::size_t hint) const {
    if (hint < fields.size() && fields[hint].name == name) return &fields[hint];
    auto it = index.find(std::string(name));
    return it == index.end() ? nullptr : &fields[it->second];
}

ConnectSchema parse_connect_schema(std::string_view json, simdjson::dom::parser& parser) {
    simdjson::dom::element root;
    if (auto error = parser.parse(json.data(), json.size(), true).get(root))
        malformed({}, {}, std::string("not valid JSON: ") + simdjson::error_message(error));
    simdjson::dom::object obj;
    if (root.get_object().get(obj)) malformed({}, {}, "not a JSON object");
    simdjson::dom::array fields;
    if (obj["fields"].get_array().get(fields)) malformed({}, {}, "no \"fields\" array");
    ConnectSchema schema;
    for (simdjson::dom::element e : fields) {
        simdjson::dom::object fo;
        if (e.get_object().get(fo)) malformed({}, {}, "an envelope field is not an object");
        std::string_view name = string_member(fo, "field");
        if (name == "before" && !schema.before.present) parse_struct(fo, name, schema.before);
        if (name == "after" && !schema.after.present) parse_struct(fo, name, schema.after);
    }
    if (!schema.before.present && !schema.after.present)
        malformed({}, {}, "it declares neither \"before\" nor \"after\"");
    return schema;
}

const ConnectSchema& ConnectSchemaCache::get(std::string_view json) {
    if (last_ && json == last_text_) return *last_;
    auto it = schemas_.find(std::string(json));
    if (it == schemas_.end()) {
        auto parsed = std::make_shared<const ConnectSchema>(parse_connect_schema(json, parser_));
        if (schemas_.size() >= kMaxEntries || bytes_ + json.size() > kMaxBytes) {
            schemas_.clear();
            bytes_ = 0;
        }
        bytes_ += json.size();
        it = schemas_.emplace(std::string(json), std::move(parsed)).first;
    }
    last_text_.assign(json);
    last_ = it->second;
    return *last_;
}

}  // namespace cdcd::kafka
