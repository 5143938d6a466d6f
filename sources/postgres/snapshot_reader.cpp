#include "sources/postgres/snapshot_reader.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "sources/postgres/text_values.h"

namespace cdcd::postgres {

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
        for (int index : schema.primary_key_indexes()) {
            key_columns_.push_back(static_cast<std::size_t>(index));
            if (!key_.empty()) key_ += ", ";
            key_ += conn.quote_identifier(schema.columns()[static_cast<std::size_t>(index)].name);
        }
    }

    /// False when `emit` asked to stop.
    bool read() { return key_columns_.empty() ? read_whole() : read_chunks(); }
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
        for (int start = 0; start < n; start += settings_.fetch_size) {
            const int end = std::min(n, start + settings_.fetch_size);
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
        batch.events.push_back(DataChangeEvent::insert(id_, std::move(row).build(), meta_));
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
    EventMeta meta_;  // metadata.list: the same for every row of the table
    std::uint64_t rows_ = 0;
};

}  // namespace

std::vector<std::pair<TableId, Schema>> read_snapshot(
    PgConnection& conn, const std::string& snapshot_name, const std::vector<CapturedTable>& tables,
    const TableFilter& filter, const SnapshotSettings& settings, SnapshotProgress progress,
    const std::set<TableId>& announced, const std::function<bool(SnapshotBatch)>& emit) {
    conn.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    if (!snapshot_name.empty())
        conn.exec("SET TRANSACTION SNAPSHOT " + conn.quote_literal(snapshot_name));
    std::vector<std::pair<TableId, Schema>> schemas;
    for (const CapturedTable& t : tables) {
        const TableId id = filter.table_id(t.schema, t.name);
        std::vector<TextForm> forms;
        Schema schema = table_schema(conn, t.oid, id.str(), settings.modes, &forms);
        schemas.emplace_back(id, schema);
        if (std::find(progress.done.begin(), progress.done.end(), id.str()) != progress.done.end())
            continue;
        if (progress.table != id.str()) {
            progress.table = id.str();
            progress.after.clear();
        }
        if (!announced.count(id)) {
            SnapshotBatch create;
            create.events.push_back(CreateTableEvent{id, schema});
            create.progress = progress;
            if (!emit(std::move(create))) break;
        }
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
