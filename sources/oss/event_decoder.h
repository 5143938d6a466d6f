#pragma once
// Decodes an MNS message body carrying OSS event notifications, in every delivery form of
// vendor-apis.md §3.1: SIMPLIFIED (base64 JSON), the XML and JSON topic envelopes (base64 JSON
// in Message), and plain JSON; returns one record per entry of `events`.
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

/// Throws EventDecodeError when the body is none of the known forms.
std::vector<OssEvent> decode_message_body(const std::string& body);
/// ObjectCreated:* / ObjectModified:* / ObjectReplication:ObjectCreated|ObjectModified → Upsert;
/// ObjectRemoved:* / ObjectReplication:ObjectRemoved → Delete; anything else (downloads,
/// restores) → Ignore.
EventAction action_of(const std::string& event_name);
/// The metadata.list value of one event ("" and false when the event lacks the field).
bool metadata_value(const OssEvent& e, const std::string& key, std::string& out);

}  // namespace cdcd::oss
