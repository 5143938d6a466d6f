#include "sources/postgres/catalog.h"

#include <spdlog/spdlog.h>

#include "sources/postgres/replication_protocol.h"
#include "sources/postgres/type_mapping.h"

namespace cdcd::postgres {

namespace {

Oid to_oid(const std::string& text) {
    return static_cast<Oid>(std::stoul(text));
}

}  // namespace

std::vector<CapturedTable> list_captured_tables(PgConnection& conn, const TableFilter& filter) {
    PgResult r = conn.exec(
        "SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c "
        "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        "WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition "
        "AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
        "AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%' "
        "ORDER BY n.nspname, c.relname");
    std::vector<CapturedTable> tables;
    for (int i = 0; i < r.rows(); ++i) {
        CapturedTable t{to_oid(r.text(i, 0)), r.text(i, 1), r.text(i, 2)};
        if (filter.captures(t.schema, t.name)) tables.push_back(std::move(t));
    }
    return tables;
}

std::vector<PgColumnType> resolve_types(PgConnection& conn,
                                        const std::vector<std::pair<Oid, std::int32_t>>& types) {
    std::string oids = "{", typmods = "{";
    for (const auto& [type, typmod] : types) {
        if (oids.size() > 1) oids += ',', typmods += ',';
        oids += std::to_string(type);
        typmods += std::to_string(typmod);
    }
    oids += '}', typmods += '}';
    // Each type's chain of domains to its base type; a domain over a domain declares no typmod
    // (PostgreSQL allows none), so the nearest one declared is the one that counts, as in
    // Debezium's PostgresType.getDefaultLength. The depth bound only guards the recursion.
    PgResult r = conn.exec_params(
        "WITH RECURSIVE chain(ord, declared, typid, typmod, depth) AS ("
        " SELECT s.ord, s.typid, s.typid, s.typmod, 0 FROM ROWS FROM (pg_catalog.unnest("
        "$1::pg_catalog.oid[]), pg_catalog.unnest($2::pg_catalog.int4[])) WITH ORDINALITY"
        " AS s(typid, typmod, ord)"
        " UNION ALL SELECT c.ord, c.declared, t.typbasetype,"
        " CASE WHEN c.typmod = -1 THEN t.typtypmod ELSE c.typmod END, c.depth + 1"
        " FROM chain c JOIN pg_catalog.pg_type t ON t.oid = c.typid"
        " WHERE t.typtype = 'd' AND c.depth < 64),"
        " base AS (SELECT DISTINCT ON (ord) * FROM chain ORDER BY ord, depth DESC)"
        " SELECT b.typid, b.typmod, bt.typtype = 'e',"
        " CASE WHEN bt.oid IS NOT NULL THEN pg_catalog.format_type(b.typid, b.typmod) END,"
        " CASE WHEN b.depth > 0 THEN pg_catalog.format_type(b.declared, NULL) END,"
        " CASE WHEN et.typtype = 'd' THEN pg_catalog.format_type(et.oid, NULL) END,"
        " CASE WHEN et.typtype = 'd' THEN pg_catalog.format_type(et.typbasetype, et.typtypmod) END"
        " FROM base b LEFT JOIN pg_catalog.pg_type bt ON bt.oid = b.typid"
        " LEFT JOIN pg_catalog.pg_type et ON et.oid = bt.typelem AND bt.typlen = -1"
        " ORDER BY b.ord",
        {oids, typmods});
    if (static_cast<std::size_t>(r.rows()) != types.size())
        throw std::runtime_error("postgres source: resolving " + std::to_string(types.size()) +
                                 " column types gave " + std::to_string(r.rows()));
    std::vector<PgColumnType> resolved;
    resolved.reserve(types.size());
    for (int i = 0; i < r.rows(); ++i)
        resolved.push_back(PgColumnType{to_oid(r.text(i, 0)), std::stoi(r.text(i, 1)),
                                        r.text(i, 2) == "t", r.value(i, 3).value_or(""),
                                        r.value(i, 4).value_or(""), r.value(i, 5).value_or(""),
                                        r.value(i, 6).value_or("")});
    return resolved;
}

Schema table_schema(PgConnection& conn, Oid oid, const std::string& display_name,
                    const ValueModes& modes, std::vector<TextForm>* forms) {
    const std::string relid = std::to_string(oid);
    // NOT NULL as the JDBC driver reports it: the column's, or its own domain's (not that of a
    // domain this one is over).
    PgResult cols = conn.exec_params(
        "SELECT a.attname, a.atttypid, a.atttypmod, "
        "a.attnotnull OR (t.typtype = 'd' AND t.typnotnull) "
        "FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid "
        "WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
        {relid});
    PgResult keys = conn.exec_params(
        "SELECT a.attname FROM pg_catalog.pg_index i "
        "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) "
        "JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum "
        "WHERE i.indrelid = $1 AND i.indisprimary ORDER BY k.ord",
        {relid});
    std::vector<std::pair<Oid, std::int32_t>> declared;
    declared.reserve(static_cast<std::size_t>(cols.rows()));
    for (int i = 0; i < cols.rows(); ++i)
        declared.emplace_back(to_oid(cols.text(i, 1)), std::stoi(cols.text(i, 2)));
    const std::vector<PgColumnType> types = resolve_types(conn, declared);
    if (forms) forms->clear();
    std::vector<Column> columns;
    columns.reserve(static_cast<std::size_t>(cols.rows()));
    for (int i = 0; i < cols.rows(); ++i) {
        const PgColumnType& type = types[static_cast<std::size_t>(i)];
        auto mapped = map_type(type, modes);
        if (auto* refusal = std::get_if<TypeRefusal>(&mapped))
            throw std::runtime_error("postgres source: table " + display_name + " column `" +
                                     cols.text(i, 0) + "`: " + refusal->reason);
        DataType t = std::get<DataType>(mapped);
        if (cols.text(i, 3) == "t") t = t.not_null();
        if (forms) forms->push_back(text_form(type, modes));
        columns.push_back(Column{cols.text(i, 0), t, {}, {}});
    }
    std::vector<std::string> primary_key;
    primary_key.reserve(static_cast<std::size_t>(keys.rows()));
    for (int i = 0; i < keys.rows(); ++i) primary_key.push_back(keys.text(i, 0));
    return Schema(std::move(columns), std::move(primary_key));
}

void ensure_publication(PgConnection& conn, const PostgresSettings& settings,
                        const std::vector<CapturedTable>& tables) {
    const std::string& name = settings.publication;
    PgResult found = conn.exec_params(
        "SELECT puballtables FROM pg_catalog.pg_publication WHERE pubname = $1", {name});
    std::string list;
    for (const auto& t : tables) {
        if (!list.empty()) list += ", ";
        list += conn.quote_identifier(t.schema) + "." + conn.quote_identifier(t.name);
    }
    const std::string quoted = conn.quote_identifier(name);
    switch (settings.autocreate) {
        case PublicationAutocreate::Disabled:
            if (found.rows() == 0)
                throw std::runtime_error(
                    "postgres source: publication '" + name +
                    "' does not exist and debezium.publication.autocreate.mode is disabled");
            return;
        case PublicationAutocreate::AllTables:
            if (found.rows() == 0) {
                spdlog::info("postgres source: creating publication {} FOR ALL TABLES", name);
                conn.exec("CREATE PUBLICATION " + quoted + " FOR ALL TABLES");
            }
            return;
        case PublicationAutocreate::Filtered:
            if (found.rows() == 0) {
                spdlog::info("postgres source: creating publication {} for {} tables", name,
                             tables.size());
                conn.exec("CREATE PUBLICATION " + quoted + " FOR TABLE " + list);
            } else if (found.text(0, 0) != "t") {
                conn.exec("ALTER PUBLICATION " + quoted + " SET TABLE " + list);
            }
            return;
    }
}

std::optional<SlotInfo> find_slot(PgConnection& conn, const std::string& name) {
    PgResult r = conn.exec_params(
        "SELECT plugin, database, active, confirmed_flush_lsn, restart_lsn "
        "FROM pg_catalog.pg_replication_slots WHERE slot_name = $1",
        {name});
    if (r.rows() == 0) return std::nullopt;
    SlotInfo slot{r.value(0, 0).value_or(""), r.value(0, 1).value_or(""), r.text(0, 2) == "t",
                  std::nullopt, std::nullopt};
    if (auto lsn = r.value(0, 3)) slot.confirmed_flush = parse_lsn(*lsn);
    if (auto lsn = r.value(0, 4)) slot.restart_lsn = parse_lsn(*lsn);
    return slot;
}

bool created_after(const SlotInfo& slot, Lsn creating_after) {
    return !slot.active && slot.restart_lsn && *slot.restart_lsn >= creating_after;
}

void drop_slot(PgConnection& conn, const std::string& name) {
    conn.exec_params("SELECT pg_catalog.pg_drop_replication_slot($1)", {name});
}

Lsn current_wal_lsn(PgConnection& conn) {
    PgResult r = conn.exec("SELECT pg_catalog.pg_current_wal_lsn()");
    auto lsn = parse_lsn(r.text(0, 0));
    if (!lsn)
        throw std::runtime_error("postgres source: pg_current_wal_lsn() answered '" + r.text(0, 0) +
                                 "'");
    return *lsn;
}

Lsn current_wal_insert_lsn(PgConnection& conn) {
    PgResult r = conn.exec("SELECT pg_catalog.pg_current_wal_insert_lsn()");
    auto lsn = parse_lsn(r.text(0, 0));
    if (!lsn)
        throw std::runtime_error("postgres source: pg_current_wal_insert_lsn() answered '" +
                                 r.text(0, 0) + "'");
    return *lsn;
}

}  // namespace cdcd::postgres
