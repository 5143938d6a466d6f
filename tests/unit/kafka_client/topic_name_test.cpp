// Kafka's rule for topic names, as the broker applies it (Topic.validate).
#include "kafka_client/topic_name.h"

#include <catch2/catch.hpp>
#include <string>

using namespace cdcd::kafka;

TEST_CASE("topic names: letters, digits, '.', '_' and '-', 1 to 249 of them") {
    CHECK_FALSE(topic_name_problem("orders"));
    CHECK_FALSE(topic_name_problem("app_db.orders-v2"));
    CHECK_FALSE(topic_name_problem(std::string(249, 'a')));
    CHECK_FALSE(topic_name_problem("..."));  // only "." and ".." themselves are refused

    CHECK(topic_name_problem("") == "an empty name is not a Kafka topic name");
    CHECK(topic_name_problem(".") == "`.` is not a Kafka topic name: '.' and '..' are not allowed");
    CHECK(topic_name_problem("..") ==
          "`..` is not a Kafka topic name: '.' and '..' are not allowed");
    CHECK(topic_name_problem(std::string(250, 'a')) ==
          "a name of 250 characters is not a Kafka topic name: at most 249");
    for (const char* bad : {"a b", "a;b", "a/b", "a:b", "ä", "a\tb"})
        CHECK(topic_name_problem(bad) == "`" + std::string(bad) +
                                             "` is not a Kafka topic name: it may hold only ASCII "
                                             "letters, digits, '.', '_' and '-'");
}
