#include "sources/oss/source_state.h"

#include <limits>

#include "pipeline/connector/connector_state.h"
#include "pipeline/util/base64.h"

namespace cdcd::oss {

namespace {

constexpr std::string_view kStateName = "oss-cdc";
constexpr int kStateVersion = 2;
constexpr std::uint64_t kBinaryVersion = 1;  // before the envelope

constexpr SourcePhase kPhases[] = {SourcePhase::Start, SourcePhase::Snapshot,
                                   SourcePhase::Incremental, SourcePhase::Done};

SourcePhase phase_from_number(std::uint64_t phase) {
    // Checked before the cast: SourcePhase is 8 bits wide, so 256 would become Start.
    if (phase > static_cast<std::uint64_t>(SourcePhase::Done))
        throw StateError("oss-cdc state: unknown phase " + std::to_string(phase) +
                         " (known: 0-3, start to done)");
    return static_cast<SourcePhase>(phase);
}

SourceState decode_binary(std::string_view state) {
    ByteReader r(state);
    if (r.varint() != kBinaryVersion) throw StateError("oss-cdc state: unknown version");
    SourceState s;
    s.version = static_cast<int>(kBinaryVersion);
    s.phase = phase_from_number(r.varint());
    s.snapshot = SnapshotProgress::decode(r);
    s.mns = MnsState::decode(r);
    s.polling = PollingState::decode(r);
    if (!r.done()) throw StateError("oss-cdc state: trailing bytes");
    return s;
}

std::string base64_field(const ConnectorStateReader& reader, std::string_view text,
                         const char* field) {
    auto bytes = cdcd::base64_decode(text);  // strict (oss::base64_decode is lenient)
    if (!bytes) throw reader.error(std::string("field \"") + field + "\" is not base64");
    return std::move(*bytes);
}

SourceState decode_json(std::string_view state) {
    ConnectorStateReader reader(state, kStateName, kStateVersion);
    StateFields payload(reader, reader.payload());
    SourceState s;
    s.version = reader.version();
    std::string_view phase = payload.string("phase");
    bool known = false;
    for (SourcePhase p : kPhases)
        if (phase == to_string(p)) s.phase = p, known = true;
    if (!known)
        throw StateError("oss-cdc state: unknown phase '" + std::string(phase) +
                         "' (known: start, snapshot, incremental, done)");

    StateFields snapshot(reader, payload.element("snapshot"), "snapshot");
    std::uint64_t prefix_index = snapshot.unsigned_integer("prefix_index");
    if (prefix_index > std::numeric_limits<std::uint32_t>::max())
        throw StateError("oss-cdc snapshot state: prefix index " + std::to_string(prefix_index) +
                         " out of range");
    s.snapshot.prefix_index = static_cast<std::uint32_t>(prefix_index);
    s.snapshot.start_after =
        base64_field(reader, snapshot.string("start_after_base64"), "snapshot.start_after_base64");
    s.snapshot.emitted = snapshot.unsigned_integer("emitted");

    s.mns.skip_before_ms =
        StateFields(reader, payload.element("mns"), "mns").integer("skip_before_ms");

    StateFields polling(reader, payload.element("polling"), "polling");
    s.polling.baseline_done = polling.boolean("baseline_done");
    s.polling.scans = polling.unsigned_integer("scans");
    for (simdjson::dom::element e : polling.array("prefixes")) {
        std::string_view text;
        if (e.get_string().get(text))
            throw reader.error("field \"polling.prefixes\" holds a value that is not a string");
        std::string bytes = base64_field(reader, text, "polling.prefixes");
        ByteReader r(bytes);
        s.polling.prefixes.push_back(KeyIndex::decode(r));
        if (!r.done()) throw StateError("oss-cdc state: trailing bytes in a polling prefix");
    }
    return s;
}

}  // namespace

const char* to_string(SourcePhase phase) {
    switch (phase) {
        case SourcePhase::Start:
            return "start";
        case SourcePhase::Snapshot:
            return "snapshot";
        case SourcePhase::Incremental:
            return "incremental";
        case SourcePhase::Done:
            return "done";
    }
    return "?";
}

std::string encode_state(SourcePhase phase, const SnapshotProgress& snapshot, const MnsState& mns,
                         const PollingState& polling) {
    std::string out = "{\"phase\":\"";
    out += to_string(phase);
    out += "\",\"snapshot\":{\"prefix_index\":" + std::to_string(snapshot.prefix_index) +
           ",\"start_after_base64\":\"" + base64_encode(snapshot.start_after) +
           "\",\"emitted\":" + std::to_string(snapshot.emitted) +
           "},\"mns\":{\"skip_before_ms\":" + std::to_string(mns.skip_before_ms) +
           "},\"polling\":{\"baseline_done\":" + (polling.baseline_done ? "true" : "false") +
           ",\"scans\":" + std::to_string(polling.scans) + ",\"prefixes\":[";
    for (std::size_t i = 0; i < polling.prefixes.size(); ++i) {
        ByteWriter w;
        polling.prefixes[i].encode(w);
        out += i ? ",\"" : "\"";
        out += base64_encode(w.str());
        out += '"';
    }
    out += "]}}";
    return wrap_connector_state(kStateName, kStateVersion, out);
}

SourceState decode_state(std::string_view state) {
    if (!is_connector_state(state)) return decode_binary(state);
    try {
        return decode_json(state);
    } catch (const ConnectorStateError& e) {
        throw StateError(e.what());
    }
}

}  // namespace cdcd::oss
