// DingTalk answers from hostile bytes: the first byte picks the answer (error, ListWorkspaces,
// GetWorkspace, ListNodes, GetNode, DocBlocksQuery), the rest is its body; the blocks of a
// DocBlocksQuery answer are rendered to Markdown as the source does. An answer may be refused
// (ApiError); nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sources/dingtalk/api_responses.h"
#include "sources/dingtalk/markdown_renderer.h"

using namespace cdcd::dingtalk;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        switch (data[0] % 6) {
            case 0: {
                ErrorBody e = parse_error(body);
                (void)classify_error(400, e.code, e.message);
                break;
            }
            case 1:
                (void)parse_workspace_page(body);
                break;
            case 2:
                (void)parse_workspace(body);
                break;
            case 3:
                for (const Node& node : parse_node_page(body).items) (void)node.is_document();
                break;
            case 4:
                (void)parse_node(body);
                break;
            default: {
                std::string blocks = "[";
                for (const auto& block : parse_blocks(body)) {
                    if (blocks.size() > 1) blocks += ',';
                    blocks += block;
                }
                (void)render_markdown(blocks + "]");
            }
        }
    } catch (const ApiError&) {
    }
    return 0;
}
