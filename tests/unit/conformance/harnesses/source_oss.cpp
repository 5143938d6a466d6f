// Conformance harness of the `oss-cdc` source (sources/oss/).
#include "tests/unit/conformance/connector_harness.h"

namespace cdcd::conformance {

using namespace std::string_literals;

const RegisterHarness kOssSource{{
    .role = Role::Source,
    .type = "oss-cdc",
    .minimal_options = "  access-key-id: conformance\n"
                       "  access-key-secret: conformance-secret\n"
                       "  region: cn-hangzhou\n"
                       "  mns.endpoint: http://127.0.0.1:9\n"
                       "  mns.queue-name: conformance\n",
    // Release 0.1 binary state (varints): version 1, phase, snapshot progress (prefix, start-after,
    // emitted), MNS skip-before (zigzag), polling (baseline done, scans, prefixes). The second is
    // the incremental phase skipping messages enqueued before 1700000000000 ms.
    .state_samples = {"\x01\x00\x00\x00\x00\x00\x00\x00\x00"s,
                      "\x01\x02\x00\x00\x00\x80\xa0\xab\xfe\xf9\x62\x00\x00\x00"s},
}};

}  // namespace cdcd::conformance
