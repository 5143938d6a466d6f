#pragma once
// Finds the workspaces to read: the configured `workspace-id`s (GetWorkspace, for their root
// node) or every workspace the operator can see (ListWorkspaces, paginated). Discovery is
// cumulative: the caller passes what it knows and gets only new workspaces back.
#include <boost/asio/awaitable.hpp>
#include <set>
#include <string>
#include <vector>

#include "sources/dingtalk/api_client.h"

namespace cdcd::dingtalk {

/// Workspaces not in `known`. A configured workspace that is missing is logged and left for the
/// next discovery; one the operator may not read is a Fatal ApiError naming it (the spec:
/// authorization errors are not retried); transient and fatal errors propagate.
boost::asio::awaitable<std::vector<Workspace>> discover_workspaces(
    DingTalkApi& api, const std::vector<std::string>& configured,
    const std::set<std::string>& known);

}  // namespace cdcd::dingtalk
