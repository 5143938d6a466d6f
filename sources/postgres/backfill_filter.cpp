#include "sources/postgres/backfill_filter.h"

#include <algorithm>
#include <stdexcept>

namespace cdcd::postgres {

namespace {

bool contains(const std::vector<std::string>& tables, const std::string& table) {
    return std::find(tables.begin(), tables.end(), table) != tables.end();
}

/// The columns the snapshot read `schema`'s table in order of (snapshot_reader.h's paging_key,
/// without its refusals: a table the snapshot could not read by a key was read whole).
std::vector<std::size_t> key_columns(const Schema& schema,
                                     const std::optional<std::string>& chunk_key_column) {
    std::vector<std::size_t> key;
    for (int index : schema.primary_key_indexes()) key.push_back(static_cast<std::size_t>(index));
    if (!key.empty() || !chunk_key_column) return key;
    for (std::size_t i = 0; i < schema.columns().size(); ++i)
        if (schema.columns()[i].name == *chunk_key_column && !schema.columns()[i].type.nullable())
            return {i};
    return key;
}

/// The key of `tuple` in text; nullopt when the table has none or a key value was not sent.
std::optional<std::vector<std::string>> key_of(const TupleData& tuple,
                                               const std::vector<std::size_t>& columns) {
    if (columns.empty()) return std::nullopt;
    std::vector<std::string> key;
    for (std::size_t c : columns) {
        if (c >= tuple.size() || tuple[c].kind != TupleValue::Kind::Text) return std::nullopt;
        key.push_back(tuple[c].text);
    }
    return key;
}

}  // namespace

BackfillFilter::BackfillFilter(std::vector<ResumedRead> reads, KeyAtOrBefore at_or_before,
                               std::optional<std::string> chunk_key_column)
    : reads_(std::move(reads)),
      at_or_before_(std::move(at_or_before)),
      chunk_key_column_(std::move(chunk_key_column)) {}

bool BackfillFilter::active(Lsn lsn) const {
    for (const ResumedRead& r : reads_)
        if (lsn < r.high) return true;
    return false;
}

bool BackfillFilter::emitted_before(std::size_t i, const TableId& table,
                                    const std::optional<std::vector<std::string>>& key) const {
    const SnapshotProgress& from = reads_[i].from;
    const std::string& name = table.str();
    if (contains(from.done, name)) return true;
    if (from.table != name || from.after.empty() || !key) return false;
    return at_or_before_(table, *key, from.after);
}

Verdict BackfillFilter::row(const TableId& table,
                            const std::optional<std::vector<std::string>>& key,
                            std::uint32_t xid) const {
    // Most changes come from transactions no resumed snapshot saw: no key comparison needed.
    bool seen = false;
    for (const ResumedRead& r : reads_) seen = seen || r.snapshot.sees(xid);
    if (!seen) return Verdict::Emit;
    // A key the stream did not carry (an unchanged TOASTed key value) of a table split between
    // reads: which read holds it cannot be told, so the change is emitted (at-least-once rather
    // than lost).
    if (!key)
        for (const ResumedRead& r : reads_)
            if (r.from.table == table.str() && !r.from.after.empty()) return Verdict::Emit;
    // The row was read by the last resumed read that began before it had been emitted.
    for (std::size_t i = reads_.size(); i-- > 0;)
        if (!emitted_before(i, table, key))
            return reads_[i].snapshot.sees(xid) ? Verdict::Suppress : Verdict::Emit;
    return Verdict::Emit;  // read in the slot's exported snapshot
}

void BackfillFilter::apply(const PgoutputMessage& message, std::uint32_t xid,
                           const ChangeDecoder& decoder, EventBatch& events,
                           std::vector<BadRecord>& bad) const {
    auto drop_all = [&] {
        events.clear();
        bad.clear();
    };
    auto verdict = [&](Oid oid, const TupleData& tuple) {
        auto table = decoder.captured(oid);
        return row(table->first, key_of(tuple, key_columns(*table->second, chunk_key_column_)),
                   xid);
    };
    if (const auto* m = std::get_if<InsertMessage>(&message)) {
        if (decoder.captured(m->relation_oid) &&
            verdict(m->relation_oid, m->new_tuple) == Verdict::Suppress)
            drop_all();
    } else if (const auto* m = std::get_if<DeleteMessage>(&message)) {
        if (decoder.captured(m->relation_oid) &&
            verdict(m->relation_oid, m->old_tuple) == Verdict::Suppress)
            drop_all();
    } else if (const auto* m = std::get_if<UpdateMessage>(&message)) {
        if (!decoder.captured(m->relation_oid)) return;
        const Verdict after = verdict(m->relation_oid, m->new_tuple);
        const Verdict before = m->old_kind ? verdict(m->relation_oid, m->old_tuple) : after;
        if (before == after) {
            if (after == Verdict::Suppress) drop_all();
            return;
        }
        // The key moved between reads (the verdicts differ only for different keys): the decoder
        // emitted a delete of the old key and an insert of the new one (as Debezium does), or one
        // update; only the side whose read did not see the change is left.
        for (Event& e : events) {
            auto* change = std::get_if<DataChangeEvent>(&e);
            if (!change || change->op != OpType::Update) continue;
            if (before == Verdict::Emit && change->before) {
                e = DataChangeEvent::remove(change->table, std::move(*change->before),
                                            std::move(change->meta));
            } else if (after == Verdict::Emit && change->after) {
                e = DataChangeEvent::insert(change->table, std::move(*change->after),
                                            std::move(change->meta));
            }
        }
        std::erase_if(events, [&](const Event& e) {
            const auto* change = std::get_if<DataChangeEvent>(&e);
            if (!change) return false;
            if (change->op == OpType::Delete) return before == Verdict::Suppress;
            if (change->op == OpType::Insert) return after == Verdict::Suppress;
            return false;
        });
    } else if (std::holds_alternative<TruncateMessage>(message)) {
        std::erase_if(events, [&](const Event& e) {
            const auto* t = std::get_if<TruncateTableEvent>(&e);
            return t && truncate(t->table, xid) == Verdict::Suppress;
        });
    }
}

Verdict BackfillFilter::truncate(const TableId& table, std::uint32_t xid) const {
    const std::string& name = table.str();
    auto partly_before = [&](std::size_t i) {
        const SnapshotProgress& from = reads_[i].from;
        return contains(from.done, name) || (from.table == name && !from.after.empty());
    };
    // The reads holding some of the table's rows, and whether each saw the truncate; the
    // exported snapshot (before the first) saw no streamed transaction.
    std::vector<bool> saw;
    if (reads_.empty()) return Verdict::Emit;
    if (partly_before(0)) saw.push_back(false);
    for (std::size_t i = 0; i < reads_.size(); ++i) {
        if (contains(reads_[i].from.done, name)) continue;  // all of it read before i
        const bool last = i + 1 == reads_.size();
        if (last || partly_before(i + 1)) saw.push_back(reads_[i].snapshot.sees(xid));
    }
    if (std::all_of(saw.begin(), saw.end(), [](bool s) { return !s; })) return Verdict::Emit;
    if (std::all_of(saw.begin(), saw.end(), [](bool s) { return s; })) return Verdict::Suppress;
    throw std::runtime_error(
        "postgres source: table " + name +
        " was truncated while its snapshot was interrupted; some of its rows were read before "
        "the truncate and others after it, which no event can tell downstream: restart with "
        "--reset-state (a new snapshot)");
}

}  // namespace cdcd::postgres
