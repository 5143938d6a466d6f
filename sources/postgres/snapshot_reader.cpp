#include "sources/postgres/snapshot_reader.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "sources/postgres/replication_protocol.h"
#include "sources/postgres/schema_diff.h"
#include "sources/postgres/text_values.h"

namespace cdcd::postgres {

std::vector<std::size_t> paging_key(const Schema& schema, const TableId& table,
                                    const std::optional<std::string>& chunk_key_column) {
    std::vector<std::size_t> key;
    for (int index : schema.primary_key_indexes()) key.push_back(static_cast<std::size_t>(index));
    if (!key.empty() || !chunk_key_column) return key;
    const auto& columns = schema.columns();
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i].name == *chunk_key_column) {
            if (columns[i].type.nullable())
                throw std::runtime_error(
                    "postgres source: table " + table.str() +
                    " has no primary key and its `scan.incremental.snapshot.chunk.key-column` `" +
                    *chunk_key_column +
                    "` may be NULL; the chunk key column must be NOT NULL (rows without a value "
                    "have no place in its order)");
            return {i};
        }
    throw std::runtime_error("postgres source: table " + table.str() +
                             " has no primary key and no column `" + *chunk_key_column +
                             "` named by `scan.incremental.snapshot.chunk.key-column`");
}

namespace {

/// One table's reading: its query parts, and the batches it fills.
class TableReader {
  public:
    TableReader(PgConnection& conn, const CapturedTable& t, const std::string& database, TableId id,
                const Schema& schema, std::vector<TextForm> forms, const SnapshotSettings& settings,
                SnapshotProgress& progress, const std::function<bool(SnapshotBatch)>& emit)
        : conn_(conn),
          id_(id),
          schema_(schema),
          forms_(std::move(forms)),
          settings_(settings),
          progress_(progress),
          emit_(emit) {
        for (const Column& c : schema.columns()) {
            if (!columns_.empty()) columns_ += ", ";
            columns_ += conn.quote_identifier(c.name);
            types_.push_back(c.type);
        }
        relation_ = conn.quote_identifier(t.schema) + "." + conn.quote_identifier(t.name);
        if (!settings.metadata.empty())
            meta_ = metadata_of(settings.metadata, database, t.schema, t.name, 0);
        key_columns_ = paging_key(schema, id, settings.chunk_key_column);
        unique_ = !schema.primary_key_indexes().empty();
        for (std::size_t index : key_columns_) {
            if (!key_.empty()) key_ += ", ";
            key_ += conn.quote_identifier(schema.columns()[index].name);
        }
    }

    /// False when `emit` asked to stop.
    bool read() {
        if (key_columns_.empty()) return read_whole();
        return unique_ ? read_chunks() : read_value_chunks();
    }
    std::uint64_t rows() const { return rows_; }

  private:
    /// Keyset chunks in primary key order, from after progress_.after.
    bool read_chunks() {
        std::string placeholders;
        for (std::size_t i = 0; i < key_columns_.size(); ++i)
            placeholders += (i ? ", $" : "$") + std::to_string(i + 1);
        const std::string select = "SELECT " + columns_ + " FROM ONLY " + relation_;
        const std::string order =
            " ORDER BY " + key_ + " LIMIT " + std::to_string(settings_.chunk_size);
        for (;;) {
            const bool first = progress_.after.empty();
            PgResult r = first ? conn_.exec(select + order)
                               : conn_.exec_params(select + " WHERE (" + key_ + ") > (" +
                                                       placeholders + ")" + order,
                                                   progress_.after);
            if (!hand_over(r, true)) return false;
            if (r.rows() < settings_.chunk_size) return true;
        }
    }

    /// By a column that is not unique: each chunk ends after every row of its last value, found
    /// first (`OFFSET chunk_size - 1`), so that a restart after a value misses none of it.
    bool read_value_chunks() {
        const std::string select = "SELECT " + columns_ + " FROM ONLY " + relation_;
        for (;;) {
            const bool first = progress_.after.empty();
            const std::string after = first ? "" : " WHERE " + key_ + " > $1";
            std::vector<std::string> params = progress_.after;
            PgResult last = conn_.exec_params(
                "SELECT " + key_ + " FROM ONLY " + relation_ + after + " ORDER BY " + key_ +
                    " OFFSET " + std::to_string(settings_.chunk_size - 1) + " LIMIT 1",
                params);
            const bool final = last.rows() == 0;
            std::string where = after;
            if (!final) {
                params.push_back(last.text(0, 0));
                where +=
                    (first ? " WHERE " : " AND ") + key_ + " <= $" + std::to_string(params.size());
            }
            PgResult r = conn_.exec_params(select + where + " ORDER BY " + key_, params);
            if (!hand_over(r, true)) return false;
            if (final) return true;
        }
    }

    /// A table without a primary key: one cursor; a restart reads it again from the start.
    bool read_whole() {
        conn_.exec("DECLARE cdcd_snapshot NO SCROLL CURSOR FOR SELECT " + columns_ + " FROM ONLY " +
                   relation_);
        const std::string fetch =
            "FETCH FORWARD " + std::to_string(settings_.fetch_size) + " FROM cdcd_snapshot";
        for (;;) {
            PgResult r = conn_.exec(fetch);
            if (r.rows() == 0) break;
            if (!hand_over(r, false)) return false;
        }
        conn_.exec("CLOSE cdcd_snapshot");
        return true;
    }

    /// The rows of `r` as batches of at most fetch_size inserts, each with the key of its last
    /// row as the progress.
    bool hand_over(const PgResult& r, bool keyed) {
        const int n = r.rows();
        for (int start = 0, end = 0; start < n; start = end) {
            end = std::min(n, start + settings_.fetch_size);
            // A batch ends after a value's last row when the key is not unique: its progress is
            // where a restart reads on.
            while (keyed && !unique_ && end < n && same_key(r, end - 1, end)) ++end;
            SnapshotBatch batch;
            batch.events.reserve(static_cast<std::size_t>(end - start));
            for (int i = start; i < end; ++i) convert(r, i, batch);
            if (keyed) {
                progress_.after.clear();
                for (std::size_t c : key_columns_)
                    progress_.after.push_back(r.text(end - 1, static_cast<int>(c)));
            }
            batch.progress = progress_;
            rows_ += static_cast<std::uint64_t>(end - start);
            if (!emit_(std::move(batch))) return false;
        }
        return true;
    }

    bool same_key(const PgResult& r, int a, int b) const {
        for (std::size_t c : key_columns_)
            if (r.text(a, static_cast<int>(c)) != r.text(b, static_cast<int>(c))) return false;
        return true;
    }

    void convert(const PgResult& r, int i, SnapshotBatch& batch) const {
        RowBuilder row(types_.size());
        for (std::size_t c = 0; c < types_.size(); ++c) {
            const int column = static_cast<int>(c);
            if (r.is_null(i, column)) {
                row.set_null(c);
            } else if (auto why = set_text_value(row, c, types_[c], r.text(i, column), forms_[c])) {
                batch.bad_records.push_back(
                    BadRecord{"parse-error",
                              "table " + id_.str() + " snapshot row " +
                                  std::to_string(rows_ + static_cast<std::uint64_t>(i) + 1),
                              "column `" + schema_.columns()[c].name + "`: " + *why,
                              {}});
                return;
            }
        }
        append_insert(batch.events, id_, std::move(row).build(), meta_);
    }

    PgConnection& conn_;
    TableId id_;
    const Schema& schema_;
    std::vector<TextForm> forms_;  // per column, as types_
    const SnapshotSettings& settings_;
    SnapshotProgress& progress_;
    const std::function<bool(SnapshotBatch)>& emit_;
    std::string columns_, relation_, key_;
    std::vector<DataType> types_;
    std::vector<std::size_t> key_columns_;
    bool unique_ = true;  // key_columns_ are the primary key
    EventMeta meta_;      // metadata.list: the same for every row of the table
    std::uint64_t rows_ = 0;
};

}  // namespace

std::vector<std::pair<TableId, Schema>> read_snapshot(
    PgConnection& conn, const std::string& snapshot_name, const std::vector<CapturedTable>& tables,
    const TableFilter& filter, const SnapshotSettings& settings, SnapshotProgress progress,
    const std::map<TableId, Schema>& announced, const std::function<bool(SnapshotBatch)>& emit,
    const SnapshotTaken& taken) {
    conn.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    if (!snapshot_name.empty()) {
        conn.exec("SET TRANSACTION SNAPSHOT " + conn.quote_literal(snapshot_name));
    } else if (taken) {
        // The first statement takes the transaction's snapshot; the WAL position is read after
        // it, so every transaction it sees committed before that position. The insert position,
        // not the write position (pg_current_wal_lsn): a commit record is inserted before its
        // transaction becomes visible, but under asynchronous commit it is written later, so a
        // transaction the snapshot sees may end past the write position.
        PgResult r =
            conn.exec("SELECT txid_current_snapshot()::text, pg_current_wal_insert_lsn()::text");
        auto snapshot = TxnSnapshot::parse(r.text(0, 0));
        auto high = parse_lsn(r.text(0, 1));
        if (!snapshot || !high)
            throw std::runtime_error("postgres source: the server answered snapshot '" +
                                     r.text(0, 0) + "' at '" + r.text(0, 1) + "'");
        taken(*snapshot, *high);
    }
    {
        // For the progress report (metrics/progress.h): an estimate, read in the same snapshot.
        std::string oids = "{";
        for (const CapturedTable& t : tables) {
            const std::string name = filter.table_id(t.schema, t.name).str();
            if (std::find(progress.done.begin(), progress.done.end(), name) != progress.done.end())
                continue;
            if (oids.size() > 1) oids += ',';
            oids += std::to_string(t.oid);
        }
        oids += '}';
        PgResult r = conn.exec_params(
            "SELECT COALESCE(pg_catalog.sum(GREATEST(c.reltuples, 0)), 0)::pg_catalog.int8"
            " FROM pg_catalog.pg_class c WHERE c.oid = ANY($1::pg_catalog.oid[])",
            {oids});
        SnapshotBatch start;
        start.progress = progress;
        start.rows_estimate = std::stoll(r.text(0, 0));
        if (!emit(std::move(start))) {
            conn.exec("COMMIT");
            return {};
        }
    }
    std::vector<std::pair<TableId, Schema>> schemas;
    for (const CapturedTable& t : tables) {
        const TableId id = filter.table_id(t.schema, t.name);
        std::vector<TextForm> forms;
        Schema schema = table_schema(conn, t.oid, id.str(), settings.modes, &forms);
        const auto known = announced.find(id);
        if (std::find(progress.done.begin(), progress.done.end(), id.str()) !=
            progress.done.end()) {
            // No row read now: the stream tells any change since.
            schemas.emplace_back(id, known != announced.end() ? known->second : schema);
            continue;
        }
        if (progress.table != id.str()) {
            progress.table = id.str();
            progress.after.clear();
        }
        SnapshotBatch announce;
        announce.progress = progress;
        if (known == announced.end()) {
            announce.events.push_back(CreateTableEvent{id, schema});
            schemas.emplace_back(id, schema);
        } else if (auto why = columns_differ(known->second, schema.columns())) {
            // Altered, or read under other debezium.* modes, since the restart's checkpoint:
            // the rows read now are of the columns now, so downstream hears of them first.
            if (!settings.schema_changes) throw std::runtime_error(changed_table_refusal(id, *why));
            schemas.emplace_back(
                id, append_schema_changes(id, known->second, schema.columns(), announce.events));
        } else {
            schemas.emplace_back(id, known->second);
        }
        if (!announce.events.empty() && !emit(std::move(announce))) break;
        TableReader reader(conn, t, filter.database(), id, schema, std::move(forms), settings,
                           progress, emit);
        if (!reader.read()) break;
        spdlog::info("postgres source: snapshot of {}: {} rows", id.str(), reader.rows());
        progress.done.push_back(id.str());
        progress.table.clear();
        progress.after.clear();
    }
    conn.exec("COMMIT");
    return schemas;
}

}  // namespace cdcd::postgres
