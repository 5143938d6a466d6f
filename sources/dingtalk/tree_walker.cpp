#include "sources/dingtalk/tree_walker.h"

#include <spdlog/spdlog.h>

#include <string>
#include <utility>

namespace cdcd::dingtalk {

boost::asio::awaitable<WalkResult> walk_tree(DingTalkApi& api, const Workspace& workspace,
                                             const WalkLimits& limits, WalkFilter filter,
                                             std::set<std::string>* denied) {
    WalkResult result;
    struct Container {
        std::string id;
        int depth;             // of its children
        bool discovered_only;  // under a late exclusion
    };
    // Depth-first; the stack holds containers to list.
    std::vector<Container> stack{{workspace.root_node_id, 1, false}};
    while (!stack.empty()) {
        Container parent = std::move(stack.back());
        stack.pop_back();
        if (denied && denied->contains(parent.id)) {
            result.complete = false;  // its subtree is unknown
            continue;
        }
        std::string next;
        std::vector<Container> children;
        do {
            Page<Node> page;
            try {
                page = co_await api.list_nodes(parent.id, next);
            } catch (const ApiError& e) {
                if (e.cls() != ErrorClass::NotFound && e.cls() != ErrorClass::Skip) throw;
                result.complete = false;
                if (e.cls() == ErrorClass::Skip && denied) {
                    denied->insert(parent.id);
                    spdlog::error(
                        "dingtalk-cdc: workspace {}: the children of node {} cannot be read ({}; "
                        "authorization errors are not retried): skipped until the job restarts: "
                        "{}",
                        workspace.id, parent.id, e.code(), e.what());
                } else {
                    spdlog::warn("dingtalk-cdc: workspace {}: skipping the children of node {}: {}",
                                 workspace.id, parent.id, e.what());
                }
                break;
            }
            for (auto& node : page.items) {
                if (limits.excluded.contains(node.id)) {
                    result.excluded_present.push_back(node.id);
                    if (node.has_children) result.complete = false;  // its subtree is unknown
                    continue;
                }
                const bool discovered_only =
                    parent.discovered_only || limits.late_excluded.contains(node.id);
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
                    if (parent.depth < limits.max_depth)
                        children.push_back({node.id, parent.depth + 1, discovered_only});
                    else
                        result.complete = false;
                }
                if (node.is_document()) {
                    if (discovered_only && !(filter.discovered && filter.discovered(node.id)))
                        continue;  // new under a late exclusion: not discovered
                    DocRef doc{std::move(node), parent.id};
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
        for (auto it = children.rbegin(); it != children.rend(); ++it)
            stack.push_back(std::move(*it));
    }
    co_return result;
}

}  // namespace cdcd::dingtalk
