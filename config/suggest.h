// "did you mean `x`?" suggestions for misspelt keys.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cdcd::config {

std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate if it is close enough to be a plausible typo of word.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates);

// "; did you mean `x`?" or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace cdcd::config
