#include "pipeline/schema/schema.h"

namespace cdcd {

namespace {
// Doubles every occurrence of `mark` (EncodingUtils.escapeBackticks / escapeSingleQuotes).
std::string doubled(const std::string& text, char mark) {
    std::string out;
    out.reserve(text.size());
    for (char ch : text) {
        out.push_back(ch);
        if (ch == mark) out.push_back(ch);
    }
    return out;
}
}  // namespace

// Flink CDC's Column#asSummaryString: the comment comes before the default value, and only the
// name and the comment are escaped (the default value expression is printed as it is).
std::string Column::to_string() const {
    std::string s = "`" + doubled(name, '`') + "` " + type.to_string();
    if (!comment.empty()) s += " '" + doubled(comment, '\'') + "'";
    if (default_value) s += " '" + *default_value + "'";
    return s;
}

Schema::Schema(std::vector<Column> columns, std::vector<std::string> primary_keys,
               std::vector<std::string> partition_keys, std::map<std::string, std::string> options,
               std::string comment)
    : columns_(std::move(columns)),
      primary_keys_(std::move(primary_keys)),
      partition_keys_(std::move(partition_keys)),
      options_(std::move(options)),
      comment_(std::move(comment)) {}

int Schema::index_of(std::string_view name) const {
    for (size_t i = 0; i < columns_.size(); ++i) {
        if (columns_[i].name == name) return static_cast<int>(i);
    }
    return -1;
}

const Column* Schema::find(std::string_view name) const {
    int i = index_of(name);
    return i < 0 ? nullptr : &columns_[static_cast<size_t>(i)];
}

std::vector<std::string> Schema::column_names() const {
    std::vector<std::string> names;
    names.reserve(columns_.size());
    for (const auto& c : columns_) names.push_back(c.name);
    return names;
}

std::vector<int> Schema::primary_key_indexes() const {
    std::vector<int> out;
    for (const auto& k : primary_keys_) out.push_back(index_of(k));
    return out;
}

namespace {
std::string join(const std::vector<std::string>& parts, const char* sep) {
    std::string s;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i) s += sep;
        s += parts[i];
    }
    return s;
}
}  // namespace

std::string Schema::to_string() const {
    std::string s = "columns={";
    for (size_t i = 0; i < columns_.size(); ++i) {
        if (i) s += ",";
        s += columns_[i].to_string();
    }
    s += "}, primaryKeys=" + join(primary_keys_, ";");
    if (!partition_keys_.empty()) s += ", partitionKeys=" + join(partition_keys_, ";");
    s += ", options=(";
    if (!options_.empty()) {
        s += "{";
        bool first = true;
        for (const auto& [k, v] : options_) {
            if (!first) s += ", ";
            first = false;
            s += k;
            s += '=';
            s += v;
        }
        s += "}";
    }
    s += ")";
    if (!comment_.empty()) s += ", comment=" + comment_;
    return s;
}

SchemaBuilder& SchemaBuilder::column(std::string name, DataType type, std::string comment) {
    columns_.push_back(Column{std::move(name), std::move(type), std::move(comment), std::nullopt});
    return *this;
}
SchemaBuilder& SchemaBuilder::primary_key(std::vector<std::string> keys) {
    primary_keys_ = std::move(keys);
    return *this;
}
SchemaBuilder& SchemaBuilder::partition_key(std::vector<std::string> keys) {
    partition_keys_ = std::move(keys);
    return *this;
}
SchemaBuilder& SchemaBuilder::option(std::string key, std::string value) {
    options_[std::move(key)] = std::move(value);
    return *this;
}
SchemaBuilder& SchemaBuilder::comment(std::string comment) {
    comment_ = std::move(comment);
    return *this;
}
Schema SchemaBuilder::build() const {
    return Schema(columns_, primary_keys_, partition_keys_, options_, comment_);
}

}  // namespace cdcd
