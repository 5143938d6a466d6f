// Conformance harness of the `file` sink (sinks/file/).
#include "tests/unit/conformance/connector_harness.h"

namespace cdcd::conformance {

const RegisterHarness kFileSink{{
    .role = Role::Sink,
    .type = "file",
    .minimal_options = "  path: /tmp/cdcd-conformance-file-sink.jsonl\n",
}};

}  // namespace cdcd::conformance
