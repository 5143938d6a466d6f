// Reading one JSON object into a row image, and small helpers (shared by the three value formats).
#include <algorithm>

#include "formats/json/message_parser.h"

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

std::size_t json_nesting_depth(std::string_view json) {
    std::size_t depth = 0, deepest = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            deepest = std::max(deepest, ++depth);
        } else if ((c == '}' || c == ']') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

namespace {

// A field holding an object or array: its JSON text, checked against the depth limit.
std::string_view nested_text(std::string_view raw, std::string_view field, std::size_t depth,
                             std::size_t max_depth) {
    raw = trim_token(raw);
    const std::size_t total = depth + json_nesting_depth(raw);
    if (total > max_depth)
        throw LimitError("field '" + std::string(field) + "' nests JSON objects and arrays " +
                         std::to_string(total) + " levels deep (counted from the message's top), " +
                         "more than the limit of " + std::to_string(max_depth) + "; raise " +
                         MessageLimits::kJsonDepthOption + " to accept such messages");
    return raw;
}

}  // namespace

void read_image(simdjson::ondemand::object object, Image& image, std::size_t depth,
                std::size_t max_depth) {
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
                v.text = nested_text(nested.raw_json(), v.name, depth, max_depth);
                break;
            }
            case json_type::array: {
                v.kind = ValueKind::Raw;
                simdjson::ondemand::array nested = value.get_array();
                v.text = nested_text(nested.raw_json(), v.name, depth, max_depth);
                break;
            }
        }
        image.push_back(v);
    }
}

}  // namespace cdcd::kafka
