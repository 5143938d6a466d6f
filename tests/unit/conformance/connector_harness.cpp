// The registry of conformance harnesses (see connector_harness.h).
#include "tests/unit/conformance/connector_harness.h"

namespace cdcd::conformance {

namespace {

std::vector<ConnectorHarness>& registered() {
    static std::vector<ConnectorHarness> all;
    return all;
}

}  // namespace

const char* to_string(Role role) {
    return role == Role::Source ? "source" : "sink";
}

const std::vector<ConnectorHarness>& harnesses() {
    return registered();
}

const ConnectorHarness* find_harness(Role role, const std::string& type) {
    for (const auto& h : registered())
        if (h.role == role && h.type == type) return &h;
    return nullptr;
}

RegisterHarness::RegisterHarness(ConnectorHarness harness) {
    registered().push_back(std::move(harness));
}

std::string default_invalid_value(config::OptionType type) {
    switch (type) {
        case config::OptionType::Int:
        case config::OptionType::Long:
            return "twelve";
        case config::OptionType::Double:
            return "a-lot";
        case config::OptionType::Boolean:
            return "maybe";
        case config::OptionType::Duration:
            return "5 parsecs";
        case config::OptionType::MemorySize:
            return "lots";
        case config::OptionType::Enum:
            return "NO-SUCH-VALUE";
        case config::OptionType::String:
        case config::OptionType::List:
            return "";
    }
    return "";
}

}  // namespace cdcd::conformance
