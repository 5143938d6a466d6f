#pragma once
// Schema changes → VikingDB (spec 002 运行机制): CREATE TABLE creates or validates the collection,
// DROP TABLE deletes it, TRUNCATE TABLE deletes every record (`del_all`); every other change fails
// the pipeline with an error naming the table and the change (no schema evolution).
#include "pipeline/connector/sink.h"
#include "sinks/vikingdb/collection_catalog.h"
#include "sinks/vikingdb/control_plane_client.h"
#include "sinks/vikingdb/data_plane_client.h"

namespace cdcd::vikingdb {

/// An unsupported schema change. Not an UnsupportedSchemaChange: the spec says the job fails,
/// so TRY_EVOLVE does not tolerate it.
class SchemaEvolutionUnsupported : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class VikingdbMetadataApplier final : public MetadataApplier {
  public:
    VikingdbMetadataApplier(const VikingdbSettings& settings, CollectionCatalog& catalog,
                            ControlPlaneClient& control, DataPlaneClient& data);
    boost::asio::awaitable<void> apply(const SchemaChangeEvent& event) override;

  private:
    const VikingdbSettings& settings_;
    CollectionCatalog& catalog_;
    ControlPlaneClient& control_;
    DataPlaneClient& data_;
};

}  // namespace cdcd::vikingdb
