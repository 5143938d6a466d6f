#include "sinks/vikingdb/collection_catalog.h"

#include <spdlog/spdlog.h>

#include <cctype>

#include "config/option_validator.h"
#include "formats/json/json_writer.h"
#include "sinks/vikingdb/collection_validator.h"

namespace cdcd::vikingdb {

namespace {

/// model-name / model_name / ModelName → ModelName; dense → Dense.
std::string pascal(const std::string& s) {
    std::string out;
    bool up = true;
    for (char c : s) {
        if (c == '-' || c == '_') {
            up = true;
            continue;
        }
        out.push_back(up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
        up = false;
    }
    return out;
}

}  // namespace

std::string create_collection_body(const std::string& project, const std::string& name,
                                   const CollectionSpec& spec,
                                   const std::map<std::string, std::string>& vectorize) {
    std::string out;
    json::Writer w(out);
    w.begin_object().key("ProjectName").string(project).key("CollectionName").string(name);
    w.key("Description").string("created by cdcd");
    w.key("Fields").begin_array();
    for (const auto& f : spec.fields) {
        w.begin_object().key("FieldName").string(f.name).key("FieldType").string(wire_name(f.type));
        if (f.dim) w.key("Dim").integer(*f.dim);
        if (f.primary_key) w.key("IsPrimaryKey").boolean(true);
        w.end_object();
    }
    w.end_array();
    if (!vectorize.empty()) {
        std::map<std::string, std::map<std::string, std::string>> kinds;
        std::map<std::string, std::string> whole;  // kind → JSON object given as is
        for (const auto& [key, value] : vectorize) {
            std::string kind = vectorize_kind(key).value_or(pascal(key.substr(0, key.find('.'))));
            auto dot = key.find('.');
            std::string head = key.substr(0, dot);
            if (dot == std::string::npos && pascal(head) == kind)
                whole[kind] = value;
            else
                kinds[kind][pascal(dot == std::string::npos ? key : key.substr(dot + 1))] = value;
        }
        w.key("Vectorize").begin_object();
        for (const auto& [kind, json] : whole) w.key(kind).raw(json);
        for (const auto& [kind, params] : kinds) {
            w.key(kind).begin_object();
            for (const auto& [k, v] : params) {
                w.key(k);
                auto n = config::parse_long(v);
                if ((k == "Dim" || k == "Dimension") && n)
                    w.integer(*n);
                else
                    w.string(v);
            }
            w.end_object();
        }
        w.end_object();
    }
    w.end_object();
    return out;
}

CollectionCatalog::CollectionCatalog(const VikingdbSettings& settings, ControlPlaneClient& control,
                                     TimeZone zone)
    : settings_(settings),
      control_(control),
      zone_(std::move(zone)),
      naming_(settings.name_template, settings.default_database) {}

boost::asio::awaitable<std::shared_ptr<const CollectionBinding>> CollectionCatalog::open(
    TableId table, Schema schema, bool allow_create) {
    std::string name = naming_.name_of(table);
    FieldOverrides overrides = merged_overrides(settings_.fields, schema);
    // Primary key, names and overrides are checked first, whether or not the collection exists.
    CollectionSpec spec = map_schema(table, schema, overrides, false);
    std::optional<CollectionInfo> existing =
        co_await control_.get_collection(settings_.project_name, name);
    bool vectorize = false;
    if (!existing) {
        if (!allow_create)
            throw std::runtime_error("VikingDB sink: collection '" + name + "' (table " +
                                     table.str() +
                                     ") does not exist and auto-create-table is false");
        spec = map_schema(table, schema, overrides, true);
        std::string body =
            create_collection_body(settings_.project_name, name, spec, settings_.vectorize);
        bool created = co_await control_.create_collection(body);
        if (created) {
            spdlog::info("VikingDB sink: created collection '{}' for table {} ({} fields{})", name,
                         table.str(), spec.fields.size(),
                         settings_.vectorize.empty() ? "" : ", vectorize");
            vectorize = !settings_.vectorize.empty();
        } else {
            existing = co_await control_.get_collection(settings_.project_name, name);
            if (!existing)
                throw std::runtime_error("VikingDB sink: collection '" + name +
                                         "' reported as existing but cannot be read");
        }
    }
    if (existing) {
        ValidationResult v = validate_collection(spec, *existing);
        if (!v.mismatches.empty())
            throw std::runtime_error(mismatch_message(name, table.str(), v.mismatches));
        spec = std::move(v.spec);
        vectorize = existing->vectorize;
        spdlog::info("VikingDB sink: table {} writes to existing collection '{}'", table.str(),
                     name);
    }
    auto binding = std::make_shared<CollectionBinding>();
    binding->target.collection = name;
    binding->target.resource_id = settings_.resource_id;
    binding->target.project = settings_.project_name;
    binding->vectorize = vectorize;
    binding->batch_limit = vectorize ? 1 : static_cast<std::size_t>(settings_.batch_size);
    binding->encoder = std::make_shared<RecordEncoder>(table, std::move(spec), zone_);
    bindings_[table] = binding;
    co_return binding;
}

std::shared_ptr<const CollectionBinding> CollectionCatalog::find(const TableId& table) const {
    auto it = bindings_.find(table);
    return it == bindings_.end() ? nullptr : it->second;
}

void CollectionCatalog::forget(const TableId& table) {
    bindings_.erase(table);
}

}  // namespace cdcd::vikingdb
