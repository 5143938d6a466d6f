// Conformance harness of the `dingtalk-cdc` source (sources/dingtalk/).
#include "tests/unit/conformance/connector_harness.h"

namespace cdcd::conformance {

const RegisterHarness kDingtalkSource{{
    .role = Role::Source,
    .type = "dingtalk-cdc",
    .minimal_options = "  object-type: document\n"
                       "  app-key: conformance\n"
                       "  app-secret: conformance-secret\n"
                       "  operator-id: conformance-operator\n",
    // Release 0.1 JSON state: per workspace the phase, the cursor and each document's fingerprint;
    // the first as written before `excluded` and `retry` existed.
    .state_samples =
        {R"({"v":1,"rawJson":false,"workspaces":[]})",
         R"({"v":1,"rawJson":false,"workspaces":[{"id":"w1","root":"r1","phase":"incremental",)"
         R"("cursor":[1700000000000,"d2"],"docs":[["d1",1690000000000,"0123456789abcdef"],)"
         R"(["d2",1700000000000,"fedcba9876543210"]]}]})"},
}};

}  // namespace cdcd::conformance
