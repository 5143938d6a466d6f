#include "sources/kafka/table_id_extractor.h"

#include "formats/json/message_parser.h"

namespace cdcd::kafka {

namespace {

// doc.at_pointer() rewinds first, which crashes on a document an earlier error abandoned.
simdjson::simdjson_result<simdjson::ondemand::value> at(simdjson::ondemand::document& doc,
                                                        std::string_view pointer) {
    if (!doc.is_alive()) throw ParseError("the JSON document could not be read to its end");
    return doc.at_pointer(pointer);
}

}  // namespace

std::string TableIdExtractor::to_pointer(const std::string& path) {
    std::string p = path;
    if (p.rfind("$.", 0) == 0) p = p.substr(2);
    std::string out = "/";
    for (char c : p) {
        if (c == '.') {
            out.push_back('/');
        } else if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out.push_back(c);
        }
    }
    return out;
}

TableIdExtractor::TableIdExtractor(const std::vector<std::string>& fields, bool payload_fallback,
                                   std::size_t max_tables)
    : paths_(fields), payload_fallback_(payload_fallback), max_tables_(max_tables) {
    for (const auto& f : fields) {
        pointers_.push_back(to_pointer(f));
        payload_pointers_.push_back("/payload" + pointers_.back());
    }
    grouped_ = !pointers_.empty();
    for (const auto& p : pointers_) {
        auto slash = p.rfind('/');
        std::string parent = p.substr(0, slash), leaf = p.substr(slash + 1);
        if (leaf.find('~') != std::string::npos || (!leaves_.empty() && parent != parent_pointer_))
            grouped_ = false;
        parent_pointer_ = parent;
        leaves_.push_back(leaf);
    }
    payload_parent_pointer_ = "/payload" + parent_pointer_;
    if (grouped_ && parent_pointer_.size() > 1 &&
        parent_pointer_.find('/', 1) == std::string::npos &&
        parent_pointer_.find('~') == std::string::npos)
        capture_key_ = parent_pointer_.substr(1);
}

void TableIdExtractor::extract_grouped(simdjson::ondemand::document& doc) {
    simdjson::ondemand::object obj;
    if (parent_pointer_.empty()) {
        if (doc.get_object().get(obj)) throw ParseError("the document is not a JSON object");
    } else {
        auto parent = at(doc, parent_pointer_);
        if (parent.error() == simdjson::NO_SUCH_FIELD && payload_fallback_)
            parent = at(doc, payload_parent_pointer_);
        if (parent.error())
            throw ParseError("table id field '" + paths_[0] +
                             "': " + simdjson::error_message(parent.error()));
        if (parent.get_object().get(obj))
            throw ParseError("table id field '" + paths_[0] + "': parent is not an object");
    }
    bool found[3] = {false, false, false};
    std::size_t remaining = leaves_.size();
    for (auto field : obj) {
        std::string_view key;
        if (field.unescaped_key().get(key)) throw ParseError("invalid key");
        for (std::size_t i = 0; i < leaves_.size(); ++i) {
            if (found[i] || key != leaves_[i]) continue;
            std::string_view s;
            if (field.value().get_string().get(s))
                throw ParseError("table id field '" + paths_[i] + "' is not a string");
            parts_[i].assign(s.data(), s.size());
            found[i] = true;
            --remaining;
            break;
        }
        if (remaining == 0) break;
    }
    for (std::size_t i = 0; i < leaves_.size(); ++i)
        if (!found[i]) throw ParseError("table id field '" + paths_[i] + "' is missing");
}

TableId TableIdExtractor::extract(simdjson::ondemand::document& doc) {
    const std::size_t n = pointers_.size();
    // A JSON pointer into anything else fails as "Invalid JSON pointer syntax", which misleads.
    simdjson::ondemand::json_type type;
    if (auto error = doc.type().get(type))
        throw ParseError(std::string("not valid JSON: ") + simdjson::error_message(error));
    if (type != simdjson::ondemand::json_type::object)
        throw ParseError("table id field '" + paths_[0] + "': the document is " +
                         json_type_name(type) + ", not a JSON object");
    for (std::size_t i = 0; i < n && !grouped_; ++i) {
        auto result = at(doc, pointers_[i]);
        if (result.error() == simdjson::NO_SUCH_FIELD && payload_fallback_)
            result = at(doc, payload_pointers_[i]);
        if (result.error())
            throw ParseError("table id field '" + paths_[i] +
                             "': " + simdjson::error_message(result.error()));
        std::string_view s;
        if (result.get_string().get(s))
            throw ParseError("table id field '" + paths_[i] + "' is not a string");
        parts_[i].assign(s.data(), s.size());  // copied: the document is rewound afterwards
    }
    if (grouped_) extract_grouped(doc);
    rewind(doc);
    std::string_view parts[3] = {parts_[0], parts_[1], parts_[2]};
    return from_parts(parts);
}

TableId TableIdExtractor::from_parts(const std::string_view* parts) {
    const std::size_t n = pointers_.size();
    // A table with an empty name could not be restored from the checkpoint that records it.
    for (std::size_t i = 0; i < n; ++i)
        if (parts[i].empty()) throw ParseError("table id field '" + paths_[i] + "' is empty");
    key_.clear();
    for (std::size_t i = 0; i < n; ++i) {
        key_.append(parts[i]);
        key_.push_back('\0');
    }
    auto it = cache_.find(key_);
    if (it != cache_.end()) return it->second;
    if (cache_.size() >= max_tables_) {
        std::string name;
        for (std::size_t i = 0; i < n; ++i) {
            if (i > 0) name.push_back('.');
            name.append(parts[i]);
        }
        throw LimitError("table " + name + " would be one more than the " +
                         std::to_string(max_tables_) +
                         " tables this source tracks, its limit; raise " +
                         MessageLimits::kTablesOption + " to accept such messages");
    }
    TableId id = n == 1   ? TableId::of(parts[0])
                 : n == 2 ? TableId::of(parts[0], parts[1])
                          : TableId::of(parts[0], parts[1], parts[2]);
    cache_.emplace(key_, id);
    return id;
}

void TableIdExtractor::remember(TableId table) {
    const std::size_t n = pointers_.size();
    if (static_cast<std::size_t>(table.part_count()) != n) return;
    const std::string* all[3] = {&table.namespace_name(), &table.schema_name(),
                                 &table.table_name()};
    key_.clear();
    for (std::size_t i = 3 - n; i < 3; ++i) {
        key_.append(*all[i]);
        key_.push_back('\0');
    }
    cache_.emplace(key_, table);
}

}  // namespace cdcd::kafka
