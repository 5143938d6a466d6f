#pragma once
// The TableId of a Kafka message: `table-id.fixed.name`, or 1–3 JSON paths
// (`table-id.dynamic.fields`, e.g. `source.db,source.table`) read from the key or the value
// (`table-id.dynamic.from`). One field gives `table`, two `schema.table`, three
// `namespace.schema.table`; every field must be a string. For debezium-json values with a schema
// envelope, a path missing at the top level is looked up under `payload`.
#include <simdjson.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/json/message_limits.h"
#include "pipeline/data/table_id.h"

namespace cdcd::kafka {

class TableIdExtractor {
  public:
    /// `fields`: the option's comma-separated JSON paths (`a.b` or `$.a.b`). At most
    /// `max_tables` distinct table ids are made (TableIds are interned for the life of the
    /// process): a message of one more throws LimitError before its id is interned.
    TableIdExtractor(const std::vector<std::string>& fields, bool payload_fallback,
                     std::size_t max_tables = MessageLimits::kDefaultTables);
    /// Throws ParseError when a field is missing or not a string.
    TableId extract(simdjson::ondemand::document& doc);
    /// Counts a table restored from a checkpoint as known (when it has as many parts as there
    /// are fields).
    void remember(TableId table);

    /// `source.db` → `/source/db` (JSON pointer, with ~ and / escaped).
    static std::string to_pointer(const std::string& path);

    /// When every path is <key>.<leaf> under one top-level object key (`source.db,source.table`),
    /// a parser that walks the document anyway can read the fields on its way (ParsedMessage's
    /// capture); empty otherwise.
    const std::string& capture_key() const { return capture_key_; }
    const std::vector<std::string>& leaves() const { return leaves_; }
    /// The TableId of the captured field values, in path order (as extract() would return).
    TableId from_parts(const std::string_view* parts);

  private:
    void extract_grouped(simdjson::ondemand::document& doc);

    // When every path is <parent>.<leaf> with one parent (often `source.db,source.table` or the
    // top-level `database,table`), one walk over the parent object reads them all.
    bool grouped_ = false;
    std::string parent_pointer_, payload_parent_pointer_;
    std::string capture_key_;
    std::vector<std::string> leaves_;
    std::vector<std::string> pointers_, payload_pointers_, paths_;
    bool payload_fallback_;
    std::string parts_[3];
    std::string key_;
    std::size_t max_tables_;
    std::unordered_map<std::string, TableId> cache_;  // every table id made: at most max_tables_
};

}  // namespace cdcd::kafka
