#include "sources/postgres/state_codec.h"

#include "formats/json/json_writer.h"
#include "pipeline/connector/connector_state.h"
#include "sources/postgres/replication_protocol.h"

namespace cdcd::postgres {

namespace {
constexpr std::string_view kStateName = "postgres-source";
constexpr int kStateVersion = 1;
}  // namespace

std::string describe_state_json(const SourceState& state) {
    std::string out;
    json::Writer w(out);
    w.begin_object().key("slot").string(state.slot);
    w.key("phase").string(state.phase == Phase::Snapshot ? "snapshot" : "stream");
    w.key("lsn").string(format_lsn(state.lsn));
    w.key("txn_events").integer(static_cast<std::int64_t>(state.txn_events));
    if (state.phase == Phase::Snapshot) {
        w.key("snapshot").begin_object().key("done").begin_array();
        for (const auto& t : state.snapshot.done) w.string(t);
        w.end_array().key("table").string(state.snapshot.table).key("after").begin_array();
        for (const auto& v : state.snapshot.after) w.string(v);
        w.end_array().end_object();
    }
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
    if (state.phase == Phase::Snapshot && payload.has("snapshot")) {
        StateFields progress(reader, payload.element("snapshot"), "snapshot");
        for (simdjson::dom::element e : progress.array("done")) {
            if (!e.is_string()) throw reader.error("snapshot.done holds a non-string");
            state.snapshot.done.emplace_back(std::string_view(e.get_string().value()));
        }
        state.snapshot.table = std::string(progress.string("table"));
        for (simdjson::dom::element e : progress.array("after")) {
            if (!e.is_string()) throw reader.error("snapshot.after holds a non-string");
            state.snapshot.after.emplace_back(std::string_view(e.get_string().value()));
        }
    }
    try {
        state.tables = table_schemas_from_json(simdjson::minify(payload.element("tables")));
    } catch (const std::exception& e) {
        throw reader.error(std::string("tables: ") + e.what());
    }
    return state;
}

}  // namespace cdcd::postgres
