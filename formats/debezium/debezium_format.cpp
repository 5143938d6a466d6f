// value.format: debezium-json, with or without the {"schema":…,"payload":…} envelope.
#include "formats/debezium/connect_schema.h"
#include "formats/debezium/connect_value.h"
#include "formats/json/message_parser.h"

namespace cdcd::kafka {

namespace {

using simdjson::ondemand::json_type;

class DebeziumParser final : public FormatParser {
  public:
    void parse(simdjson::ondemand::document& doc, ParsedMessage& out) override {
        const json_type type = doc.type();
        if (type == json_type::null) return;  // tombstone
        if (type != json_type::object)
            throw ParseError(std::string("the value is ") + json_type_name(type) +
                             ", not a JSON object");
        schema_text_ = {};
        scratch_.clear();
        parse_envelope(doc.get_object(), out, true);
        if (out.connect_schema && !out.changes.empty()) apply_schema(out);
    }

  private:
    // Types every image by the message's schema (wherever in the message the schema was).
    void apply_schema(ParsedMessage& out) {
        if (schema_text_.empty())
            throw ParseError(
                "debezium-json.schema-include is true but the message has no \"schema\" object "
                "to take its column types from");
        const ConnectSchema& schema = schemas_.get(schema_text_);
        for (const ParsedChange& c : out.changes) {
            if (c.before >= 0)
                apply_connect_schema(out.images[static_cast<std::size_t>(c.before)], schema.before,
                                     "before", scratch_);
            if (c.after >= 0)
                apply_connect_schema(out.images[static_cast<std::size_t>(c.after)], schema.after,
                                     "after", scratch_);
        }
    }

    // Reads the table id fields of the `source` object; leaves captured_count short of the
    // number of fields when one is missing or not a string (the extractor then reports it).
    static void capture(simdjson::ondemand::value value, ParsedMessage& out, bool top) {
        out.captured_count = 0;
        if (top) out.captured_top = true;  // the top level's `source` decides, read or not
        simdjson::ondemand::object obj;
        if (value.get_object().get(obj)) return;
        const auto& leaves = *out.capture_leaves;
        std::size_t found = 0;
        bool seen[3] = {false, false, false};
        for (auto field : obj) {
            std::string_view key;
            if (field.unescaped_key().get(key)) return;
            for (std::size_t i = 0; i < leaves.size(); ++i) {
                if (seen[i] || key != leaves[i]) continue;
                if (field.value().get_string().get(out.captured[i])) return;
                seen[i] = true;
                ++found;
                break;
            }
            if (found == leaves.size()) break;
        }
        if (found == leaves.size()) out.captured_count = found;
    }

    void parse_envelope(simdjson::ondemand::object obj, ParsedMessage& out, bool top) {
        int before = -1, after = -1;
        std::string_view op;
        bool saw_payload = false;
        for (auto field : obj) {
            std::string_view key = field.unescaped_key();
            simdjson::ondemand::value value = field.value();
            if (key == "before" || key == "after") {
                const json_type type = value.type();
                if (type == json_type::null) continue;
                if (type != json_type::object)
                    throw ParseError("\"" + std::string(key) + "\" is " + json_type_name(type) +
                                     ", not an object");
                Image& img = out.new_image();
                // `after` of {"after":{…}} is level 2, of {"payload":{"after":{…}}} level 3.
                read_image(value.get_object(), img, top ? 2 : 3, out.max_json_depth);
                (key == "before" ? before : after) = static_cast<int>(out.image_count - 1);
            } else if (key == "op") {
                if (value.get_string().get(op))
                    throw ParseError("\"op\" is " + std::string(json_type_name(value.type())) +
                                     ", not a string");
            } else if (!out.capture_key.empty() && key == out.capture_key &&
                       (top || !out.captured_top)) {
                capture(value, out, top);
            } else if (key == "schema" && top && out.connect_schema) {
                const json_type type = value.type();
                if (type != json_type::object)
                    throw ParseError(std::string("\"schema\" is ") + json_type_name(type) +
                                     ", not an object");
                // A view into the message's bytes, which outlive this parse; read once the rest
                // of the message is known to be good.
                simdjson::ondemand::object schema = value.get_object();
                schema_text_ = schema.raw_json();
            } else if (key == "payload" && top) {
                saw_payload = true;
                const json_type type = value.type();
                if (type == json_type::null) return;  // tombstone with schema envelope
                if (type != json_type::object)
                    throw ParseError(std::string("\"payload\" is ") + json_type_name(type) +
                                     ", not an object");
                parse_envelope(value.get_object(), out, false);
            }
        }
        if (saw_payload) return;
        if (top && out.connect_schema)
            throw ParseError(
                "debezium-json.schema-include is true but the message has no schema envelope");
        if (op.empty()) throw ParseError("no \"op\" field");
        switch (op[0]) {
            case 'c':
            case 'r':
                if (after < 0) throw ParseError("op '" + std::string(op) + "' without \"after\"");
                out.changes.push_back({OpType::Insert, -1, after});
                return;
            case 'u':
                if (after < 0) throw ParseError("op 'u' without \"after\"");
                out.changes.push_back(
                    {before < 0 ? OpType::Replace : OpType::Update, before, after});
                return;
            case 'd':
                if (before < 0) throw ParseError("op 'd' without \"before\"");
                out.changes.push_back({OpType::Delete, before, -1});
                return;
            default:
                throw ParseError("unknown op '" + std::string(op) + "'");
        }
    }

    ConnectSchemaCache schemas_;
    std::string_view schema_text_;  // of the message being parsed
    ConnectScratch scratch_;
};

}  // namespace

std::unique_ptr<FormatParser> make_debezium_parser() {
    return std::make_unique<DebeziumParser>();
}

std::vector<std::string> debezium_key_fields(simdjson::ondemand::document& doc) {
    std::vector<std::string> names;
    if (doc.type() != json_type::object) return names;
    simdjson::ondemand::object obj = doc.get_object();
    std::vector<std::string> top;
    for (auto field : obj) {
        std::string_view key = field.unescaped_key();
        simdjson::ondemand::value value = field.value();
        if (key == "payload" && value.type() == json_type::object) {
            names.clear();
            for (auto inner : value.get_object())
                names.emplace_back(std::string_view(inner.unescaped_key()));
            return names;
        }
        top.emplace_back(key);
    }
    return top;
}

}  // namespace cdcd::kafka
