// value.format: json — every message is one flat JSON object, read as an INSERT.
#include "formats/json/message_parser.h"

namespace cdcd::kafka {

namespace {

class JsonParser final : public FormatParser {
  public:
    void parse(simdjson::ondemand::document& doc, ParsedMessage& out) override {
        const simdjson::ondemand::json_type type = doc.type();
        if (type != simdjson::ondemand::json_type::object)
            throw ParseError(std::string("the value is ") + json_type_name(type) +
                             ", not a JSON object");
        Image& img = out.new_image();
        read_image(doc.get_object(), img, 1, out.max_json_depth);
        out.changes.push_back({OpType::Insert, -1, 0});
    }
};

}  // namespace

std::unique_ptr<FormatParser> make_json_parser() {
    return std::make_unique<JsonParser>();
}

}  // namespace cdcd::kafka
