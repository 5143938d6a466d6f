// The sink's format options apply to the formats in use only (Flink accepts the options of
// key.format and value.format alone): another format's options are refused, not ignored.
#include <catch2/catch.hpp>

#include "sinks/kafka/kafka_sink_options.h"
#include "tests/unit/sinks/kafka/sink_option_errors.h"

using namespace cdcd;
using namespace cdcd::kafka;

namespace {

std::string errors(std::map<std::string, std::string> kv) {
    return testing::sink_option_errors(std::move(kv));
}

}  // namespace

TEST_CASE("value format options of the value.format in use are accepted") {
    CHECK(errors({{"canal-json.encode.ignore-null-fields", "true"},
                  {"value.format", "canal-json"}}) == "");
    CHECK(errors({{"debezium-json.encode.decimal-as-plain-number", "true"},
                  {"debezium-json.include-schema.enabled", "true"}}) == "");
    CHECK(errors({{"json.timestamp-format.standard", "ISO-8601"}}) == "");
}

TEST_CASE("another value format's options are refused, naming value.format") {
    auto e = errors({{"canal-json.encode.ignore-null-fields", "true"}});  // debezium-json default
    CHECK_THAT(e, Catch::Contains("`canal-json.encode.ignore-null-fields` applies only to "
                                  "value.format canal-json, and value.format is debezium-json"));
    e = errors({{"debezium-json.include-schema.enabled", "true"}, {"value.format", "canal-json"}});
    CHECK_THAT(e, Catch::Contains("debezium-json.include-schema.enabled"));
    // false is what canal-json does anyway
    CHECK(errors({{"debezium-json.include-schema.enabled", "false"},
                  {"value.format", "canal-json"}}) == "");
}

TEST_CASE("json.* key options are refused with key.format csv") {
    auto e = errors({{"json.encode.ignore-null-fields", "true"}, {"key.format", "csv"}});
    CHECK_THAT(e, Catch::Contains("applies only to key.format json, and key.format is csv"));
}

TEST_CASE("sink.transactional-id-prefix without exactly-once is refused") {
    CHECK_THAT(errors({{"sink.transactional-id-prefix", "p1"}}),
               Catch::Contains("`sink.transactional-id-prefix` applies only to "
                               "sink.delivery-guarantee exactly-once"));
    CHECK(errors({{"sink.transactional-id-prefix", "p1"},
                  {"sink.delivery-guarantee", "exactly-once"}}) == "");
}
