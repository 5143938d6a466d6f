// A pipeline file from hostile text: loaded, interpolated (${VAR} resolves to a fixed value,
// ${secret_values.x} too) and validated against every built-in connector, as `cdcd validate`
// does. A file may be refused (ConfigError); nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "config/interpolation.h"
#include "config/pipeline_def.h"
#include "pipeline/connector/registry.h"
#include "pipeline/runtime/pipeline_plan.h"

using namespace cdcd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto& registry = ConnectorRegistry::builtin();
    auto templates = [&registry](const std::string& block, const std::string& type,
                                 const std::string& key) {
        return registry.is_template_option(block, type, key);
    };
    auto env = [](const std::string& name) -> std::optional<std::string> {
        if (name.empty() || name[0] == 'U') return std::nullopt;  // U…: an undefined variable
        return "value-of-" + name;
    };
    config::Secrets secrets;
    secrets.set_env_lookup(env);
    try {
        auto definition = config::load_pipeline_string(text, "fuzz.yaml", secrets, env, templates);
        plan_pipeline(std::move(definition), registry);
    } catch (const config::ConfigError&) {
    }
    return 0;
}
