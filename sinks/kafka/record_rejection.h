#pragma once
// Which errors reject a record itself, permanently, so that sending it again cannot succeed and
// it belongs to the bad-record policy rather than to a retry or a pipeline failure.
//
// librdkafka checks a record's size against message.max.bytes (Java: max.request.size) in
// produce() and returns MSG_SIZE_TOO_LARGE there, before the record is queued or joins a
// transaction. The broker's own checks (a topic's max.message.bytes, INVALID_RECORD) come back
// in the delivery report, for the whole batch the record travelled in.
#include <librdkafka/rdkafka.h>

#include <string>
#include <string_view>

namespace cdcd::kafka {

/// True for MSG_SIZE_TOO_LARGE and INVALID_RECORD: the record, not the connection, the topic or
/// the producer's state, is refused.
bool rejects_record(rd_kafka_resp_err_t error);

/// "topic orders, key {\"id\":7}, sink table db.orders": where a rejected record was going, for
/// errors and the dead-letter position.
std::string record_position(std::string_view topic, std::string_view key, std::string_view table);

}  // namespace cdcd::kafka
