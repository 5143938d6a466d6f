// A Kafka sink without exactly-once resuming from a checkpoint an exactly-once run took settles
// the transactions it lists (KafkaSink::settle_leftover_transactions); with nothing pending there
// is nothing to settle, and without the run's transactional ids it cannot, and says so.
#include <catch2/catch.hpp>

#include "config/pipeline_options.h"
#include "sinks/kafka/kafka_sink.h"

using namespace cdcd;
using namespace cdcd::kafka;

TEST_CASE("kafka sink: nothing pending from an exactly-once run resumes where it is") {
    KafkaSinkSettings settings;
    KafkaSink sink(settings);
    CHECK(sink.settle_leftover_transactions(TransactionsState{"cdcd-eos-p", "00ff", {}, ""}, 7) ==
          7);
}

TEST_CASE("kafka sink: pending transactions without the transactional ids to settle them") {
    KafkaSinkSettings settings;  // no sink.transactional-id-prefix, the default pipeline.name
    settings.pipeline_name = config::kDefaultPipelineName;
    KafkaSink sink(settings);
    TransactionsState pending{"cdcd-eos-orders", "00ff", {{7, "orders"}}, ""};
    CHECK_THROWS_WITH(sink.settle_leftover_transactions(pending, 7),
                      Catch::Contains("lists transactions of an exactly-once run (marker group "
                                      "cdcd-eos-orders) not known to be committed") &&
                          Catch::Contains("set sink.transactional-id-prefix or pipeline.name"));
}
