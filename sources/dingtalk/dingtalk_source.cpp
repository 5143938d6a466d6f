#include "sources/dingtalk/dingtalk_source.h"

#include <simdjson.h>
#include <spdlog/spdlog.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/this_coro.hpp>
#include <chrono>
#include <string_view>
#include <unordered_set>

#include "metrics/http_observer.h"
#include "net/retry.h"
#include "pipeline/util/json_escape.h"
#include "sources/dingtalk/change_detector.h"
#include "sources/dingtalk/workspace_discovery.h"

namespace cdcd::dingtalk {

TableId table_for(const std::string& workspace_id) {
    return TableId::of(workspace_id, "documents");
}

Schema document_schema(bool include_raw_json) {
    SchemaBuilder b;
    b.column("doc_id", DataType::string().not_null(), "document node id")
        .column("workspace_id", DataType::string().not_null(), "workspace of the document")
        .column("parent_node_id", DataType::string(), "parent node in the workspace tree")
        .column("title", DataType::string(), "document title")
        .column("url", DataType::string(), "document link")
        .column("content", DataType::string(), "document body rendered to Markdown");
    if (include_raw_json) b.column("blocks_json", DataType::string(), "raw block structure (JSON)");
    b.column("modified_time", DataType::timestamp_ltz(3), "last modification time");
    b.primary_key({"doc_id"});
    return b.build();
}

namespace {
net::HttpClientOptions client_options(metrics::ConnectorMetrics& metrics) {
    net::HttpClientOptions o;
    o.observer = metrics::http_observer(metrics);
    return o;
}

metrics::Labels labels_with(const metrics::ConnectorMetrics& m, const char* key,
                            const char* value) {
    metrics::Labels labels = m.labels();
    labels.emplace_back(key, value);
    return labels;
}

// The `reason` label of cdcd_dingtalk_documents_unreadable_total.
const char* unreadable_reason(FetchStatus status) {
    switch (status) {
        case FetchStatus::Gone:
            return "not_found";
        case FetchStatus::Skipped:
            return "not_readable";
        case FetchStatus::Unstable:
            return "unstable";
        case FetchStatus::TooLarge:
            return "too_large";
        case FetchStatus::TimedOut:
            return "timed_out";
        case FetchStatus::Failed:
            return "failed";
        case FetchStatus::Ok:
            break;
    }
    return "other";
}

// Outside the coroutine: GCC 12 mistakes a throw expression in one for a mismatched delete.
[[noreturn]] void throw_transient(const std::string& what) {
    throw ApiError(ErrorClass::Transient, 0, "", what);
}

// fetch_document, with transient errors (retries exhausted) as FetchStatus::Failed.
boost::asio::awaitable<FetchedDocument> read_document(DingTalkApi& api, std::string doc_id,
                                                      FetchLimits limits) {
    std::string error;
    try {
        co_return co_await fetch_document(api, std::move(doc_id), limits);
    } catch (const ApiError& e) {
        if (e.cls() == ErrorClass::Fatal) throw;
        error = e.what();
    } catch (const net::HttpError& e) {
        error = e.what();
    }
    FetchedDocument failed;
    failed.status = FetchStatus::Failed;
    failed.detail = std::move(error);
    co_return failed;
}

// What to raise when a read failed on a limit.
const char* limit_hint(FetchStatus status) {
    if (status == FetchStatus::TooLarge) return ", over scan.document.max-bytes";
    if (status == FetchStatus::TimedOut) return ", over scan.document.fetch.max-duration";
    if (status == FetchStatus::Unstable)
        return ", edited during each of its scan.document.consistency.max-retries reads";
    return "";
}

std::int64_t wall_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}
}  // namespace

DingTalkSource::DingTalkSource(DingTalkOptions options, boost::asio::io_context& io,
                               metrics::Registry& registry)
    : options_(std::move(options)),
      io_(io),
      metrics_(registry, metrics::Role::Source, "dingtalk-cdc"),
      http_(io, client_options(metrics_)),
      api_(
          http_, options_, [this] { return output_ != nullptr && output_->stopping(); }, metrics_),
      retried_(registry.counter("cdcd_dingtalk_documents_retried_total",
                                "Reads of documents whose previous read failed",
                                metrics_.labels())),
      recovered_(registry.counter("cdcd_dingtalk_documents_recovered_total",
                                  "Documents emitted after one or more failed reads",
                                  metrics_.labels())),
      retry_pending_(registry.gauge("cdcd_dingtalk_documents_retry_pending",
                                    "Documents waiting to be read again after a failed read",
                                    metrics_.labels())),
      truncated_(registry.counter("cdcd_dingtalk_documents_truncated_total",
                                  "Documents emitted with content truncated at "
                                  "scan.block.max-pages",
                                  metrics_.labels())) {
    for (FetchStatus status : {FetchStatus::Gone, FetchStatus::Skipped, FetchStatus::Unstable,
                               FetchStatus::TooLarge, FetchStatus::TimedOut, FetchStatus::Failed})
        unreadable_[static_cast<std::size_t>(status)] = &registry.counter(
            "cdcd_dingtalk_documents_unreadable_total",
            "Failed reads of existing documents, by reason (each is read again later)",
            labels_with(metrics_, "reason", unreadable_reason(status)));
    walk_limits_.max_depth = options_.max_depth;
    walk_limits_.max_nodes = options_.max_nodes;
    walk_limits_.excluded.insert(options_.exclude_node_ids.begin(),
                                 options_.exclude_node_ids.end());
    fetch_limits_.fetch_size = options_.block_fetch_size;
    fetch_limits_.max_pages = options_.block_max_pages;
    fetch_limits_.max_bytes = options_.document_max_bytes;
    fetch_limits_.max_duration = options_.fetch_max_duration;
    fetch_limits_.max_retries = options_.consistency_max_retries;
    state_.include_raw_json = options_.include_raw_json;
    state_.excluded = walk_limits_.excluded;
}

DingTalkSource::~DingTalkSource() = default;

void DingTalkSource::restore(std::string_view text) {
    SourceState restored = decode_state(text);
    if (restored.include_raw_json != options_.include_raw_json)
        throw std::runtime_error(
            std::string(
                "dingtalk-cdc: scan.block.include-raw-json cannot change when resuming from a "
                "checkpoint or savepoint (checkpoint: ") +
            (restored.include_raw_json ? "true" : "false") +
            ", configuration: " + (options_.include_raw_json ? "true" : "false") +
            "); restart the pipeline without state to change it");
    state_ = std::move(restored);
    restored_ = true;
    apply_exclusions_on_restore();
    update_retry_pending();
}

void DingTalkSource::apply_exclusions_on_restore() {
    // Ids excluded since the first discovery stay excluded; ids added since are late: what the
    // job discovered under them stays (the spec: discovery is cumulative), only new documents
    // there are skipped. A state from before exclusions were kept honours them all.
    std::set<std::string> configured(options_.exclude_node_ids.begin(),
                                     options_.exclude_node_ids.end());
    std::set<std::string> honoured;
    for (const auto& id : configured)
        if (!state_.excluded || state_.excluded->contains(id)) honoured.insert(id);
    walk_limits_.late_excluded.clear();
    for (const auto& id : configured) {
        if (honoured.contains(id)) continue;
        walk_limits_.late_excluded.insert(id);
        spdlog::warn(
            "dingtalk-cdc: scan.document.exclude-node-ids: node {} was added after the job "
            "discovered its content: documents already discovered there keep being read "
            "(discovery is cumulative), new ones are skipped; restart the pipeline without "
            "state to remove them",
            id);
    }
    walk_limits_.excluded = honoured;
    state_.excluded = std::move(honoured);
}

std::string DingTalkSource::snapshot_state() {
    return encode_state(state_);
}

std::string DingTalkSource::describe_state(std::string_view text) const {
    SourceState s = decode_state(text);
    std::string out = "{\"rawJson\":";
    out += s.include_raw_json ? "true" : "false";
    out += ",\"workspaces\":[";
    bool first = true;
    for (const auto& [id, split] : s.splits) {
        if (!first) out.push_back(',');
        first = false;
        out += "{\"id\":" + json::quoted(id) + ",\"phase\":\"" + to_string(split.phase) +
               "\",\"cursor\":{\"modifiedTime\":" + std::to_string(split.cursor_ms) +
               ",\"docId\":" + json::quoted(split.cursor_id) +
               "},\"documents\":" + std::to_string(split.docs.size()) +
               ",\"retrying\":" + std::to_string(split.retries.size()) + "}";
    }
    return out + "]}";
}

Row DingTalkSource::document_row(const std::string& workspace_id, const DocRef& doc,
                                 const FetchedDocument& fetched) const {
    const bool raw = options_.include_raw_json;
    RowBuilder b(raw ? 8 : 7,
                 fetched.markdown.size() + (raw ? fetched.blocks_json.size() : 0) + 256);
    b.set_string(0, doc.node.id);
    b.set_string(1, workspace_id);
    if (doc.parent_node_id.empty())
        b.set_null(2);
    else
        b.set_string(2, doc.parent_node_id);
    b.set_string(3, doc.node.name);
    b.set_string(4, doc.node.url);
    b.set_string(5, fetched.markdown);
    if (raw) b.set_string(6, fetched.blocks_json);
    b.set_timestamp(raw ? 7 : 6, Timestamp{doc.node.modified_ms, 0});
    return std::move(b).build();
}

Row DingTalkSource::key_row(const std::string& workspace_id, const std::string& doc_id) const {
    RowBuilder b(options_.include_raw_json ? 8 : 7);
    b.set_string(0, doc_id);
    b.set_string(1, workspace_id);
    return std::move(b).build();
}

// Emits of concurrent splits need no serialisation: each split advances its own state and then
// calls SourceOutput::emit with no suspension in between, and the runtime's channel queues
// concurrent senders in FIFO order, ordering a barrier injected while a send waits after that
// send. So every snapshot_state() taken while emits wait covers exactly the events queued before
// its barrier. Waiting for a lock (or polling a flag) *after* advancing the state would break
// that: a barrier injected during the wait would record a document whose event follows it.
boost::asio::awaitable<void> DingTalkSource::emit(SourceOutput& output, EventBatch events) {
    co_await output.emit(std::move(events));
}

void DingTalkSource::spawn_split(const boost::asio::any_io_executor& executor, SourceOutput& output,
                                 const std::string& id) {
    ++running_splits_;
    boost::asio::co_spawn(executor, run_split(output, id), [this](const std::exception_ptr& e) {
        --running_splits_;
        if (e && !failure_) failure_ = e;
    });
}

boost::asio::awaitable<void> DingTalkSource::discover(SourceOutput& output, bool first) {
    std::set<std::string> known;
    for (const auto& [id, split] : state_.splits) known.insert(id);
    std::vector<Workspace> found =
        co_await discover_workspaces(api_, options_.workspace_ids, known);
    auto executor = co_await boost::asio::this_coro::executor;
    for (auto& w : found) {
        if (output.stopping()) break;
        const auto excluded = [this](const std::string& id) {
            return walk_limits_.excluded.contains(id) || walk_limits_.late_excluded.contains(id);
        };
        if (excluded(w.root_node_id) || excluded(w.id)) continue;
        SplitState split;
        split.workspace_id = w.id;
        split.root_node_id = w.root_node_id;
        // latest-offset applies to the workspaces of the job's first start; workspaces found
        // later are read from the beginning (initial).
        split.phase = first && !restored_ && options_.startup_mode == StartupMode::LatestOffset
                          ? Phase::Baseline
                          : Phase::Snapshot;
        state_.splits.emplace(w.id, std::move(split));
        spdlog::info("dingtalk-cdc: discovered workspace {} ({})", w.id, w.name);
        EventBatch batch;
        batch.emplace_back(
            CreateTableEvent{table_for(w.id), document_schema(options_.include_raw_json)});
        co_await emit(output, std::move(batch));
        spawn_split(executor, output, w.id);
    }
}

boost::asio::awaitable<void> DingTalkSource::wait_splits(SourceOutput& output) {
    (void)output;
    while (running_splits_ > 0) co_await net::sleep_for(std::chrono::milliseconds(20));
}

boost::asio::awaitable<void> DingTalkSource::run(SourceOutput& output) {
    output_ = &output;
    auto executor = co_await boost::asio::this_coro::executor;
    for (const auto& [id, split] : state_.splits) spawn_split(executor, output, id);

    const bool bounded = options_.startup_mode == StartupMode::Snapshot;
    bool discovered = false;
    auto next_discovery = std::chrono::steady_clock::now();
    while (!output.stopping() && !failure_) {
        if (bounded && discovered && running_splits_ == 0) break;
        if (!(bounded && discovered) && std::chrono::steady_clock::now() >= next_discovery) {
            std::string error;
            try {
                co_await discover(output, !discovered && !restored_);
                discovered = true;
                next_discovery = std::chrono::steady_clock::now() + options_.discovery_interval;
            } catch (const ApiError& e) {
                if (e.cls() == ErrorClass::Fatal) throw;
                error = e.what();
            } catch (const net::HttpError& e) {
                error = e.what();
            }
            if (!error.empty()) {
                spdlog::warn("dingtalk-cdc: workspace discovery failed, retrying: {}", error);
                next_discovery = std::chrono::steady_clock::now() + options_.poll_interval;
            }
        }
        co_await net::sleep_for(std::chrono::milliseconds(100));
    }
    co_await wait_splits(output);
    output_ = nullptr;
    if (failure_) std::rethrow_exception(failure_);
}

boost::asio::awaitable<void> DingTalkSource::run_split(SourceOutput& output,
                                                       std::string workspace_id) {
    SplitState& split = state_.splits.at(workspace_id);  // std::map: stable while we run
    const bool bounded = options_.startup_mode == StartupMode::Snapshot;
    while (!output.stopping() && !failure_) {
        if (bounded && split.phase != Phase::Snapshot) co_return;
        bool more = false;
        std::string error;
        try {
            more = co_await poll_split(output, split);
        } catch (const ApiError& e) {
            if (e.cls() == ErrorClass::Fatal) throw;
            error = e.what();
        } catch (const net::HttpError& e) {
            error = e.what();
        }
        if (!error.empty())
            spdlog::warn(
                "dingtalk-cdc: workspace {}: poll failed, retrying after scan.poll-interval: {}",
                workspace_id, error);
        if (bounded && split.phase != Phase::Snapshot) co_return;
        if (!more) co_await output.sleep(options_.poll_interval.count());
    }
}

boost::asio::awaitable<bool> DingTalkSource::poll_split(SourceOutput& output, SplitState& split) {
    Workspace ws{split.workspace_id, split.root_node_id, {}};
    // Outside the baseline only changed documents are needed in full (and, for deletes, the
    // ids of the others): a poll of an unchanged workspace holds no node metadata.
    WalkFilter filter;
    if (split.phase != Phase::Baseline) {
        // Documents waiting for a retry are kept too: to read them when due, and to see
        // whether they are still in the tree.
        filter.keep = [&split](const DocRef& doc) {
            auto it = split.docs.find(doc.node.id);
            return it == split.docs.end() || !(it->second == fingerprint_of(doc)) ||
                   split.retries.contains(doc.node.id);
        };
        filter.record_unkept = options_.emit_deletes;
    }
    if (!walk_limits_.late_excluded.empty())
        filter.discovered = [&split](const std::string& id) { return split.docs.contains(id); };
    WalkResult walk =
        co_await walk_tree(api_, ws, walk_limits_, std::move(filter), &denied_[split.workspace_id]);
    if (split.phase == Phase::Baseline) {
        for (const auto& doc : walk.documents) {
            split.docs[doc.node.id] = fingerprint_of(doc);
            if (doc.node.modified_ms > split.cursor_ms || split.cursor_id.empty()) {
                split.cursor_ms = doc.node.modified_ms;
                split.cursor_id = doc.node.id;
            }
        }
        split.phase = Phase::Incremental;
        spdlog::info("dingtalk-cdc: workspace {}: latest-offset baseline of {} documents",
                     split.workspace_id, walk.documents.size());
        co_return false;
    }
    if (walk.complete && !split.retries.empty()) {
        // A document gone from the tree (or excluded since) is not read again.
        std::unordered_set<std::string_view> present;
        for (const auto& doc : walk.documents) present.insert(doc.node.id);
        std::erase_if(split.retries,
                      [&](const auto& entry) { return !present.contains(entry.first); });
        update_retry_pending();
    }
    if (options_.emit_deletes && walk.complete) {
        std::vector<std::string> present = std::move(walk.unkept_ids);
        present.insert(present.end(), walk.excluded_present.begin(), walk.excluded_present.end());
        for (const auto& id : vanished_documents(walk.documents, split.docs, present)) {
            if (output.stopping()) co_return false;
            split.docs.erase(id);
            split.retries.erase(id);
            EventBatch batch;
            append_delete(batch, table_for(split.workspace_id), key_row(split.workspace_id, id));
            co_await emit(output, std::move(batch));
        }
    }
    const std::int64_t now = wall_ms();
    std::vector<const DocRef*> changed = documents_to_read(
        walk.documents, split.docs,
        [&split, now](const std::string& id) { return retry_due(split.retries, id, now); });
    const bool snapshot = split.phase == Phase::Snapshot;
    if (snapshot) track_snapshot(split, changed.size());
    const std::size_t n = std::min(changed.size(), static_cast<std::size_t>(options_.prefix_size));
    for (std::size_t i = 0; i < n && !output.stopping(); ++i) {
        co_await process(output, split, *changed[i], snapshot);
        if (snapshot && snapshot_progress_) snapshot_progress_->advance(1);
    }
    if (output.stopping()) co_return false;
    const bool more = changed.size() > n;
    if (snapshot && !more) {
        split.phase = Phase::Incremental;
        spdlog::info(
            "dingtalk-cdc: workspace {}: snapshot complete ({} documents, {} of them waiting to "
            "be read again)",
            split.workspace_id, split.docs.size(), split.retries.size());
        snapshot_finished();
    }
    co_return more;
}

void DingTalkSource::track_snapshot(const SplitState& split, std::size_t remaining) {
    if (!snapshot_progress_) {
        // Documents of snapshots resumed from a checkpoint count as done.
        std::int64_t done = 0;
        for (const auto& [id, s] : state_.splits)
            if (s.phase == Phase::Snapshot) done += static_cast<std::int64_t>(s.docs.size());
        snapshot_progress_ = std::make_unique<metrics::ProgressReporter>(
            metrics_.registry(), "dingtalk-cdc", "snapshot", 0, done);
    }
    snapshot_expected_[split.workspace_id] =
        static_cast<std::int64_t>(split.docs.size() + remaining);
    std::int64_t total = 0;
    for (const auto& [id, n] : snapshot_expected_) total += n;
    snapshot_progress_->set_total(total);
}

void DingTalkSource::snapshot_finished() {
    for (const auto& [id, s] : state_.splits)
        if (s.phase == Phase::Snapshot) return;
    // Every workspace known so far has its snapshot: the phase is over (a workspace discovered
    // later starts a new one).
    if (snapshot_progress_) snapshot_progress_->finish();
    snapshot_progress_.reset();
    snapshot_expected_.clear();
}

boost::asio::awaitable<void> DingTalkSource::process(SourceOutput& output, SplitState& split,
                                                     const DocRef& doc, bool snapshot) {
    const auto waiting = split.retries.find(doc.node.id);
    const int failures = waiting == split.retries.end() ? 0 : waiting->second.failures;
    if (failures > 0) retried_.inc();
    const std::string& ws = split.workspace_id;
    FetchedDocument f = co_await read_document(api_, doc.node.id, fetch_limits_);
    if (f.status == FetchStatus::Failed) {
        // Retries exhausted on this document: it goes on its own back-off, so a document that
        // keeps failing neither blocks the others nor costs a read every poll; the poll still
        // ends here, so that an outage of the API marks one document per poll, not all of them.
        retry_later(split, doc, f);
        throw_transient("document " + doc.node.id + ": " + f.detail);
    }
    switch (f.status) {
        case FetchStatus::Ok: {
            DocRef current{f.node, doc.parent_node_id};
            if (current.node.id.empty()) current.node.id = doc.node.id;
            split.docs[current.node.id] = fingerprint_of(current);
            split.cursor_ms = current.node.modified_ms;
            split.cursor_id = current.node.id;
            if (failures > 0) {
                split.retries.erase(doc.node.id);
                update_retry_pending();
                recovered_.inc();
                spdlog::info("dingtalk-cdc: workspace {}: document {} read after {} failed reads",
                             ws, current.node.id, failures);
            }
            if (f.truncated) {
                truncated_.inc();
                spdlog::warn(
                    "dingtalk-cdc: workspace {}: document {} has more than scan.block.max-pages "
                    "({}) pages of blocks; its content is truncated ({} = true)",
                    ws, current.node.id, options_.block_max_pages, kContentTruncated);
            }
            Row row = document_row(ws, current, f);
            metrics_.records_in.inc();  // a document read
            EventMeta meta{{kContentTruncated, f.truncated ? "true" : "false"}};
            EventBatch batch;
            batch.push_back(
                snapshot
                    ? DataChangeEvent::insert(table_for(ws), std::move(row), std::move(meta))
                    : DataChangeEvent::replace(table_for(ws), std::move(row), std::move(meta)));
            co_await emit(output, std::move(batch));
            co_return;
        }
        case FetchStatus::Gone:
            // Listed in the tree but unreadable (its node or blocks answer not found): read again
            // on the back-off; a document really deleted leaves the tree and its schedule.
        case FetchStatus::Skipped:
        case FetchStatus::TooLarge:
        case FetchStatus::Unstable:
        case FetchStatus::TimedOut:
        case FetchStatus::Failed:
            retry_later(split, doc, f);
            co_return;
    }
}

void DingTalkSource::retry_later(SplitState& split, const DocRef& doc,
                                 const FetchedDocument& fetched) {
    // The fingerprint keeps the document out of the changed ones (an edit brings it back at
    // once); the retry schedule reads it again on its own, slower cadence.
    split.docs[doc.node.id] = fingerprint_of(doc);
    const RetryEntry& entry =
        schedule_retry(split.retries, doc.node.id, wall_ms(), options_.poll_interval.count());
    update_retry_pending();
    if (metrics::Counter* counter = unreadable_[static_cast<std::size_t>(fetched.status)])
        counter->inc();
    const std::int64_t delay_ms = retry_delay_ms(entry.failures, options_.poll_interval.count());
    spdlog::warn(
        "dingtalk-cdc: workspace {}: document {} not read ({}{}; failed reads: {}): {}; reading "
        "it again {}",
        split.workspace_id, doc.node.id, to_string(fetched.status), limit_hint(fetched.status),
        entry.failures, fetched.detail,
        delay_ms == 0 ? std::string("at the next poll")
                      : "in " + std::to_string((delay_ms + 999) / 1000) + " s");
}

void DingTalkSource::update_retry_pending() {
    std::size_t pending = 0;
    for (const auto& [id, split] : state_.splits) pending += split.retries.size();
    retry_pending_.set(static_cast<double>(pending));
}

}  // namespace cdcd::dingtalk
