// Shared helpers for the config tests.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "config/diagnostics.h"
#include "config/interpolation.h"
#include "config/pipeline_def.h"

namespace cdcd::config::test {

inline std::string fixture(std::string_view name) {
    return std::string(CDCD_CONFIG_FIXTURES) + "/" + std::string(name);
}

// An environment made of a fixed map, so tests do not depend on the real one.
inline EnvLookup env_of(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
        auto it = vars.find(name);
        if (it == vars.end()) {
            return std::nullopt;
        }
        return it->second;
    };
}

// Secrets with no file and an empty CDCD_SECRET_* environment.
inline Secrets no_secrets() {
    Secrets s;
    s.set_env_lookup(env_of({}));
    return s;
}

// The text of the ConfigError thrown when loading yaml as "p.yaml", or "" if it loads.
inline std::string load_errors(std::string_view yaml, const EnvLookup& env = env_of({}),
                               const Secrets& secrets = no_secrets()) {
    try {
        load_pipeline_string(yaml, "p.yaml", secrets, env);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

}  // namespace cdcd::config::test
