#pragma once
// Which collection each table writes to, with its resolved mapping: created from the table
// schema (auto-create-table) or validated against the existing collection. Shared by the
// metadata applier (CREATE / DROP TABLE) and the writers (after a restore they resolve tables
// whose CreateTableEvent is not sent again).
#include <boost/asio/awaitable.hpp>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "pipeline/data/time_zone.h"
#include "pipeline/schema/schema.h"
#include "sinks/vikingdb/collection_naming.h"
#include "sinks/vikingdb/control_plane_client.h"
#include "sinks/vikingdb/data_plane_client.h"
#include "sinks/vikingdb/options.h"
#include "sinks/vikingdb/record_encoder.h"

namespace cdcd::vikingdb {

struct CollectionBinding {
    WriteTarget target;
    std::shared_ptr<const RecordEncoder> encoder;
    std::size_t batch_limit = 100;
    bool vectorize = false;
};

/// The CreateVikingdbCollection body for a mapping (vectorize: `vikingdb.vectorize.*` params).
std::string create_collection_body(const std::string& project, const std::string& name,
                                   const CollectionSpec& spec,
                                   const std::map<std::string, std::string>& vectorize);

class CollectionCatalog {
  public:
    CollectionCatalog(const VikingdbSettings& settings, ControlPlaneClient& control, TimeZone zone);

    std::string collection_name(const TableId& table) const { return naming_.name_of(table); }

    /// Resolves (and with allow_create, creates) the table's collection; throws MappingError,
    /// ApiError or std::runtime_error listing every mismatch of an existing collection.
    boost::asio::awaitable<std::shared_ptr<const CollectionBinding>> open(TableId table,
                                                                          Schema schema,
                                                                          bool allow_create);
    std::shared_ptr<const CollectionBinding> find(const TableId& table) const;
    void forget(const TableId& table);

  private:
    const VikingdbSettings& settings_;
    ControlPlaneClient& control_;
    TimeZone zone_;
    CollectionNaming naming_;
    std::unordered_map<TableId, std::shared_ptr<const CollectionBinding>> bindings_;
};

}  // namespace cdcd::vikingdb
