#include "sources/postgres/postgres_source.h"

#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <stdexcept>

#include "pipeline/schema/schema_change_apply.h"
#include "sources/postgres/replication_protocol.h"

namespace cdcd::postgres {

namespace asio = boost::asio;

namespace {
// The longest the event loop waits for a chunk before it looks at stopping() again.
constexpr std::chrono::milliseconds kIdleWait{200};
}  // namespace

PostgresSource::PostgresSource(PostgresSettings settings, asio::io_context& io,
                               metrics::Registry& metrics, BadRecordSink& bad_records)
    : settings_(std::move(settings)),
      io_(io),
      registry_(metrics),
      metrics_(metrics, metrics::Role::Source, "postgres"),
      bad_records_(bad_records),
      wake_timer_(std::make_shared<asio::steady_timer>(io)) {
    state_.slot = settings_.options.slot_name;
}

PostgresSource::~PostgresSource() {
    reader_.reset();  // joins the reader thread
}

void PostgresSource::restore(std::string_view state) {
    SourceState restored = decode_state(state);
    if (restored.slot != settings_.options.slot_name)
        throw std::runtime_error("postgres source: the checkpoint streams from slot '" +
                                 restored.slot + "' but `slot.name` is '" +
                                 settings_.options.slot_name +
                                 "'; set slot.name back, or start anew with --reset-state");
    state_ = std::move(restored);
    restored_ = true;
}

std::string PostgresSource::snapshot_state() {
    snapshotted_.push_back({state_.phase == Phase::Stream ? state_.lsn : 0, intent_});
    return encode_state(state_);
}

std::string PostgresSource::describe_state(std::string_view state) const {
    return describe_state_json(decode_state(state));
}

asio::awaitable<void> PostgresSource::notify_checkpoint_complete(std::uint64_t) {
    // Checkpoints complete in the order they were taken.
    if (snapshotted_.empty()) co_return;
    const Taken taken = snapshotted_.front();
    snapshotted_.pop_front();
    if (taken.intent == intent_ && intent_waits_) {
        intent_waits_ = false;
        if (reader_) reader_->intent_durable(taken.intent);
    }
    completed_.push_back(taken.lsn);
    const auto delay = static_cast<std::size_t>(settings_.options.lsn_commit_delay);
    if (completed_.size() <= delay) co_return;
    const Lsn lsn = completed_[completed_.size() - 1 - delay];
    while (completed_.size() > delay + 1) completed_.pop_front();
    if (lsn > 0 && reader_) reader_->confirm(lsn);
    co_return;
}

void PostgresSource::track_schemas(const EventBatch& events) {
    for (const Event& e : events) {
        if (is_data_change(e)) continue;
        const SchemaChangeEvent change = *as_schema_change(e);
        const TableId table = table_of(change);
        bool found = false;
        for (auto& [id, schema] : state_.tables)
            if (id == table) {
                schema = apply_schema_change(schema, change);
                found = true;
            }
        if (!found && std::holds_alternative<CreateTableEvent>(change))
            state_.tables.emplace_back(table, std::get<CreateTableEvent>(change).schema);
    }
}

asio::awaitable<void> PostgresSource::run(SourceOutput& output) {
    std::weak_ptr<asio::steady_timer> timer = wake_timer_;
    reader_ = std::make_unique<ReplicationReader>(
        settings_, restored_ ? std::optional<SourceState>(state_) : std::nullopt, [this, timer] {
            asio::post(io_, [timer] {
                if (auto t = timer.lock()) t->cancel();
            });
        });
    reader_->start();
    Chunk chunk;
    while (!output.stopping()) {
        // The reader waits to create the slot until a checkpoint records that it will; one in
        // flight meanwhile is left alone by the runtime, so ask again.
        if (intent_waits_) output.request_checkpoint();
        if (!reader_->try_pop(chunk)) {
            wake_timer_->expires_after(kIdleWait);
            co_await wake_timer_->async_wait(asio::as_tuple(asio::use_awaitable));
            continue;
        }
        if (chunk.error) std::rethrow_exception(chunk.error);
        if (chunk.intent) {
            state_.creating_slot_after = chunk.creating_slot_after;
            intent_ = chunk.intent;
            intent_waits_ = true;
            output.request_checkpoint();
            chunk = Chunk{};
            continue;
        }
        // Once a position is recorded the slot is known by it.
        if (chunk.lsn != 0) state_.creating_slot_after.reset();
        // Advance the position past these events before emitting them.
        state_.phase = chunk.phase;
        state_.lsn = chunk.lsn;
        state_.txn_events = chunk.txn_events;
        state_.snapshot =
            chunk.phase == Phase::Snapshot ? std::move(chunk.progress) : SnapshotProgress{};
        state_.resumed = std::move(chunk.resumed);
        track_schemas(chunk.events);
        for (auto& bad : chunk.bad_records) bad_records_.handle(std::move(bad));
        std::size_t changes = 0;
        for (const Event& e : chunk.events)
            if (is_data_change(e)) ++changes;
        metrics_.records_in.inc(static_cast<double>(changes));
        if (chunk.phase == Phase::Snapshot && !chunk.end) {
            if (!snapshot_progress_)
                snapshot_progress_ =
                    std::make_unique<metrics::ProgressReporter>(registry_, "postgres", "snapshot");
            if (chunk.rows_estimate >= 0)
                snapshot_progress_->set_total(snapshot_progress_->done() + chunk.rows_estimate);
            snapshot_progress_->advance(static_cast<std::int64_t>(changes));
        } else if (snapshot_progress_) {
            snapshot_progress_->finish();
            snapshot_progress_.reset();
        }
        if (!chunk.events.empty()) co_await output.emit(std::move(chunk.events));
        if (chunk.end) {
            spdlog::info("postgres source: snapshot complete (scan.startup.mode snapshot)");
            co_return;
        }
        chunk = Chunk{};
    }
}

}  // namespace cdcd::postgres
