// MNS answers and OSS event notifications from hostile bytes: a ReceiveMessage batch, a
// BatchDeleteMessage error list, and a message body decoded into OSS events (JSON, XML or base64
// of either). A body may be refused (XmlError, EventDecodeError) and an entry may be invalid
// (its error and raw JSON kept); nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sources/oss/event_decoder.h"
#include "sources/oss/mns_client.h"
#include "sources/oss/xml.h"

using namespace cdcd::oss;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string body(reinterpret_cast<const char*>(data), size);
    try {
        for (const auto& message : parse_messages(body)) {
            try {
                (void)decode_message_body(message.body);
            } catch (const EventDecodeError&) {
            }
        }
    } catch (const XmlError&) {
    }
    try {
        (void)parse_batch_delete_errors(body);
    } catch (const XmlError&) {
    }
    try {
        for (const auto& entry : decode_message_entries(body)) {
            if (!entry.event) continue;
            (void)action_of(entry.event->event_name);
            std::string value;
            for (const char* key : {"eventTime", "ossObjectKey", "ossObjectSize", "ossObjectETag"})
                (void)metadata_value(*entry.event, key, value);
        }
    } catch (const EventDecodeError&) {
    }
    return 0;
}
