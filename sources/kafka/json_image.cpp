// Reading one JSON object into a row image, and small helpers (shared by the three value formats).
#include "sources/kafka/message_parser.h"

namespace cdcd::kafka {

namespace {

std::string_view trim_token(std::string_view s) {
    while (!s.empty() &&
           (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

}  // namespace

void rewind(simdjson::ondemand::document& doc) {
    if (!doc.is_alive()) throw ParseError("the JSON document could not be read to its end");
    doc.rewind();
}

const char* json_type_name(simdjson::ondemand::json_type type) {
    using simdjson::ondemand::json_type;
    switch (type) {
        case json_type::object:
            return "an object";
        case json_type::array:
            return "an array";
        case json_type::string:
            return "a string";
        case json_type::number:
            return "a number";
        case json_type::boolean:
            return "a boolean";
        case json_type::null:
            return "null";
    }
    return "an unknown JSON type";
}

void read_image(simdjson::ondemand::object object, Image& image) {
    using simdjson::ondemand::json_type;
    for (auto field : object) {
        FieldValue v;
        v.name = field.unescaped_key();
        simdjson::ondemand::value value = field.value();
        switch (value.type()) {
            case json_type::null:
                v.kind = ValueKind::Null;
                if (!value.is_null())
                    throw ParseError("invalid literal for field " + std::string(v.name));
                break;
            case json_type::boolean:
                v.kind = ValueKind::Bool;
                v.boolean = value.get_bool();
                break;
            case json_type::number:
                classify_number(v, trim_token(value.raw_json_token()));
                break;
            case json_type::string:
                v.text = value.get_string();
                classify_string(v);
                break;
            case json_type::object: {
                v.kind = ValueKind::Raw;
                simdjson::ondemand::object nested = value.get_object();
                v.text = trim_token(nested.raw_json());
                break;
            }
            case json_type::array: {
                v.kind = ValueKind::Raw;
                simdjson::ondemand::array nested = value.get_array();
                v.text = trim_token(nested.raw_json());
                break;
            }
        }
        image.push_back(v);
    }
}

}  // namespace cdcd::kafka
