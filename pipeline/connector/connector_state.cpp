#include "pipeline/connector/connector_state.h"

#include "pipeline/util/json_escape.h"

namespace cdcd {

namespace {

// The envelope always starts so: no earlier format did (text headers, binary, other JSON keys).
constexpr std::string_view kPrefix = "{\"connector\":";

}  // namespace

std::string wrap_connector_state(std::string_view connector, int version,
                                 std::string_view payload_json) {
    std::string out(kPrefix);
    json::append_quoted(out, connector);
    out += ",\"version\":" + std::to_string(version) + ",\"state\":";
    out.append(payload_json);
    out.push_back('}');
    return out;
}

bool is_connector_state(std::string_view blob) {
    return blob.substr(0, kPrefix.size()) == kPrefix;
}

ConnectorStateReader::ConnectorStateReader(std::string_view blob, std::string_view connector,
                                           int max_version)
    : connector_(connector) {
    simdjson::dom::object root;
    if (parser_.parse(blob.data(), blob.size()).get_object().get(root))
        throw error("not a JSON object");
    std::string_view owner;
    if (root["connector"].get_string().get(owner)) throw error("no \"connector\" name");
    if (owner != connector)
        throw error("it is the state of connector '" + std::string(owner) +
                    "': the pipeline's connector changed since the checkpoint; start over with "
                    "--reset-state");
    std::int64_t version = 0;
    if (root["version"].get_int64().get(version) || version < 1)
        throw error("no \"version\" (a positive integer)");
    if (version > max_version)
        throw error("version " + std::to_string(version) +
                    " was written by a newer cdcd (this one reads up to version " +
                    std::to_string(max_version) +
                    "); run that cdcd, or start over with --reset-state");
    version_ = static_cast<int>(version);
    if (root["state"].get(payload_)) throw error("no \"state\"");
}

ConnectorStateError ConnectorStateReader::error(std::string_view why) const {
    return ConnectorStateError(connector_ + " checkpoint state: " + std::string(why));
}

StateFields::StateFields(const ConnectorStateReader& reader, simdjson::dom::element object,
                         std::string_view where)
    : reader_(reader), where_(where) {
    if (object.get_object().get(object_))
        throw reader_.error((where_.empty() ? std::string("the state") : where_) +
                            " is not a JSON object");
}

void StateFields::fail(const char* key, const char* expected) const {
    throw reader_.error("field \"" + (where_.empty() ? std::string() : where_ + ".") + key +
                        "\" is missing or not " + expected);
}

std::int64_t StateFields::integer(const char* key) const {
    std::int64_t v = 0;
    if (object_[key].get_int64().get(v)) fail(key, "an integer");
    return v;
}

std::uint64_t StateFields::unsigned_integer(const char* key) const {
    std::uint64_t v = 0;
    if (object_[key].get_uint64().get(v)) fail(key, "a non-negative integer");
    return v;
}

bool StateFields::boolean(const char* key) const {
    bool v = false;
    if (object_[key].get_bool().get(v)) fail(key, "true or false");
    return v;
}

std::string_view StateFields::string(const char* key) const {
    std::string_view v;
    if (object_[key].get_string().get(v)) fail(key, "a string");
    return v;
}

simdjson::dom::array StateFields::array(const char* key) const {
    simdjson::dom::array v;
    if (object_[key].get_array().get(v)) fail(key, "an array");
    return v;
}

simdjson::dom::element StateFields::element(const char* key) const {
    simdjson::dom::element v;
    if (object_[key].get(v)) fail(key, "present");
    return v;
}

bool StateFields::has(const char* key) const {
    return !object_[key].error();
}

}  // namespace cdcd
