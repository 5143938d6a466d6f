#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace cdcd {

std::string base64_encode(std::string_view bytes);
/// Standard alphabet with padding; whitespace is not allowed. nullopt on malformed input.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace cdcd
