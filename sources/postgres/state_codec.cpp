#include "sources/postgres/state_codec.h"

#include "formats/json/json_writer.h"
#include "pipeline/connector/connector_state.h"
#include "sources/postgres/replication_protocol.h"

namespace cdcd::postgres {

namespace {
constexpr std::string_view kStateName = "postgres-source";
constexpr int kStateVersion = 1;
}  // namespace

namespace {

void write_progress(json::Writer& w, const SnapshotProgress& p) {
    w.begin_object().key("done").begin_array();
    for (const auto& t : p.done) w.string(t);
    w.end_array().key("table").string(p.table).key("after").begin_array();
    for (const auto& v : p.after) w.string(v);
    w.end_array().end_object();
}

SnapshotProgress read_progress(const ConnectorStateReader& reader, simdjson::dom::element e,
                               const std::string& where) {
    StateFields progress(reader, e, where.c_str());
    SnapshotProgress p;
    for (simdjson::dom::element d : progress.array("done")) {
        if (!d.is_string()) throw reader.error(where + ".done holds a non-string");
        p.done.emplace_back(std::string_view(d.get_string().value()));
    }
    p.table = std::string(progress.string("table"));
    for (simdjson::dom::element a : progress.array("after")) {
        if (!a.is_string()) throw reader.error(where + ".after holds a non-string");
        p.after.emplace_back(std::string_view(a.get_string().value()));
    }
    return p;
}

}  // namespace

std::string describe_state_json(const SourceState& state) {
    std::string out;
    json::Writer w(out);
    w.begin_object().key("slot").string(state.slot);
    w.key("phase").string(state.phase == Phase::Snapshot ? "snapshot" : "stream");
    w.key("lsn").string(format_lsn(state.lsn));
    w.key("txn_events").integer(static_cast<std::int64_t>(state.txn_events));
    if (state.phase == Phase::Snapshot) {
        w.key("snapshot");
        write_progress(w, state.snapshot);
    }
    if (!state.resumed.empty()) {
        w.key("resumed").begin_array();
        for (const ResumedRead& r : state.resumed) {
            w.begin_object().key("from");
            write_progress(w, r.from);
            w.key("snapshot").string(r.snapshot.str()).key("high").string(format_lsn(r.high));
            w.end_object();
        }
        w.end_array();
    }
    if (state.creating_slot_after)
        w.key("creating_slot_after").string(format_lsn(*state.creating_slot_after));
    w.key("tables").raw(state.tables.empty() ? "[]" : table_schemas_to_json(state.tables));
    w.end_object();
    return out;
}

std::string encode_state(const SourceState& state) {
    return wrap_connector_state(kStateName, kStateVersion, describe_state_json(state));
}

SourceState decode_state(std::string_view blob) {
    ConnectorStateReader reader(blob, kStateName, kStateVersion);
    StateFields payload(reader, reader.payload());
    SourceState state;
    state.slot = std::string(payload.string("slot"));
    const std::string_view phase = payload.string("phase");
    if (phase == "snapshot") {
        state.phase = Phase::Snapshot;
    } else if (phase == "stream") {
        state.phase = Phase::Stream;
    } else {
        throw reader.error("phase '" + std::string(phase) + "' is neither snapshot nor stream");
    }
    const std::string_view lsn = payload.string("lsn");
    auto parsed = parse_lsn(lsn);
    if (!parsed) throw reader.error("lsn '" + std::string(lsn) + "' is not an LSN");
    state.lsn = *parsed;
    const std::int64_t txn_events = payload.integer("txn_events");
    if (txn_events < 0) throw reader.error("txn_events is negative");
    state.txn_events = static_cast<std::uint64_t>(txn_events);
    // Written since snapshots are read in chunks; absent: from the start.
    if (state.phase == Phase::Snapshot && payload.has("snapshot"))
        state.snapshot = read_progress(reader, payload.element("snapshot"), "snapshot");
    // Written since restarts in the snapshot are exactly-once; absent: none.
    if (payload.has("resumed")) {
        std::size_t i = 0;
        for (simdjson::dom::element e : payload.array("resumed")) {
            const std::string where = "resumed[" + std::to_string(i++) + "]";
            StateFields read(reader, e, where.c_str());
            ResumedRead r;
            r.from = read_progress(reader, read.element("from"), where + ".from");
            const std::string_view snapshot = read.string("snapshot");
            auto parsed_snapshot = TxnSnapshot::parse(snapshot);
            if (!parsed_snapshot)
                throw reader.error(where + ".snapshot '" + std::string(snapshot) +
                                   "' is not xmin:xmax:xip");
            r.snapshot = std::move(*parsed_snapshot);
            const std::string_view high = read.string("high");
            auto parsed_high = parse_lsn(high);
            if (!parsed_high)
                throw reader.error(where + ".high '" + std::string(high) + "' is not an LSN");
            r.high = *parsed_high;
            state.resumed.push_back(std::move(r));
        }
    }
    // Written since a slot being created is recorded first; absent: none.
    if (payload.has("creating_slot_after")) {
        const std::string_view after = payload.string("creating_slot_after");
        auto parsed_after = parse_lsn(after);
        if (!parsed_after)
            throw reader.error("creating_slot_after '" + std::string(after) + "' is not an LSN");
        state.creating_slot_after = *parsed_after;
    }
    try {
        state.tables = table_schemas_from_json(simdjson::minify(payload.element("tables")));
    } catch (const std::exception& e) {
        throw reader.error(std::string("tables: ") + e.what());
    }
    return state;
}

}  // namespace cdcd::postgres
