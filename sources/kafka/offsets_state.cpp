#include "sources/kafka/offsets_state.h"

#include <charconv>
#include <limits>
#include <stdexcept>

#include "formats/json/json_writer.h"
#include "pipeline/connector/connector_state.h"

namespace cdcd::kafka {

namespace {

constexpr std::string_view kStateName = "kafka-source";
// 1 was the text format before the connector state envelope (decode_text_state); 2 is
// describe_state_json()'s object in the envelope.
constexpr int kStateVersion = 2;
constexpr std::string_view kTextHeader = "cdcd-kafka-source 1";

[[noreturn]] void bad(const std::string& why) {
    throw std::runtime_error("kafka source: unreadable checkpoint state: " + why);
}

template <typename T>
T number(std::string_view s) {
    T v{};
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        bad("not a number: '" + std::string(s) + "'");
    return v;
}

}  // namespace

std::string encode_state(const SourceState& state) {
    return wrap_connector_state(kStateName, kStateVersion, describe_state_json(state));
}

namespace {

/// The text format of the releases before the connector state envelope.
SourceState decode_text_state(std::string_view blob) {
    SourceState state;
    std::size_t pos = 0;
    bool first = true;
    while (pos < blob.size()) {
        std::size_t end = blob.find('\n', pos);
        if (end == std::string_view::npos) end = blob.size();
        std::string_view line = blob.substr(pos, end - pos);
        pos = end + 1;
        if (first) {
            if (line != kTextHeader) bad("unknown header '" + std::string(line) + "'");
            first = false;
            continue;
        }
        if (line.empty()) continue;
        if (line.substr(0, 2) == "o ") {
            std::string_view rest = line.substr(2);
            std::size_t a = rest.find(' ');
            std::size_t b = a == std::string_view::npos ? a : rest.find(' ', a + 1);
            if (b == std::string_view::npos) bad("offset line '" + std::string(line) + "'");
            PartitionKey key{std::string(rest.substr(0, a)),
                             number<std::int32_t>(rest.substr(a + 1, b - a - 1))};
            state.offsets[key] = number<std::int64_t>(rest.substr(b + 1));
        } else if (line.substr(0, 2) == "s ") {
            state.schemas = table_schemas_from_json(line.substr(2));
        } else {
            bad("line '" + std::string(line) + "'");
        }
    }
    if (first) bad("empty");
    return state;
}

}  // namespace

SourceState decode_state(std::string_view blob) {
    if (!is_connector_state(blob)) return decode_text_state(blob);
    ConnectorStateReader reader(blob, kStateName, kStateVersion);
    StateFields payload(reader, reader.payload());
    SourceState state;
    for (simdjson::dom::element e : payload.array("offsets")) {
        StateFields entry(reader, e, "offsets[]");
        std::int64_t partition = entry.integer("partition");
        if (partition < std::numeric_limits<std::int32_t>::min() ||
            partition > std::numeric_limits<std::int32_t>::max())
            throw reader.error("partition " + std::to_string(partition) + " out of range");
        PartitionKey key{std::string(entry.string("topic")), static_cast<std::int32_t>(partition)};
        if (!state.offsets.emplace(std::move(key), entry.integer("offset")).second)
            throw reader.error("partition listed twice");
    }
    state.schemas = table_schemas_from_json(simdjson::minify(payload.element("tables")));
    return state;
}

std::string describe_state_json(const SourceState& state) {
    std::string out;
    json::Writer w(out);
    w.begin_object().key("offsets").begin_array();
    for (const auto& [key, offset] : state.offsets) {
        w.begin_object().key("topic").string(key.first).key("partition").integer(key.second);
        w.key("offset").integer(offset).end_object();
    }
    w.end_array().key("tables").raw(state.schemas.empty() ? "[]"
                                                          : table_schemas_to_json(state.schemas));
    w.end_object();
    return out;
}

}  // namespace cdcd::kafka
