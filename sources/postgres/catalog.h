#pragma once
// What the source asks the server's catalog, on a normal connection: the captured tables, a
// table's schema (types mapped as Flink CDC does, NOT NULL, primary key), the publication
// (created or filled when allowed) and the replication slot.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/schema/schema.h"
#include "sources/postgres/change_decoder.h"
#include "sources/postgres/options.h"
#include "sources/postgres/pg_connection.h"
#include "sources/postgres/type_mapping.h"

namespace cdcd::postgres {

struct CapturedTable {
    Oid oid = 0;
    std::string schema, name;
};

/// The ordinary and partitioned tables of the database that `filter` captures, by name.
std::vector<CapturedTable> list_captured_tables(PgConnection& conn, const TableFilter& filter);

/// Column types as Flink CDC sees them, one query for all: each (pg_type oid, atttypmod) named by
/// format_type, enums marked, a domain resolved to its base type through the domains it is over
/// (the typmod the nearest one declared), an array of a domain marked as such. An oid the catalog
/// does not know comes back as it is, unnamed.
std::vector<PgColumnType> resolve_types(PgConnection& conn,
                                        const std::vector<std::pair<Oid, std::int32_t>>& types);

/// The schema of relation `oid` as of the connection's snapshot, its types mapped under `modes`,
/// and when `forms` is given how each column's text is read (type_mapping.h); throws
/// std::runtime_error naming the table and column of a refused type.
Schema table_schema(PgConnection& conn, Oid oid, const std::string& display_name,
                    const ValueModes& modes, std::vector<TextForm>* forms = nullptr);

/// Makes sure the publication exists (publication.autocreate.mode all_tables: FOR ALL TABLES;
/// filtered: FOR the captured tables, also set on an existing one; disabled: must exist).
void ensure_publication(PgConnection& conn, const PostgresSettings& settings,
                        const std::vector<CapturedTable>& tables);

struct SlotInfo {
    std::string plugin, database;
    bool active = false;
    std::optional<Lsn> confirmed_flush;
    std::optional<Lsn> restart_lsn;
};
/// Whether `slot` is the one a source recorded it was about to create when the WAL insert
/// position was `creating_after` (state_codec.h): not in use, and reserving WAL from at or after
/// that position. A slot is created reserving WAL from the insert position of its creation (and
/// its reservation only moves forward), so one that existed before holds an older position.
bool created_after(const SlotInfo& slot, Lsn creating_after);
std::optional<SlotInfo> find_slot(PgConnection& conn, const std::string& name);
void drop_slot(PgConnection& conn, const std::string& name);
/// pg_current_wal_lsn().
Lsn current_wal_lsn(PgConnection& conn);
/// pg_current_wal_insert_lsn().
Lsn current_wal_insert_lsn(PgConnection& conn);

}  // namespace cdcd::postgres
