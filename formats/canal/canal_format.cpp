// value.format: canal-json.
#include <unordered_map>

#include "formats/json/message_parser.h"
#include "regex/java_regex.h"

namespace cdcd::kafka {

namespace {

using simdjson::ondemand::json_type;

// A canal-json.*.include pattern, anchored (Flink: Pattern.matcher(value).matches()).
std::unique_ptr<RE2> include_pattern(const std::string& regex, const char* option) {
    if (regex.empty()) return nullptr;
    regex::Error error;
    auto re = regex::compile_java(regex, &error);
    if (!re)
        throw std::invalid_argument("`" + std::string(option) +
                                    "`: " + regex::refusal(regex, error));
    return re;
}

class CanalParser final : public FormatParser {
  public:
    explicit CanalParser(const CanalFilter& filter)
        : database_(include_pattern(filter.database_include, "canal-json.database.include")),
          table_(include_pattern(filter.table_include, "canal-json.table.include")) {}

    void parse(simdjson::ondemand::document& doc, ParsedMessage& out) override {
        const json_type top = doc.type();
        if (top == json_type::null) return;  // tombstone
        if (top != json_type::object)
            throw ParseError(std::string("the value is ") + json_type_name(top) +
                             ", not a JSON object");
        std::vector<int>& data = data_;
        std::vector<int>& old = old_;
        data.clear();
        old.clear();
        std::string_view type;
        bool ddl = false, saw_data = false;
        for (auto field : doc.get_object()) {
            std::string_view key = field.unescaped_key();
            simdjson::ondemand::value value = field.value();
            if (key == "data" || key == "old") {
                const json_type kind = value.type();
                if (kind == json_type::null) continue;
                if (kind != json_type::array)
                    throw ParseError("\"" + std::string(key) + "\" is " + json_type_name(kind) +
                                     ", not an array");
                if (key == "data") saw_data = true;
                for (auto element : value.get_array()) {
                    simdjson::ondemand::value row = element.value();
                    if (row.type() != json_type::object)
                        throw ParseError("\"" + std::string(key) + "\" holds " +
                                         json_type_name(row.type()) + ", not an object");
                    Image& img = out.new_image();
                    read_image(row.get_object(), img, 3, out.max_json_depth);  // {"data":[{…}]}
                    (key == "data" ? data : old).push_back(static_cast<int>(out.image_count - 1));
                }
            } else if (key == "type") {
                if (value.get_string().get(type))
                    throw ParseError("\"type\" is " + std::string(json_type_name(value.type())) +
                                     ", not a string");
            } else if (key == "isDdl") {
                if (value.type() == json_type::boolean) ddl = value.get_bool();
            } else if (key == "pkNames") {
                if (value.type() != json_type::array) continue;
                out.pk_names.clear();
                out.has_pk_names = true;
                for (auto element : value.get_array()) {
                    std::string_view name;
                    if (element.get_string().get(name))
                        throw ParseError("\"pkNames\" holds a value that is not a string");
                    out.pk_names.emplace_back(name);
                }
            }
        }
        if (ddl) return;
        if (type.empty()) throw ParseError("no \"type\" field");
        OpType op;
        if (type == "INSERT") {
            op = OpType::Insert;
        } else if (type == "UPDATE") {
            op = OpType::Update;
        } else if (type == "DELETE") {
            op = OpType::Delete;
        } else {
            return;  // CREATE, ALTER, QUERY, …: schema is inferred from the data
        }
        if (!saw_data) throw ParseError("no \"data\" array");
        for (std::size_t i = 0; i < data.size(); ++i) {
            int row = data[i];
            if (op == OpType::Insert) {
                out.changes.push_back({op, -1, row});
            } else if (op == OpType::Delete) {
                out.changes.push_back({op, row, -1});
            } else {
                out.changes.push_back({op, merge_old(out, row, i < old.size() ? old[i] : -1), row});
            }
        }
    }

    bool filters() const override { return database_ || table_; }

    bool excluded(simdjson::ondemand::document& doc) override {
        if (doc.type() != json_type::object) return false;  // parse() reports it
        bool database_matched = false, table_matched = false;
        for (auto field : doc.get_object()) {
            std::string_view key = field.unescaped_key();
            const bool database = key == "database";
            const RE2* pattern = database         ? database_.get()
                                 : key == "table" ? table_.get()
                                                  : nullptr;
            if (!pattern) continue;
            std::string_view name;
            if (field.value().get_string().get(name)) continue;  // not a string: matches nothing
            (database ? database_matched : table_matched) = RE2::FullMatch(name, *pattern);
        }
        // A missing field matches no pattern.
        return (database_ && !database_matched) || (table_ && !table_matched);
    }

  private:
    // before = the new row with the old values of the columns `old` lists (a field named twice:
    // its first occurrence). By name through a hash index: rows can be wide.
    int merge_old(ParsedMessage& out, int row, int old) {
        Image& before = out.new_image();
        const Image& after = out.images[static_cast<std::size_t>(row)];
        before = after;
        if (old >= 0) {
            positions_.clear();
            for (std::size_t i = 0; i < before.size(); ++i) positions_.emplace(before[i].name, i);
            for (const FieldValue& changed : out.images[static_cast<std::size_t>(old)]) {
                auto [it, fresh] = positions_.emplace(changed.name, before.size());
                if (fresh) {
                    before.push_back(changed);
                } else {
                    before[it->second] = changed;
                }
            }
        }
        return static_cast<int>(out.image_count - 1);
    }

    std::unique_ptr<RE2> database_, table_;  // canal-json.*.include, null: all
    std::vector<int> data_, old_;
    std::unordered_map<std::string_view, std::size_t> positions_;  // merge_old's, reused
};

}  // namespace

std::unique_ptr<FormatParser> make_canal_parser(const CanalFilter& filter) {
    return std::make_unique<CanalParser>(filter);
}

std::unique_ptr<FormatParser> make_json_parser();
std::unique_ptr<FormatParser> make_debezium_parser();

std::unique_ptr<FormatParser> make_format_parser(ValueFormat format, const CanalFilter& canal) {
    switch (format) {
        case ValueFormat::Json:
            return make_json_parser();
        case ValueFormat::DebeziumJson:
            return make_debezium_parser();
        case ValueFormat::CanalJson:
            return make_canal_parser(canal);
    }
    return nullptr;
}

}  // namespace cdcd::kafka
