#include "sources/dingtalk/workspace_discovery.h"

#include <spdlog/spdlog.h>

namespace cdcd::dingtalk {

boost::asio::awaitable<std::vector<Workspace>> discover_workspaces(
    DingTalkApi& api, const std::vector<std::string>& configured,
    const std::set<std::string>& known) {
    std::vector<Workspace> found;
    if (!configured.empty()) {
        for (const auto& id : configured) {
            if (known.contains(id)) continue;
            try {
                Workspace w = co_await api.get_workspace(id);
                if (w.id.empty()) w.id = id;
                found.push_back(std::move(w));
            } catch (const ApiError& e) {
                if (e.cls() == ErrorClass::Skip)  // the spec: authorization errors are not retried
                    throw ApiError(
                        ErrorClass::Fatal, e.status(), e.code(),
                        "dingtalk-cdc: workspace-id " + id + " cannot be read by operator-id (" +
                            e.code() + "; authorization errors are not retried): " + e.what() +
                            ". Give the operator at least view permission in the workspace's "
                            "members and permissions, check that the app, the operator and the "
                            "workspace belong to one organisation, or remove " +
                            id + " from workspace-id");
                if (e.cls() != ErrorClass::NotFound) throw;
                spdlog::warn(
                    "dingtalk-cdc: workspace {} cannot be read yet ({}), retrying at the next "
                    "discovery: {}",
                    id, to_string(e.cls()), e.what());
            }
        }
        co_return found;
    }
    std::set<std::string> seen;
    std::string next;
    do {
        Page<Workspace> page = co_await api.list_workspaces(next);
        for (auto& w : page.items)
            if (!known.contains(w.id) && seen.insert(w.id).second) found.push_back(std::move(w));
        next = page.next_token;
    } while (!next.empty());
    co_return found;
}

}  // namespace cdcd::dingtalk
