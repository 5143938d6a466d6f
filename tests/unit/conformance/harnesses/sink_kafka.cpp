// Conformance harness of the `kafka` sink (sinks/kafka/).
#include "tests/unit/conformance/connector_harness.h"

namespace cdcd::conformance {

const RegisterHarness kKafkaSink{{
    .role = Role::Sink,
    .type = "kafka",
    .minimal_options = "  properties.bootstrap.servers: 127.0.0.1:9\n",
}};

}  // namespace cdcd::conformance
