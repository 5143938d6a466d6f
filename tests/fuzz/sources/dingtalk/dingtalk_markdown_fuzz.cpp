// DingTalk document blocks from hostile JSON rendered to Markdown. Text that is not a JSON array
// is refused (std::invalid_argument); any array renders, whatever its blocks hold.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "sources/dingtalk/markdown_renderer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        (void)cdcd::dingtalk::render_markdown(
            std::string_view(reinterpret_cast<const char*>(data), size));
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
