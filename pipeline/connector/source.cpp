#include "pipeline/connector/source.h"

#include <stdexcept>

namespace cdcd {

std::string Source::describe_state(std::string_view state) const {
    return "{\"bytes\":" + std::to_string(state.size()) + "}";
}

std::string Source::merge_reader_states(const std::vector<std::string>& states) {
    (void)states;
    // Only a source that returned readers from split_readers() is asked to merge their states.
    throw std::logic_error("Source::merge_reader_states: this source has no readers");
}

}  // namespace cdcd
