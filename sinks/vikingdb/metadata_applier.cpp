#include "sinks/vikingdb/metadata_applier.h"

#include <spdlog/spdlog.h>

#include "pipeline/event/event_format.h"

namespace cdcd::vikingdb {

VikingdbMetadataApplier::VikingdbMetadataApplier(const VikingdbSettings& settings,
                                                 CollectionCatalog& catalog,
                                                 ControlPlaneClient& control, DataPlaneClient& data)
    : settings_(settings), catalog_(catalog), control_(control), data_(data) {}

boost::asio::awaitable<void> VikingdbMetadataApplier::apply(const SchemaChangeEvent& event) {
    TableId table = table_of(event);
    if (const auto* create = std::get_if<CreateTableEvent>(&event)) {
        co_await catalog_.open(table, create->schema, settings_.auto_create);
        co_return;
    }
    std::string name = catalog_.collection_name(table);
    if (std::holds_alternative<DropTableEvent>(event)) {
        bool existed = co_await control_.delete_collection(settings_.project_name, name);
        catalog_.forget(table);
        spdlog::warn("VikingDB sink: DROP TABLE {}: collection '{}' {}", table.str(), name,
                     existed ? "deleted with all its data" : "did not exist");
        co_return;
    }
    if (std::holds_alternative<TruncateTableEvent>(event)) {
        WriteTarget target;
        target.collection = name;
        target.resource_id = settings_.resource_id;
        target.project = settings_.project_name;
        co_await data_.delete_all(target);
        spdlog::warn("VikingDB sink: TRUNCATE TABLE {}: deleted every record of collection '{}'",
                     table.str(), name);
        co_return;
    }
    throw SchemaEvolutionUnsupported(
        "VikingDB sink does not support schema evolution: " + format_schema_change(event) +
        " on table " + table.str() + " (collection '" + name +
        "'); only CREATE TABLE, DROP TABLE and TRUNCATE TABLE are supported");
}

}  // namespace cdcd::vikingdb
