#pragma once
// The `dingtalk-cdc` source: one split per DingTalk wiki workspace, each polled concurrently on
// the event loop; documents emitted as rows of `<workspaceId>.documents`.
#include <array>
#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "metrics/connector_metrics.h"
#include "metrics/progress.h"
#include "net/http_client.h"
#include "pipeline/connector/source.h"
#include "sources/dingtalk/api_client.h"
#include "sources/dingtalk/block_fetcher.h"
#include "sources/dingtalk/options.h"
#include "sources/dingtalk/state_codec.h"
#include "sources/dingtalk/tree_walker.h"

namespace cdcd::dingtalk {

/// `<workspaceId>.documents`
TableId table_for(const std::string& workspace_id);
/// doc_id (PK), workspace_id NOT NULL, parent_node_id, title, url, content, [blocks_json],
/// modified_time TIMESTAMP_LTZ(3).
Schema document_schema(bool include_raw_json);
/// The metadata column every document event carries: "true" when scan.block.max-pages ended
/// the read before the last block, so `content` (and `blocks_json`) hold only the first pages.
inline constexpr const char* kContentTruncated = "content_truncated";

class DingTalkSource final : public Source {
  public:
    DingTalkSource(DingTalkOptions options, boost::asio::io_context& io,
                   metrics::Registry& registry = metrics::Registry::detached());
    ~DingTalkSource() override;

    void restore(std::string_view state) override;
    boost::asio::awaitable<void> run(SourceOutput& output) override;
    std::string snapshot_state() override;
    std::string describe_state(std::string_view state) const override;

  private:
    /// Splits scan.document.exclude-node-ids into ids honoured since the first discovery and ids
    /// added later (WalkLimits::late_excluded).
    void apply_exclusions_on_restore();
    boost::asio::awaitable<void> discover(SourceOutput& output, bool first);
    boost::asio::awaitable<void> run_split(SourceOutput& output, std::string workspace_id);
    boost::asio::awaitable<bool> poll_split(SourceOutput& output, SplitState& split);
    boost::asio::awaitable<void> process(SourceOutput& output, SplitState& split, const DocRef& doc,
                                         bool snapshot);
    boost::asio::awaitable<void> emit(SourceOutput& output, EventBatch events);
    boost::asio::awaitable<void> wait_splits(SourceOutput& output);
    void spawn_split(const boost::asio::any_io_executor& executor, SourceOutput& output,
                     const std::string& id);
    Row document_row(const std::string& workspace_id, const DocRef& doc,
                     const FetchedDocument& fetched) const;
    Row key_row(const std::string& workspace_id, const std::string& doc_id) const;
    /// A failed read of an existing document: counted, logged, and scheduled to be read again.
    void retry_later(SplitState& split, const DocRef& doc, const FetchedDocument& fetched);
    /// cdcd_dingtalk_documents_retry_pending: documents waiting to be read again.
    void update_retry_pending();
    /// Snapshot progress across the workspaces still in their snapshot: documents fetched, of
    /// the documents their latest tree walk found.
    void track_snapshot(const SplitState& split, std::size_t remaining);
    void snapshot_finished();

    DingTalkOptions options_;
    boost::asio::io_context& io_;
    metrics::ConnectorMetrics metrics_;  // before http_: its observer counts on it
    net::HttpClient http_;
    SourceOutput* output_ = nullptr;
    DingTalkApi api_;
    WalkLimits walk_limits_;
    /// Per workspace: containers whose listing was refused for authorization (not asked again
    /// until the process restarts).
    std::map<std::string, std::set<std::string>> denied_;
    FetchLimits fetch_limits_;
    SourceState state_;
    bool restored_ = false;
    int running_splits_ = 0;
    std::exception_ptr failure_;
    std::unique_ptr<metrics::ProgressReporter> snapshot_progress_;
    std::map<std::string, std::int64_t> snapshot_expected_;  // workspace → documents
    // Documents that could not be read (by reason), reads of them retried, retries that
    // succeeded, documents waiting for a retry, documents emitted truncated.
    std::array<metrics::Counter*, kFetchStatusCount> unreadable_{};  // by FetchStatus
    metrics::Counter& retried_;
    metrics::Counter& recovered_;
    metrics::Gauge& retry_pending_;
    metrics::Counter& truncated_;
};

}  // namespace cdcd::dingtalk
