#include "sinks/kafka/writer_state.h"

#include <simdjson.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "pipeline/connector/connector_state.h"
#include "pipeline/schema/schema_json.h"
#include "pipeline/util/json_escape.h"

namespace cdcd::kafka {

namespace {

constexpr std::string_view kStateName = "kafka-sink";
constexpr int kStateVersion = 1;  // {"tables":[...],"transactions":{...}} (transactions optional)

std::runtime_error corrupt(const std::string& why) {
    return std::runtime_error("kafka sink: corrupt writer state in the checkpoint: " + why);
}

std::string tables_json(const std::string& schemas_json) {
    return schemas_json.empty() ? std::string("[]") : schemas_json;
}

/// The payload's object (or, before the envelope, the whole state): the tables and, with
/// exactly-once, the transactions.
DecodedWriterState decode_writer_object(simdjson::dom::object root) {
    DecodedWriterState out;
    simdjson::dom::element tables;
    if (!root["tables"].get(tables)) out.schemas_json = simdjson::minify(tables);
    simdjson::dom::object txn;
    if (root["transactions"].get_object().get(txn)) return out;
    TransactionsState t;
    std::string_view text;
    if (txn["group"].get_string().get(text)) throw corrupt("no transactions.group");
    t.group = std::string(text);
    if (txn["token"].get_string().get(text)) throw corrupt("no transactions.token");
    t.token = std::string(text);
    if (!txn["ids"].get_string().get(text)) t.ids = std::string(text);  // absent before 2026-12-07
    simdjson::dom::array pending;
    if (txn["pending"].get_array().get(pending)) throw corrupt("no transactions.pending");
    for (simdjson::dom::element e : pending) {
        TransactionsState::Pending p;
        std::uint64_t checkpoint = 0;
        if (e["checkpoint"].get_uint64().get(checkpoint) || e["topic"].get_string().get(text))
            throw corrupt("bad transactions.pending entry");
        p.checkpoint = checkpoint;
        p.topic = std::string(text);
        t.pending.push_back(std::move(p));
    }
    out.transactions = std::move(t);
    return out;
}

}  // namespace

std::string encode_writer_state(const std::string& schemas_json) {
    return wrap_connector_state(kStateName, kStateVersion,
                                "{\"tables\":" + tables_json(schemas_json) + "}");
}

std::string encode_writer_state(const std::string& schemas_json, const TransactionsState& txn) {
    std::string out = "{\"tables\":" + tables_json(schemas_json);
    out += ",\"transactions\":{\"group\":" + json::quoted(txn.group) +
           ",\"token\":" + json::quoted(txn.token);
    if (!txn.ids.empty()) out += ",\"ids\":" + json::quoted(txn.ids);
    out += ",\"pending\":[";
    for (std::size_t i = 0; i < txn.pending.size(); ++i) {
        if (i) out += ",";
        out += "{\"checkpoint\":" + std::to_string(txn.pending[i].checkpoint) +
               ",\"topic\":" + json::quoted(txn.pending[i].topic) + "}";
    }
    return wrap_connector_state(kStateName, kStateVersion, out + "]}}");
}

DecodedWriterState decode_writer_state(std::string_view state) {
    simdjson::dom::object root;
    if (is_connector_state(state)) {
        ConnectorStateReader reader(state, kStateName, kStateVersion);
        if (reader.payload().get_object().get(root)) throw reader.error("not a JSON object");
        return decode_writer_object(root);
    }
    // Before the envelope: nothing, the schemas' array, or the object the payload is now.
    DecodedWriterState out;
    std::size_t first = state.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return out;
    if (state[first] != '{') {  // schemas only
        out.schemas_json = std::string(state);
        return out;
    }
    simdjson::dom::parser parser;
    if (parser.parse(state.data(), state.size()).get_object().get(root)) throw corrupt("not JSON");
    return decode_writer_object(root);
}

std::string merge_writer_states(const std::vector<std::string>& states) {
    std::map<TableId, Schema> tables;
    std::optional<TransactionsState> merged;
    for (const std::string& state : states) {
        DecodedWriterState decoded = decode_writer_state(state);
        if (!decoded.schemas_json.empty())
            for (auto& [id, schema] : table_schemas_from_json(decoded.schemas_json))
                tables.emplace(id, std::move(schema));  // every writer saw every schema change
        if (!decoded.transactions) continue;
        TransactionsState& t = *decoded.transactions;
        if (!merged) {
            merged = std::move(t);
            continue;
        }
        if (t.group != merged->group || t.token != merged->token || t.ids != merged->ids)
            throw corrupt("its writers' states name different transactions (group " +
                          merged->group + " and " + t.group + ")");
        for (auto& p : t.pending)
            if (std::none_of(merged->pending.begin(), merged->pending.end(),
                             [&](const auto& q) { return q.checkpoint == p.checkpoint; }))
                merged->pending.push_back(std::move(p));
    }
    TableSchemas all(tables.begin(), tables.end());
    const std::string schemas = all.empty() ? std::string() : table_schemas_to_json(all);
    if (!merged) return encode_writer_state(schemas);
    std::sort(merged->pending.begin(), merged->pending.end(),
              [](const auto& a, const auto& b) { return a.checkpoint < b.checkpoint; });
    return encode_writer_state(schemas, *merged);
}

}  // namespace cdcd::kafka
