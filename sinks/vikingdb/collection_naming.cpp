#include "sinks/vikingdb/collection_naming.h"

#include <cctype>
#include <stdexcept>

namespace cdcd::vikingdb {

namespace {

bool valid_collection_name(const std::string& s) {
    if (s.empty() || s.size() > 128 || !std::isalpha(static_cast<unsigned char>(s[0])))
        return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
}

}  // namespace

std::string CollectionNaming::check_template(const std::string& text) {
    std::size_t pos = 0;
    while ((pos = text.find("${", pos)) != std::string::npos) {
        auto end = text.find('}', pos);
        if (end == std::string::npos) return "unterminated placeholder in '" + text + "'";
        std::string name = text.substr(pos + 2, end - pos - 2);
        if (name != "database" && name != "schema" && name != "table")
            return "unknown placeholder ${" + name + "} in '" + text +
                   "'; use ${database}, ${schema}, ${table}";
        pos = end + 1;
    }
    return {};
}

CollectionNaming::CollectionNaming(std::optional<std::string> name_template,
                                   std::string default_database)
    : template_(std::move(name_template)), default_database_(std::move(default_database)) {
    if (template_) {
        std::string error = check_template(*template_);
        if (!error.empty()) throw std::invalid_argument("collection-name-template: " + error);
    }
}

std::string CollectionNaming::name_of(const TableId& table) const {
    std::string name;
    if (!template_) {
        name = table.str();
        for (char& c : name)
            if (c == '.') c = '_';
    } else {
        const std::string& ns = table.namespace_name();
        const std::string& schema = table.schema_name();
        std::string database = !ns.empty() ? ns : (!schema.empty() ? schema : default_database_);
        const std::string& t = *template_;
        std::size_t pos = 0;
        while (pos < t.size()) {
            auto start = t.find("${", pos);
            if (start == std::string::npos) {
                name += t.substr(pos);
                break;
            }
            name += t.substr(pos, start - pos);
            auto end = t.find('}', start);
            std::string key = t.substr(start + 2, end - start - 2);
            name += key == "database" ? database : key == "schema" ? schema : table.table_name();
            pos = end + 1;
        }
    }
    if (!valid_collection_name(name))
        throw std::invalid_argument(
            "table " + table.str() + " maps to collection name '" + name +
            "', which VikingDB rejects (a letter, then letters, digits or '_', at most 128); "
            "set collection-name-template or rename the table with a route");
    return name;
}

}  // namespace cdcd::vikingdb
