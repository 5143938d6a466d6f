// Conformance harness of the `values` sink (sinks/values/).
#include "tests/unit/conformance/connector_harness.h"

namespace cdcd::conformance {

const RegisterHarness kValuesSink{{
    .role = Role::Sink,
    .type = "values",
    .minimal_options = "",
}};

}  // namespace cdcd::conformance
