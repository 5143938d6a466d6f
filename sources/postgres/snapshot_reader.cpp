#include "sources/postgres/snapshot_reader.h"

#include <spdlog/spdlog.h>

#include "sources/postgres/text_values.h"

namespace cdcd::postgres {

namespace {

/// Reads one table through a cursor; false when `emit` asked to stop.
bool read_table(PgConnection& conn, const CapturedTable& t, const TableId& id, const Schema& schema,
                int fetch_size, const std::function<bool(SnapshotBatch)>& emit) {
    std::string columns;
    for (const Column& c : schema.columns()) {
        if (!columns.empty()) columns += ", ";
        columns += conn.quote_identifier(c.name);
    }
    const std::string relation =
        conn.quote_identifier(t.schema) + "." + conn.quote_identifier(t.name);
    conn.exec("DECLARE cdcd_snapshot NO SCROLL CURSOR FOR SELECT " + columns + " FROM ONLY " +
              relation);
    const std::string fetch = "FETCH FORWARD " + std::to_string(fetch_size) + " FROM cdcd_snapshot";
    std::vector<DataType> types;
    for (const Column& c : schema.columns()) types.push_back(c.type);
    std::uint64_t rows = 0;
    for (;;) {
        PgResult r = conn.exec(fetch);
        if (r.rows() == 0) break;
        SnapshotBatch batch;
        batch.events.reserve(static_cast<std::size_t>(r.rows()));
        for (int i = 0; i < r.rows(); ++i) {
            RowBuilder row(types.size());
            std::optional<std::string> error;
            for (std::size_t c = 0; c < types.size() && !error; ++c) {
                const int column = static_cast<int>(c);
                if (r.is_null(i, column)) {
                    row.set_null(c);
                } else if (auto why = set_text_value(row, c, types[c], r.text(i, column))) {
                    error = "column `" + schema.columns()[c].name + "`: " + *why;
                }
            }
            if (error) {
                batch.bad_records.push_back(
                    BadRecord{"parse-error",
                              "table " + id.str() + " snapshot row " +
                                  std::to_string(rows + static_cast<std::uint64_t>(i) + 1),
                              *error,
                              {}});
                continue;
            }
            batch.events.push_back(DataChangeEvent::insert(id, std::move(row).build()));
        }
        rows += static_cast<std::uint64_t>(r.rows());
        if (!emit(std::move(batch))) return false;
    }
    conn.exec("CLOSE cdcd_snapshot");
    spdlog::info("postgres source: snapshot of {}: {} rows", id.str(), rows);
    return true;
}

}  // namespace

std::vector<std::pair<TableId, Schema>> read_snapshot(
    PgConnection& conn, const std::string& snapshot_name, const std::vector<CapturedTable>& tables,
    const TableFilter& filter, int fetch_size, const std::function<bool(SnapshotBatch)>& emit) {
    conn.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    if (!snapshot_name.empty())
        conn.exec("SET TRANSACTION SNAPSHOT " + conn.quote_literal(snapshot_name));
    std::vector<std::pair<TableId, Schema>> schemas;
    for (const CapturedTable& t : tables) {
        const TableId id = filter.table_id(t.schema, t.name);
        Schema schema = table_schema(conn, t.oid, id.str());
        SnapshotBatch create;
        create.events.push_back(CreateTableEvent{id, schema});
        if (!emit(std::move(create))) break;
        schemas.emplace_back(id, schema);
        if (!read_table(conn, t, id, schema, fetch_size, emit)) break;
    }
    conn.exec("COMMIT");
    return schemas;
}

}  // namespace cdcd::postgres
