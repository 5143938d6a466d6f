#pragma once
// Walks one workspace's node tree (ListNodes, paginated) within scan.discovery.max-depth and
// scan.discovery.max-nodes, skipping excluded nodes with their subtrees, and collects the
// online documents (type FILE, category ALIDOC).
#include <boost/asio/awaitable.hpp>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "sources/dingtalk/api_client.h"
#include "sources/dingtalk/model.h"

namespace cdcd::dingtalk {

struct WalkLimits {
    int max_depth = 100;
    int max_nodes = 100'000;
    std::set<std::string> excluded;
    /// Excluded only after the job had discovered what is under them (ids added to
    /// scan.document.exclude-node-ids on a restart): discovery is cumulative, so their subtrees
    /// are still walked, for the documents already discovered only (WalkFilter::discovered).
    std::set<std::string> late_excluded;
};

struct WalkResult {
    std::vector<DocRef> documents;
    int nodes_visited = 0;
    /// Every node of the tree was seen (no limit hit, no subtree lost to an error), so a
    /// document missing from `documents` is really gone.
    bool complete = true;
    /// Excluded nodes seen in the tree: not documents of the scan, but not gone either.
    std::vector<std::string> excluded_present;
    /// Ids of the documents the `keep` filter left out of `documents` (when asked for).
    std::vector<std::string> unkept_ids;
};

/// Which found documents the walk keeps in full; the others only count (and, with
/// `record_unkept`, leave their id in `unkept_ids`). Keeps a poll of a large unchanged workspace
/// from holding every node's metadata.
struct WalkFilter {
    std::function<bool(const DocRef&)> keep;  // empty: keep every document
    bool record_unkept = false;
    /// Documents the job has discovered already (kept under a late exclusion); empty: none.
    std::function<bool(const std::string& doc_id)> discovered;
};

/// Transient and fatal API errors propagate; a subtree whose listing answers not-found or
/// not-readable is skipped (and the walk marked incomplete). A listing refused for
/// authorization adds the container to `denied`, whose subtrees later walks skip without
/// asking again (the spec: authorization errors are not retried).
boost::asio::awaitable<WalkResult> walk_tree(DingTalkApi& api, const Workspace& workspace,
                                             const WalkLimits& limits, WalkFilter filter = {},
                                             std::set<std::string>* denied = nullptr);

}  // namespace cdcd::dingtalk
