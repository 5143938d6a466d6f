// Conformance harness of the `vikingdb` sink (sinks/vikingdb/).
#include "tests/unit/conformance/connector_harness.h"

namespace cdcd::conformance {

const RegisterHarness kVikingdbSink{{
    .role = Role::Sink,
    .type = "vikingdb",
    .minimal_options = "  region: cn-beijing\n"
                       "  control-plane.host: http://127.0.0.1:9\n"
                       "  data-plane.host: http://127.0.0.1:9\n"
                       "  api-key: conformance-key\n"
                       "  access-key: conformance-ak\n"
                       "  secret-key: conformance-sk\n",
}};

}  // namespace cdcd::conformance
