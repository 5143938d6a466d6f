// Conformance harness of the `kafka` source (sources/kafka/).
#include "tests/unit/conformance/connector_harness.h"

namespace cdcd::conformance {

const RegisterHarness kKafkaSource{{
    .role = Role::Source,
    .type = "kafka",
    .minimal_options = "  properties.bootstrap.servers: 127.0.0.1:9\n"
                       "  topic: orders\n"
                       "  properties.group.id: conformance\n"
                       "  value.format: debezium-json\n"
                       "  table-id.fixed.name: db.orders\n",
    // Release 0.1 text state: a header, then the next offset per topic partition.
    .state_samples = {"cdcd-kafka-source 1\n",
                      "cdcd-kafka-source 1\no orders 0 42\no orders 1 7\n"},
}};

}  // namespace cdcd::conformance
