#pragma once
// The conformance suite's view of one connector. Every source and sink registers a harness in
// harnesses/<role>_<name>.cpp (a few lines: its smallest valid options, and for a source the
// checkpoint states it must restore); the generic tests of this folder then run over every
// registered connector, and a built-in connector without a harness fails the suite.
//
//   const conformance::RegisterHarness kFileSink{{
//       .role = conformance::Role::Sink,
//       .type = "file",
//       .minimal_options = "  path: /tmp/out.jsonl\n",
//   }};
#include <map>
#include <string>
#include <vector>

#include "config/option_spec.h"

namespace cdcd::conformance {

enum class Role { Source, Sink };
const char* to_string(Role role);

struct ConnectorHarness {
    Role role = Role::Source;
    /// The name the connector registers (`type:` in the YAML).
    std::string type;
    /// The smallest valid block: YAML lines indented by two spaces, without `type:`. Servers it
    /// names need not exist (validate and create contact none).
    std::string minimal_options;
    /// An invalid value per option type, for types where the suite's default
    /// (default_invalid_value) does not suit this connector.
    std::map<config::OptionType, std::string> invalid_values = {};
    /// Sources: checkpoint states restore() must accept, each as a previous release wrote it
    /// (keep the old ones when the format changes: a user's position must survive an upgrade).
    std::vector<std::string> state_samples = {};
};

/// Every registered harness, in registration order.
const std::vector<ConnectorHarness>& harnesses();

/// The harness of `type` in `role`, or nullptr.
const ConnectorHarness* find_harness(Role role, const std::string& type);

/// Registers a harness at static-initialisation time (one object per harness file).
struct RegisterHarness {
    explicit RegisterHarness(ConnectorHarness harness);
};

/// The suite's invalid value for an option type ("" for STRING and LIST, which take any text).
std::string default_invalid_value(config::OptionType type);

}  // namespace cdcd::conformance
