#pragma once
// Decodes an MNS message body carrying OSS event notifications, in every delivery form of
// vendor-apis.md §3.1: SIMPLIFIED (base64 JSON), the XML and JSON topic envelopes (base64 JSON
// in Message), and plain JSON. Each entry of `events` decodes on its own, so one malformed entry
// never hides its valid siblings.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cdcd::oss {

enum class EventAction { Upsert, Delete, Ignore };

struct OssEvent {
    std::string event_name;
    std::string event_source;
    std::optional<std::int64_t> event_time_ms;
    std::string event_version;
    std::string region;
    std::string bucket_arn, bucket_name, bucket_owner;
    std::string key;
    std::optional<std::int64_t> size, delta_size, read_from, read_to;
    std::string etag;
    std::string schema_version, rule_id;
    std::string source_ip, request_id, principal_id;
};

class EventDecodeError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// One entry of a body's `events` array: the event, or what is wrong with it and its JSON text.
struct DecodedEntry {
    std::size_t index = 0;  // position in `events`
    std::optional<OssEvent> event;
    std::string error;  // when !event: which field is missing or of the wrong type
    std::string raw;    // when !event: the entry as minified JSON
};

/// Every entry of the body, valid or not, in order. Throws EventDecodeError when the body as a
/// whole is none of the known forms (not JSON, XML nor base64; no `events` array...).
std::vector<DecodedEntry> decode_message_entries(const std::string& body);
/// The events of a body whose every entry is valid; throws EventDecodeError naming the first
/// invalid entry otherwise.
std::vector<OssEvent> decode_message_body(const std::string& body);
/// ObjectCreated:* / ObjectModified:* / ObjectReplication:ObjectCreated|ObjectModified → Upsert;
/// ObjectRemoved:* / ObjectReplication:ObjectRemoved → Delete; anything else (downloads,
/// restores) → Ignore.
EventAction action_of(const std::string& event_name);
/// The metadata.list value of one event ("" and false when the event lacks the field).
bool metadata_value(const OssEvent& e, const std::string& key, std::string& out);

}  // namespace cdcd::oss
