#pragma once
// Decodes one Kafka message built from text, as the consumer hands it to the decoder: the
// decoder tests' way in, without a broker.
#include <librdkafka/rdkafka.h>

#include <string_view>

#include "sources/kafka/message_decoder.h"

namespace cdcd::kafka::test {

inline EventBatch decode(MessageDecoder& d, std::string_view value, std::string_view key = {}) {
    rd_kafka_message_t m{};
    m.payload = const_cast<char*>(value.data());
    m.len = value.size();
    if (!key.empty()) {
        m.key = const_cast<char*>(key.data());
        m.key_len = key.size();
    }
    EventBatch out;
    d.decode(m, out);
    return out;
}

}  // namespace cdcd::kafka::test
