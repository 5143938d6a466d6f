#pragma once
// The one convention for a connector's checkpoint state (a source's snapshot_state(), a sink
// writer's flush() result): a JSON object naming whose state it is and the version of its layout,
// around the connector's own payload, also JSON:
//   {"connector":"kafka-source","version":2,"state":{...}}
// `cdcd checkpoints show|export` print every state as JSON, also without the pipeline file; a
// restore names the connector and version it cannot read. A connector bumps its version when the
// payload's layout changes, and keeps reading the older versions (and, for the connectors older
// than this envelope, the bare formats they wrote before: is_connector_state() tells them apart),
// so that an upgrade never loses a position. Binary data inside a payload (a compact index) is a
// base64 string.
#include <simdjson.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cdcd {

/// A connector state that cannot be read: the message names the connector and what is wrong.
struct ConnectorStateError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// `payload_json` (one JSON value the connector wrote) in the envelope of `connector`, `version`.
std::string wrap_connector_state(std::string_view connector, int version,
                                 std::string_view payload_json);

/// True when `blob` is in the envelope (as wrap_connector_state() writes it); false for a state
/// of a release before it, which the connector decodes in its own earlier format.
bool is_connector_state(std::string_view blob);

/// An enveloped state, parsed: its version and its payload. Refuses a state of another connector
/// and a version newer than the connector reads (a downgrade), naming both.
class ConnectorStateReader {
  public:
    /// Throws ConnectorStateError. `blob` must outlive the reader.
    ConnectorStateReader(std::string_view blob, std::string_view connector, int max_version);
    ConnectorStateReader(const ConnectorStateReader&) = delete;  // payload_ points into parser_
    ConnectorStateReader& operator=(const ConnectorStateReader&) = delete;

    int version() const { return version_; }
    simdjson::dom::element payload() const { return payload_; }
    /// The payload as compact JSON text (for a connector whose decoder takes text).
    std::string payload_json() const { return simdjson::minify(payload_); }

    /// `<connector> checkpoint state: <why>`, to throw for a payload the connector cannot read.
    ConnectorStateError error(std::string_view why) const;

  private:
    std::string connector_;
    simdjson::dom::parser parser_;
    simdjson::dom::element payload_;
    int version_ = 0;
};

/// Reads the fields of one JSON object of a payload; a missing or mistyped field throws
/// ConnectorStateError naming the connector and the field.
class StateFields {
  public:
    StateFields(const ConnectorStateReader& reader, simdjson::dom::element object,
                std::string_view where = {});

    std::int64_t integer(const char* key) const;
    std::uint64_t unsigned_integer(const char* key) const;
    bool boolean(const char* key) const;
    std::string_view string(const char* key) const;
    simdjson::dom::array array(const char* key) const;
    simdjson::dom::element element(const char* key) const;
    /// Whether the object has `key` (fields added in a later version are optional).
    bool has(const char* key) const;

  private:
    [[noreturn]] void fail(const char* key, const char* expected) const;

    const ConnectorStateReader& reader_;
    simdjson::dom::object object_;
    std::string where_;
};

}  // namespace cdcd
