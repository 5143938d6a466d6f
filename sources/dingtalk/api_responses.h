#pragma once
// The DingTalk answers the reader understands, from their JSON bodies (vendor-apis.md §1.2,
// §1.3, §1.5). A malformed or incomplete success answer throws ApiError (Transient).
#include <string>
#include <vector>

#include "sources/dingtalk/api_client.h"
#include "sources/dingtalk/model.h"

namespace cdcd::dingtalk {

/// An error answer's `code`/`Code`, `message`/`Message`, `requestid`/`RequestId` (empty when the
/// body is not JSON or lacks them).
struct ErrorBody {
    std::string code, message, request_id;
};
ErrorBody parse_error(const std::string& body);

Page<Workspace> parse_workspace_page(const std::string& body);  // ListWorkspaces
Workspace parse_workspace(const std::string& body);             // GetWorkspace
Page<Node> parse_node_page(const std::string& body);            // ListNodes
Node parse_node(const std::string& body);                       // GetNode
/// DocBlocksQuery: each top-level block of `result.data` as minified JSON text.
std::vector<std::string> parse_blocks(const std::string& body);

}  // namespace cdcd::dingtalk
