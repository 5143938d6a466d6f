#include "sources/dingtalk/tree_walker.h"

#include <spdlog/spdlog.h>

#include <string>
#include <utility>

namespace cdcd::dingtalk {

boost::asio::awaitable<WalkResult> walk_tree(DingTalkApi& api, const Workspace& workspace,
                                             const WalkLimits& limits, WalkFilter filter) {
    WalkResult result;
    // Depth-first; the stack holds containers to list and the depth of their children.
    std::vector<std::pair<std::string, int>> stack{{workspace.root_node_id, 1}};
    while (!stack.empty()) {
        auto [parent, depth] = stack.back();
        stack.pop_back();
        std::string next;
        std::vector<std::pair<std::string, int>> children;
        do {
            Page<Node> page;
            try {
                page = co_await api.list_nodes(parent, next);
            } catch (const ApiError& e) {
                if (e.cls() != ErrorClass::NotFound && e.cls() != ErrorClass::Skip) throw;
                spdlog::warn("dingtalk-cdc: workspace {}: skipping the children of node {}: {}",
                             workspace.id, parent, e.what());
                result.complete = false;
                break;
            }
            for (auto& node : page.items) {
                if (limits.excluded.contains(node.id)) {
                    result.excluded_present.push_back(node.id);
                    if (node.has_children) result.complete = false;  // its subtree is unknown
                    continue;
                }
                if (result.nodes_visited >= limits.max_nodes) {
                    if (result.complete)
                        spdlog::warn(
                            "dingtalk-cdc: workspace {}: scan.discovery.max-nodes ({}) reached",
                            workspace.id, limits.max_nodes);
                    result.complete = false;
                    co_return result;
                }
                ++result.nodes_visited;
                if (node.has_children) {
                    if (depth < limits.max_depth)
                        children.emplace_back(node.id, depth + 1);
                    else
                        result.complete = false;
                }
                if (node.is_document()) {
                    DocRef doc{std::move(node), parent};
                    if (filter.keep && !filter.keep(doc)) {
                        if (filter.record_unkept)
                            result.unkept_ids.push_back(std::move(doc.node.id));
                        continue;
                    }
                    // Held until the scan ends: drop what the caller does not need (the
                    // workspace is the split's).
                    doc.node.workspace_id = std::string();
                    result.documents.push_back(std::move(doc));
                }
            }
            next = page.next_token;
        } while (!next.empty());
        // Keep the listing order: the first child is walked first.
        for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    }
    co_return result;
}

}  // namespace cdcd::dingtalk
