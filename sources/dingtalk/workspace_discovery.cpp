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
                if (e.cls() != ErrorClass::NotFound && e.cls() != ErrorClass::Skip) throw;
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
