#include "sources/kafka/table_id_extractor.h"

#include "sources/kafka/message_parser.h"

namespace cdcd::kafka {

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

TableIdExtractor::TableIdExtractor(const std::vector<std::string>& fields, bool payload_fallback)
    : paths_(fields), payload_fallback_(payload_fallback) {
    for (const auto& f : fields) {
        pointers_.push_back(to_pointer(f));
        payload_pointers_.push_back("/payload" + pointers_.back());
    }
}

TableId TableIdExtractor::extract(simdjson::ondemand::document& doc) {
    const std::size_t n = pointers_.size();
    for (std::size_t i = 0; i < n; ++i) {
        auto result = doc.at_pointer(pointers_[i]);
        if (result.error() == simdjson::NO_SUCH_FIELD && payload_fallback_)
            result = doc.at_pointer(payload_pointers_[i]);
        if (result.error())
            throw ParseError("table id field '" + paths_[i] + "': " + simdjson::error_message(result.error()));
        std::string_view s;
        if (result.get_string().get(s))
            throw ParseError("table id field '" + paths_[i] + "' is not a string");
        parts_[i].assign(s.data(), s.size());  // copied: the document is rewound afterwards
    }
    doc.rewind();
    key_.clear();
    for (std::size_t i = 0; i < n; ++i) {
        key_.append(parts_[i]);
        key_.push_back('\0');
    }
    auto it = cache_.find(key_);
    if (it != cache_.end()) return it->second;
    TableId id = n == 1 ? TableId::of(parts_[0])
                 : n == 2 ? TableId::of(parts_[0], parts_[1])
                          : TableId::of(parts_[0], parts_[1], parts_[2]);
    cache_.emplace(key_, id);
    return id;
}

}  // namespace cdcd::kafka
