// Conformance harness of the `values` source (sources/values/).
#include "tests/unit/conformance/connector_harness.h"

namespace cdcd::conformance {

const RegisterHarness kValuesSource{{
    .role = Role::Source,
    .type = "values",
    .minimal_options = "",
    // The ordinal of the next event to emit, as text.
    .state_samples = {"0", "17"},
}};

}  // namespace cdcd::conformance
