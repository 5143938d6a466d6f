#include "sources/dingtalk/state_codec.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <vector>

#include "pipeline/connector/connector_state.h"
#include "pipeline/util/json_escape.h"

namespace cdcd::dingtalk {

const char* to_string(Phase p) {
    switch (p) {
        case Phase::Baseline:
            return "baseline";
        case Phase::Snapshot:
            return "snapshot";
        case Phase::Incremental:
            return "incremental";
    }
    return "?";
}

namespace {

Phase parse_phase(std::string_view s) {
    if (s == "baseline") return Phase::Baseline;
    if (s == "snapshot") return Phase::Snapshot;
    if (s == "incremental") return Phase::Incremental;
    throw std::invalid_argument("unknown phase `" + std::string(s) + "`");
}

constexpr std::string_view kStateName = "dingtalk-cdc";
// The payload is the object releases before the connector state envelope stored bare with "v":1.
constexpr int kStateVersion = 1;

void check(simdjson::error_code e, const char* what) {
    if (e) throw std::invalid_argument(std::string("dingtalk-cdc state: bad ") + what);
}

}  // namespace

std::string encode_state(const SourceState& state) {
    std::string out = "{\"rawJson\":";
    out += state.include_raw_json ? "true" : "false";
    if (state.excluded) {
        out += ",\"excluded\":[";
        bool first = true;
        for (const auto& id : *state.excluded) {  // a std::set: sorted
            if (!first) out.push_back(',');
            first = false;
            json::append_quoted(out, id);
        }
        out += "]";
    }
    out += ",\"workspaces\":[";
    bool first_split = true;
    for (const auto& [id, split] : state.splits) {
        if (!first_split) out.push_back(',');
        first_split = false;
        out += "{\"id\":";
        json::append_quoted(out, split.workspace_id);
        out += ",\"root\":";
        json::append_quoted(out, split.root_node_id);
        out += ",\"phase\":\"";
        out += to_string(split.phase);
        out += "\",\"cursor\":[" + std::to_string(split.cursor_ms) + ",";
        json::append_quoted(out, split.cursor_id);
        out += "],\"docs\":[";
        // Sorted so that equal states encode equally.
        std::vector<const std::pair<const std::string, Fingerprint>*> docs;
        docs.reserve(split.docs.size());
        for (const auto& entry : split.docs) docs.push_back(&entry);
        std::sort(docs.begin(), docs.end(), [](auto* a, auto* b) { return a->first < b->first; });
        bool first_doc = true;
        for (const auto* entry : docs) {
            if (!first_doc) out.push_back(',');
            first_doc = false;
            out.push_back('[');
            json::append_quoted(out, entry->first);
            char hex[17];
            std::snprintf(hex, sizeof hex, "%016llx",
                          static_cast<unsigned long long>(entry->second.meta_hash));
            out += "," + std::to_string(entry->second.modified_ms) + ",\"" + hex + "\"]";
        }
        out += "],\"retry\":[";
        std::vector<const std::pair<const std::string, RetryEntry>*> retries;
        retries.reserve(split.retries.size());
        for (const auto& entry : split.retries) retries.push_back(&entry);
        std::sort(retries.begin(), retries.end(),
                  [](auto* a, auto* b) { return a->first < b->first; });
        bool first_retry = true;
        for (const auto* entry : retries) {
            if (!first_retry) out.push_back(',');
            first_retry = false;
            out.push_back('[');
            json::append_quoted(out, entry->first);
            out += "," + std::to_string(entry->second.failures) + "," +
                   std::to_string(entry->second.next_ms) + "]";
        }
        out += "]}";
    }
    out += "]}";
    return wrap_connector_state(kStateName, kStateVersion, out);
}

namespace {

/// The payload object (or, before the envelope, the whole state, with its own "v":1).
SourceState decode_object(simdjson::dom::element doc) {
    SourceState state;
    check(doc["rawJson"].get(state.include_raw_json), "rawJson");
    if (auto excluded_field = doc["excluded"]; !excluded_field.error()) {  // absent in older states
        simdjson::dom::array excluded;
        check(excluded_field.get(excluded), "excluded");
        state.excluded.emplace();
        for (auto e : excluded) {
            std::string_view id;
            check(e.get(id), "excluded node id");
            state.excluded->emplace(id);
        }
    }
    simdjson::dom::array splits;
    check(doc["workspaces"].get(splits), "workspaces");
    for (auto s : splits) {
        SplitState split;
        std::string_view v;
        check(s["id"].get(v), "workspace id");
        split.workspace_id = v;
        check(s["root"].get(v), "root");
        split.root_node_id = v;
        check(s["phase"].get(v), "phase");
        split.phase = parse_phase(v);
        simdjson::dom::array cursor;
        check(s["cursor"].get(cursor), "cursor");
        check(cursor.at(0).get(split.cursor_ms), "cursor time");
        check(cursor.at(1).get(v), "cursor id");
        split.cursor_id = v;
        simdjson::dom::array docs;
        check(s["docs"].get(docs), "docs");
        split.docs.reserve(docs.size());
        for (auto d : docs) {
            simdjson::dom::array entry;
            check(d.get(entry), "doc entry");
            std::string_view id, hex;
            Fingerprint fp;
            check(entry.at(0).get(id), "doc id");
            check(entry.at(1).get(fp.modified_ms), "doc time");
            check(entry.at(2).get(hex), "doc hash");
            auto [ptr, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), fp.meta_hash, 16);
            if (ec != std::errc{} || ptr != hex.data() + hex.size())
                throw std::invalid_argument("dingtalk-cdc state: bad doc hash");
            split.docs.emplace(std::string(id), fp);
        }
        if (auto retry_field = s["retry"]; !retry_field.error()) {  // absent in older states
            simdjson::dom::array retries;
            check(retry_field.get(retries), "retry");
            for (auto d : retries) {
                simdjson::dom::array entry;
                check(d.get(entry), "retry entry");
                std::string_view id;
                std::int64_t failures = 0;
                RetryEntry r;
                check(entry.at(0).get(id), "retry doc id");
                check(entry.at(1).get(failures), "retry failures");
                check(entry.at(2).get(r.next_ms), "retry time");
                if (failures < 1 || failures > 1'000'000)
                    throw std::invalid_argument("dingtalk-cdc state: bad retry failures");
                r.failures = static_cast<int>(failures);
                split.retries.emplace(std::string(id), r);
            }
        }
        state.splits.emplace(split.workspace_id, std::move(split));
    }
    return state;
}

}  // namespace

SourceState decode_state(std::string_view text) {
    if (is_connector_state(text)) {
        try {
            ConnectorStateReader reader(text, kStateName, kStateVersion);
            return decode_object(reader.payload());
        } catch (const ConnectorStateError& e) {
            throw std::invalid_argument(e.what());
        }
    }
    simdjson::dom::parser parser;
    simdjson::padded_string padded(text);
    simdjson::dom::element doc;
    check(parser.parse(padded).get(doc), "JSON");
    std::int64_t version = 0;
    check(doc["v"].get(version), "version");
    if (version != 1)
        throw std::invalid_argument("dingtalk-cdc state: unsupported version " +
                                    std::to_string(version));
    return decode_object(doc);
}

}  // namespace cdcd::dingtalk
