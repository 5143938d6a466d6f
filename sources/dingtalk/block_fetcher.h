#pragma once
// Reads one document consistently: node metadata, every block page, metadata again; the two
// metadata reads must agree (modified time, title, url) or the read is retried up to
// scan.document.consistency.max-retries times. Bounded by scan.document.fetch.max-duration per
// attempt, scan.block.max-pages and scan.document.max-bytes.
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <string>

#include "sources/dingtalk/api_client.h"
#include "sources/dingtalk/model.h"

namespace cdcd::dingtalk {

struct FetchLimits {
    int fetch_size = 10;
    int max_pages = 1000;
    std::int64_t max_bytes = 52'428'800;
    std::chrono::milliseconds max_duration{600'000};
    int max_retries = 3;
};

enum class FetchStatus {
    Ok,
    Gone,      // the node no longer exists
    Skipped,   // not readable (permission, across org, illegal doc key)
    Unstable,  // metadata kept changing during the read
    TooLarge,  // over scan.document.max-bytes
    TimedOut,  // an attempt exceeded scan.document.fetch.max-duration
    Failed,    // transient errors outlasted request.max-retries (set by the reader, not here)
};
inline constexpr int kFetchStatusCount = 7;

const char* to_string(FetchStatus s);

struct FetchedDocument {
    FetchStatus status = FetchStatus::Ok;
    Node node;                // metadata as of the consistent read (Ok)
    std::string blocks_json;  // JSON array of the top-level blocks (Ok)
    std::string markdown;     // rendered content (Ok)
    std::string detail;       // why, for the other statuses
    int attempts = 0;
    bool truncated = false;  // scan.block.max-pages reached before the last block
};

/// True when the two metadata reads describe the same document version.
bool same_version(const Node& before, const Node& after);

/// Transient and fatal API errors propagate.
boost::asio::awaitable<FetchedDocument> fetch_document(DingTalkApi& api, std::string doc_id,
                                                       FetchLimits limits);

}  // namespace cdcd::dingtalk
