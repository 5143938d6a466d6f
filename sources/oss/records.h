#pragma once
// The fixed oss-cdc schema and the rows and events built from listed objects and MNS events.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "pipeline/connector/stream.h"
#include "pipeline/event/events.h"
#include "pipeline/schema/schema.h"
#include "sources/oss/event_decoder.h"
#include "sources/oss/oss_client.h"
#include "sources/oss/presigner.h"
#include "sources/oss/table_id_mapper.h"

namespace cdcd::oss {

/// key STRING NOT NULL (PK), url, region, bucket, fileName, size BIGINT,
/// modificationTime TIMESTAMP_LTZ(3), eTag.
Schema object_schema();
/// The part of the key after its last '/'.
std::string file_name_of(const std::string& key);

/// Builds events for one source: table ids, CreateTableEvent before a table's first change,
/// `url` (oss:// or pre-signed), region, metadata.
class RecordBuilder {
  public:
    RecordBuilder(TableIdMapper mapper, std::string region,
                  std::shared_ptr<const Presigner> presigner, std::vector<std::string> metadata);

    /// Appends (CreateTableEvent if new and) the event to out; false when the object is filtered.
    bool add(EventBatch& out, OpType op, const std::string& bucket, const ObjectInfo& object,
             const OssEvent* event = nullptr, const std::string& region_override = {});
    /// Forget announced tables (after a restore every table is announced again; the schema
    /// operator ignores an identical CreateTableEvent).
    void reset_tables() { announced_.clear(); }

  private:
    Row row(const std::string& bucket, const ObjectInfo& object, const std::string& region) const;

    TableIdMapper mapper_;
    std::string region_;
    std::shared_ptr<const Presigner> presigner_;
    std::vector<std::string> metadata_;
    Schema schema_;
    std::unordered_set<TableId> announced_;
};

}  // namespace cdcd::oss
