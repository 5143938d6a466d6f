// Which producer errors reject the record itself (the bad-record policy) and which are the
// connection's, the topic's or the producer's (retry, or fail the pipeline).
#include "sinks/kafka/record_rejection.h"

#include <catch2/catch.hpp>

using namespace cdcd::kafka;

TEST_CASE("a record too large or invalid is rejected for itself") {
    CHECK(rejects_record(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE));
    CHECK(rejects_record(RD_KAFKA_RESP_ERR_INVALID_RECORD));
}

TEST_CASE("queue, transport, topic and producer errors are not the record's") {
    for (auto e : {RD_KAFKA_RESP_ERR_NO_ERROR, RD_KAFKA_RESP_ERR__QUEUE_FULL,
                   RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, RD_KAFKA_RESP_ERR__TRANSPORT,
                   RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
                   RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, RD_KAFKA_RESP_ERR__FENCED,
                   RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE, RD_KAFKA_RESP_ERR__STATE}) {
        INFO(rd_kafka_err2str(e));
        CHECK_FALSE(rejects_record(e));
    }
}

TEST_CASE("the position names topic, key and sink table") {
    CHECK(record_position("orders", R"({"id":7})", "db.orders") ==
          R"(topic orders, key {"id":7}, sink table db.orders)");
    CHECK(record_position("orders", "", "db.orders") ==
          "topic orders, key (none), sink table db.orders");
}
