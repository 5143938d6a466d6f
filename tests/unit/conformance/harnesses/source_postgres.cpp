// Conformance harness of the `postgres` source (sources/postgres/).
#include "tests/unit/conformance/connector_harness.h"

namespace cdcd::conformance {

const RegisterHarness kPostgresSource{{
    .role = Role::Source,
    .type = "postgres",
    .minimal_options = "  hostname: 127.0.0.1\n"
                       "  port: 9\n"
                       "  username: cdcd\n"
                       "  password: conformance-password\n"
                       "  tables: cdcd.public.orders\n"
                       "  slot.name: conformance_slot\n",
    .state_samples =
        {R"({"connector":"postgres-source","version":1,"state":{"slot":"conformance_slot","phase":"snapshot","lsn":"0/0","txn_events":0,"tables":[]}})",
         R"({"connector":"postgres-source","version":1,"state":{"slot":"conformance_slot","phase":"stream","lsn":"1/16B3748","txn_events":3,"tables":[]}})"},
}};

}  // namespace cdcd::conformance
