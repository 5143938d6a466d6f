// The untyped key -> value map of a YAML block, each value with its position.
#pragma once

#include <map>
#include <string>

#include "config/diagnostics.h"

namespace cdcd::config {

struct RawValue {
    std::string value;
    SourceLocation where;  // position of the key
};

// Ordered by key.
using RawOptions = std::map<std::string, RawValue>;

}  // namespace cdcd::config
