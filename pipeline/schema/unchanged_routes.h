#pragma once
// The upstream tables whose data changes go to one sink table with their rows as they are (no
// coercion), each with that table: a snapshot of the schema operator's routes that threads
// other than the schema operator's may route with (a source's readers,
// pipeline/runtime/source_readers.cpp). Immutable once made; the schema operator makes a new
// one after schema changes.
#include <memory>
#include <unordered_map>

#include "pipeline/data/table_id.h"
#include "pipeline/schema/schema.h"

namespace cdcd {

class UnchangedRoutes {
  public:
    void add(TableId upstream, TableId sink, std::shared_ptr<const Schema> sink_schema) {
        sinks_.insert_or_assign(upstream, sink);
        schemas_.insert_or_assign(sink, std::move(sink_schema));
    }
    /// The sink table `upstream`'s rows go to as they are; nullptr when they need the schema
    /// operator (unknown table, several or no sink tables, coercion).
    const TableId* sink_of(TableId upstream) const {
        auto it = sinks_.find(upstream);
        return it == sinks_.end() ? nullptr : &it->second;
    }
    /// The schema of a sink table sink_of() gave.
    const Schema* sink_schema(TableId sink) const {
        auto it = schemas_.find(sink);
        return it == schemas_.end() ? nullptr : it->second.get();
    }

  private:
    std::unordered_map<TableId, TableId> sinks_;
    std::unordered_map<TableId, std::shared_ptr<const Schema>> schemas_;
};

}  // namespace cdcd
