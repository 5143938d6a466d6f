#include "pipeline/connector/source.h"

namespace cdcd {

std::string Source::describe_state(std::string_view state) const {
    return "{\"bytes\":" + std::to_string(state.size()) + "}";
}

}  // namespace cdcd
