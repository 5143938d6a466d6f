#include "sinks/kafka/record_rejection.h"

namespace cdcd::kafka {

bool rejects_record(rd_kafka_resp_err_t error) {
    return error == RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE ||
           error == RD_KAFKA_RESP_ERR_INVALID_RECORD;
}

std::string record_position(std::string_view topic, std::string_view key, std::string_view table) {
    std::string out = "topic ";
    out += topic;
    out += ", key ";
    out += key.empty() ? std::string_view("(none)") : key;
    out += ", sink table ";
    out += table;
    return out;
}

}  // namespace cdcd::kafka
