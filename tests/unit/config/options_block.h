#pragma once
// A connector's options block as `cdcd validate` reads it, for the connectors' option tests: the
// block on line 9 of p.yaml, its keys (in key order) on lines 10, 11, ..., column 3.
#include <map>
#include <string>
#include <string_view>

#include "config/option_validator.h"

namespace cdcd::config::test {

inline ValidatedOptions validate_block(const ConnectorOptionsSpec& spec,
                                       const std::map<std::string, std::string>& kv,
                                       std::string_view block_name, Diagnostics& diagnostics) {
    RawOptions raw;
    int line = 10;
    for (const auto& [k, v] : kv) raw[k] = RawValue{v, SourceLocation{"p.yaml", line++, 3}};
    return validate_options(spec, raw, SourceLocation{"p.yaml", 9, 1}, block_name, diagnostics);
}

}  // namespace cdcd::config::test
