#include "pipeline/runtime/pipeline_runtime.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "pipeline/event/event_format.h"
#include "pipeline/runtime/bad_record_stage.h"
#include "pipeline/runtime/countdown.h"
#include "pipeline/runtime/dead_letter_file.h"
#include "pipeline/runtime/partitioner.h"
#include "pipeline/runtime/runtime_metrics.h"
#include "pipeline/runtime/transform_stage.h"
#include "pipeline/schema/schema_operator.h"
#include "pipeline/transform/transform_operator.h"
#include "state/checkpoint_store.h"
#include "state/state_dir_lock.h"

namespace cdcd {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

namespace {

struct FlushRequest {
    std::shared_ptr<Countdown> done;
};
using WriterElement = std::variant<EventBatch, Barrier, FlushRequest, EndOfInput>;
using SourceChannel = asio::experimental::channel<void(boost::system::error_code, StreamElement)>;
using WriterChannel = asio::experimental::channel<void(boost::system::error_code, WriterElement)>;

// Batches in flight between stages; with ~1k events per batch this bounds memory while keeping
// every stage busy.
constexpr std::size_t kChannelCapacity = 4;

// Dead-letter bytes one stage may hold between two checkpoints: a flood of bad records stops the
// pipeline instead of exhausting memory.
constexpr std::size_t kMaxPendingDeadLetterBytes = 64 << 20;

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// A complete checkpoint whose write to the store failed, kept to be written again.
struct UnwrittenCheckpoint {
    state::Checkpoint checkpoint;
    std::chrono::steady_clock::time_point started;
};

struct PendingCheckpoint {
    std::string source_state;
    std::string schema_state;
    std::string transform_state;
    std::string dead_letters;  // every stage's dead-letter lines cut at this checkpoint
    std::vector<std::string> writer_states;
    std::size_t acks_remaining = 0;
    bool final = false;
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

}  // namespace

const char* to_string(RuntimePhase phase) {
    switch (phase) {
        case RuntimePhase::Starting:
            return "starting";
        case RuntimePhase::Running:
            return "running";
        case RuntimePhase::Draining:
            return "draining";
        case RuntimePhase::Stopped:
            return "stopped";
    }
    return "unknown";
}

struct PipelineRuntime::Impl {
    Impl(PipelinePlan p, RunOptions o)
        : plan(std::move(p)),
          options(std::move(o)),
          registry(metrics::Labels{{"pipeline", plan.settings.name}}),
          rm(registry, plan.definition.source.type, plan.definition.sink.type),
          source_channel(io, kChannelCapacity),
          checkpoint_timer(io),
          drain_timer(io),
          schema_change_timer(io),
          signals(io) {}

    // ---- construction and restore ---------------------------------------------------------
    /// The bad-record policy's stages: the source, the transform thread, each writer.
    class BadRecordStages final : public BadRecordHandlers {
      public:
        BadRecordStages(const PipelinePlan& plan, metrics::Registry& registry) {
            auto make = [&](const char* stage, const std::string& connector) {
                return std::make_unique<BadRecordStage>(stage, connector, plan.settings.name,
                                                        plan.bad_record_policy, registry,
                                                        kMaxPendingDeadLetterBytes);
            };
            source_stage = make("source", plan.definition.source.type);
            transform_stage = make("transform", "transform");
            for (int i = 0; i < plan.settings.parallelism; ++i)
                writer_stages.push_back(make("sink", plan.definition.sink.type));
        }
        BadRecordSink& source() override { return *source_stage; }
        BadRecordSink& writer(int index) override {
            return *writer_stages.at(static_cast<std::size_t>(index));
        }

        std::unique_ptr<BadRecordStage> source_stage;
        std::unique_ptr<BadRecordStage> transform_stage;
        std::vector<std::unique_ptr<BadRecordStage>> writer_stages;
    };

    void build() {
        const auto& def = plan.definition;
        ConnectorContext source_ctx{plan.source_options, def.source,  plan.settings, io,
                                    &registry,           &bad_records};
        source = plan.source_factory->create(source_ctx);
        ConnectorContext sink_ctx{
            plan.sink_options,          def.sink, plan.settings, io, &registry, &bad_records,
            [this] { return stopping; }};
        sink = plan.sink_factory->create(sink_ctx);
        transform = plan.make_transform(source.get());
        if (transform) {
            transform->set_bad_records(bad_records.transform_stage.get());
            transform_stage =
                std::make_unique<TransformStage>(io, *transform, bad_records.transform_stage.get());
        }
        schema_operator = std::make_unique<SchemaOperator>(
            plan.make_router(), plan.behavior, plan.schema_change_filter, sink->metadata_applier(),
            [this](EventBatch& pending, const SchemaChangeEvent& change) {
                return flush_writers(pending, change);
            },
            plan.settings.local_time_zone);
        int n = plan.settings.parallelism;
        for (int i = 0; i < n; ++i) {
            writers.push_back(sink->create_writer(i, n));
            writer_channels.push_back(std::make_unique<WriterChannel>(io, kChannelCapacity));
        }
        register_channel_metrics();
    }

    /// Elements sent into a channel and not yet received; index 0 is the source channel.
    void register_channel_metrics() {
        queued.assign(writers.size() + 1, 0);
        for (std::size_t i = 0; i < queued.size(); ++i) {
            metrics::Labels labels{
                {"channel", i == 0 ? std::string("source") : "writer/" + std::to_string(i - 1)}};
            registry.gauge_fn("cdcd_channel_occupancy",
                              "Batches or barriers queued in a channel between stages", labels,
                              [this, i] { return static_cast<double>(queued[i]); });
            registry
                .gauge("cdcd_channel_capacity", "Capacity of a channel between stages, in batches",
                       labels)
                .set(static_cast<double>(kChannelCapacity));
        }
    }

    awaitable<void> send_to_source_channel(StreamElement element) {
        co_await source_channel.async_send(boost::system::error_code{}, std::move(element),
                                           use_awaitable);
        ++queued[0];
    }

    awaitable<void> send_to_writer(std::size_t i, WriterElement element) {
        co_await writer_channels[i]->async_send(boost::system::error_code{}, std::move(element),
                                                use_awaitable);
        ++queued[i + 1];
    }

    /// The dead-letter file of policy dead-letter: bad-record.dead-letter.path, else one per
    /// pipeline in the state directory.
    std::string dead_letter_path(const std::string& state_dir) const {
        if (!plan.dead_letter_path.empty()) return plan.dead_letter_path;
        std::string name;
        for (char c : plan.settings.name)
            name +=
                (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')
                    ? c
                    : '_';
        return state_dir + "/dead-letter/" + name + ".jsonl";
    }

    std::string state_dir() const {
        return options.state_dir.empty() ? plan.state_dir : options.state_dir;
    }

    /// Opens the (locked) state directory's store. With --reset-state, discards the pipeline's
    /// checkpoints, whether they decode or not; a directory too damaged even for that is moved
    /// aside, never deleted, and the pipeline starts over in a fresh one.
    void open_store(const std::string& dir) {
        const std::string& name = plan.settings.name;
        if (!options.reset_state) {
            store = state::CheckpointStore::open(dir);
            return;
        }
        try {
            store = state::CheckpointStore::open(dir);
            store->reset(name);
            spdlog::info("--reset-state: discarded every checkpoint of pipeline '{}'", name);
            return;
        } catch (const state::StateCorruption& e) {
            store.reset();
            std::string aside = state::move_state_dir_aside(dir);
            spdlog::warn(
                "--reset-state: the state directory {} is damaged ({}); moved it aside to {} "
                "(with any other pipeline's checkpoints in it) and starting over in a fresh {}",
                dir, e.what(), aside, dir);
        }
        // The lock file moved along with the directory: lock the fresh one before using it.
        state_lock = state::StateDirLock::acquire(dir);
        store = state::CheckpointStore::open(dir);
    }

    void restore() {
        std::string dir = state_dir();
        open_store(dir);
        const std::string& name = plan.settings.name;
        retained = plan.checkpoints_retained;
        for (const auto& w : writers) retained = std::max(retained, w->checkpoints_to_retain());
        if (retained > plan.checkpoints_retained)
            spdlog::info(
                "pipeline '{}': keeping {} checkpoints (state.checkpoints.num-retained is {}): the "
                "sink may have to resume from an older one after a crash",
                name, retained, plan.checkpoints_retained);
        // Ids are never reused, not even those of checkpoints a rollback discarded.
        next_checkpoint_id = store->highest_id(name) + 1;
        std::vector<state::StoredCheckpoint> stored = store->scan(name);
        if (plan.bad_record_policy == BadRecordPolicy::DeadLetter)
            dead_letters = std::make_unique<DeadLetterFile>(dead_letter_path(dir));
        if (stored.empty() && !options.from_checkpoint) {
            spdlog::info(
                "pipeline '{}': no checkpoint in {}, starting from the source's startup mode", name,
                dir);
            claim_fresh_outputs();
            return;
        }
        std::vector<state::Checkpoint> candidates =
            options.from_checkpoint ? requested_candidates(stored, *options.from_checkpoint, dir)
                                    : decodable_candidates(stored, dir);
        check_fingerprint(candidates.back(), dir);
        const state::Checkpoint* chosen = choose_recoverable(candidates, dir);
        if (chosen && chosen != &candidates.back()) check_fingerprint(*chosen, dir);
        if (chosen) restore_parts(*chosen, stored, dir);
        // Only now that the restore succeeded: a failed one leaves the store as it was.
        std::uint64_t keep = chosen ? chosen->id : 0;
        if (stored.back().id > keep) {
            store->discard_newer(name, keep);
            spdlog::info(
                "pipeline '{}': discarded the checkpoints newer than {} in {}", name,
                chosen ? "checkpoint " + std::to_string(keep) : std::string("a fresh start"), dir);
        }
        if (!chosen) {
            spdlog::info("pipeline '{}': starting from the source's startup mode (in {})", name,
                         dir);
            claim_fresh_outputs();
            return;
        }
        previous_checkpoint_id = chosen->id;
        rm.restores.inc();
        rm.checkpoint_completed(chosen->id, std::chrono::steady_clock::duration(-1),
                                chosen->size_bytes(), chosen->created_ms);
        spdlog::info("pipeline '{}': restored checkpoint {} ({} bytes) from {}", name, chosen->id,
                     chosen->size_bytes(), dir);
    }

    static std::string id_list(const std::vector<std::uint64_t>& ids) {
        std::string out;
        for (auto id : ids) out += (out.empty() ? "" : ", ") + std::to_string(id);
        return out.empty() ? "none" : out;
    }

    /// The checkpoints a plain restart may resume from, oldest first: every one that decodes up
    /// to the newest that does. A newer one that does not decode (damaged bytes, a format this
    /// build does not know) is skipped with a warning: no connector has seen it, so the older one
    /// is a consistent, if older, point to resume from.
    std::vector<state::Checkpoint> decodable_candidates(
        std::vector<state::StoredCheckpoint>& stored, const std::string& dir) const {
        const std::string& name = plan.settings.name;
        std::vector<state::Checkpoint> out;
        for (auto& c : stored)
            if (c.checkpoint) out.push_back(*c.checkpoint);
        if (out.empty()) {
            std::string why;
            for (const auto& c : stored)
                why += (why.empty() ? "" : "; ") + std::to_string(c.id) + ": " + c.error;
            throw std::runtime_error(
                "pipeline '" + name + "': none of the checkpoints stored in " + dir +
                " can be decoded (" + why +
                "). `cdcd run --reset-state` starts over from the source's startup mode.");
        }
        for (auto it = stored.rbegin(); it != stored.rend() && !it->checkpoint; ++it)
            spdlog::warn(
                "pipeline '{}': checkpoint {} in {} cannot be decoded ({}); skipping it and "
                "resuming from checkpoint {}, the newest that decodes (what followed it is "
                "replayed)",
                name, it->id, dir, it->error, out.back().id);
        return out;
    }

    /// --from-checkpoint ID: that checkpoint and the decodable ones before it.
    std::vector<state::Checkpoint> requested_candidates(
        const std::vector<state::StoredCheckpoint>& stored, std::uint64_t id,
        const std::string& dir) const {
        const std::string& name = plan.settings.name;
        std::vector<std::uint64_t> ids;
        ids.reserve(stored.size());
        for (const auto& c : stored) ids.push_back(c.id);
        auto it = std::find_if(stored.begin(), stored.end(),
                               [id](const state::StoredCheckpoint& c) { return c.id == id; });
        if (it == stored.end())
            throw std::runtime_error("--from-checkpoint " + std::to_string(id) +
                                     ": no checkpoint " + std::to_string(id) + " of pipeline '" +
                                     name + "' is stored in " + dir + "; the stored ones are " +
                                     id_list(ids) + " (cdcd checkpoints list --state-dir " + dir +
                                     ")");
        if (!it->checkpoint)
            throw std::runtime_error("--from-checkpoint " + std::to_string(id) + ": checkpoint " +
                                     std::to_string(id) + " of pipeline '" + name + "' in " + dir +
                                     " cannot be decoded (" + it->error +
                                     "); the stored ones are " + id_list(ids));
        std::vector<state::Checkpoint> out;
        for (const auto& c : stored)
            if (c.checkpoint && c.id <= id) out.push_back(*c.checkpoint);
        return out;
    }

    /// Hands each part of `chosen` to its operator or connector. A part the connector refuses
    /// stops the start: falling back past it on our own could make a sink that is not idempotent
    /// write twice what followed the older checkpoint, so the operator decides
    /// (docs/operations.md).
    void restore_parts(const state::Checkpoint& chosen,
                       const std::vector<state::StoredCheckpoint>& stored, const std::string& dir) {
        auto restore_part = [&](const std::string& key, const std::string& who, auto&& apply) {
            auto it = chosen.parts.find(key);
            if (it == chosen.parts.end()) return;
            try {
                apply(it->second);
            } catch (const std::exception& e) {
                throw std::runtime_error(part_error(chosen, key, who, e.what(), stored, dir));
            }
        };
        restore_part("source", "source " + plan.definition.source.type,
                     [&](const std::string& s) { source->restore(s); });
        restore_part("schema", "the schema operator",
                     [&](const std::string& s) { schema_operator->restore(s); });
        if (transform)
            restore_part("transform", "the transform",
                         [&](const std::string& s) { transform->restore(s); });
        if (dead_letters) {
            if (chosen.parts.count("dead-letter"))
                restore_part("dead-letter", "the dead-letter file",
                             [&](const std::string& s) { dead_letters->restore(s); });
            else
                dead_letters->start_fresh();
        }
        auto sink_schemas = schema_operator->sink_schemas();
        for (std::size_t i = 0; i < writers.size(); ++i) {
            restore_part("sink/" + std::to_string(i),
                         "sink " + plan.definition.sink.type + " writer " + std::to_string(i),
                         [&](const std::string& s) { writers[i]->restore(s); });
            writers[i]->restore_schemas(sink_schemas);
        }
    }

    std::string part_error(const state::Checkpoint& chosen, const std::string& part,
                           const std::string& who, const std::string& what,
                           const std::vector<state::StoredCheckpoint>& stored,
                           const std::string& dir) const {
        std::vector<std::uint64_t> older;
        for (const auto& c : stored)
            if (c.checkpoint && c.id < chosen.id) older.push_back(c.id);
        std::string message = "pipeline '" + plan.settings.name + "': cannot restore checkpoint " +
                              std::to_string(chosen.id) + " from " + dir + ": its part '" + part +
                              "' was refused by " + who + ": " + what + ". Nothing was discarded. ";
        if (older.empty())
            return message +
                   "No older checkpoint is stored; `cdcd run --reset-state` starts over from the "
                   "source's startup mode.";
        return message + "Older checkpoints stored: " + id_list(older) +
               "; `cdcd run --from-checkpoint ID` resumes from one of them (the sink may then "
               "receive again what followed it), or --reset-state starts over.";
    }

    /// A fresh start: the writers that claim their output (SinkWriter::fresh_start_state) have
    /// their states stored as a checkpoint before anything is written, with no source, schema or
    /// transform state, so that restoring it is a fresh start that continues the claimed output.
    void claim_fresh_outputs() {
        state::Checkpoint claim;
        if (dead_letters) {
            dead_letters->start_fresh();
            claim.parts["dead-letter"] = dead_letters->commit({});
        }
        for (std::size_t i = 0; i < writers.size(); ++i)
            if (auto s = writers[i]->fresh_start_state())
                claim.parts["sink/" + std::to_string(i)] = std::move(*s);
        if (claim.parts.empty()) return;
        claim.id = next_checkpoint_id++;
        claim.created_ms = now_ms();
        claim.fingerprint = plan.fingerprint();
        claim.parts["previous"] = "0";
        store->write(plan.settings.name, claim, retained);
        previous_checkpoint_id = claim.id;
        spdlog::info("pipeline '{}': checkpoint {} records the sink's fresh output",
                     plan.settings.name, claim.id);
    }

    void check_fingerprint(const state::Checkpoint& checkpoint, const std::string& dir) const {
        const std::string& name = plan.settings.name;
        for (const auto& [key, value] : plan.fingerprint()) {
            auto it = checkpoint.fingerprint.find(key);
            std::string stored = it == checkpoint.fingerprint.end() ? "(absent)" : it->second;
            if (stored != value)
                throw std::runtime_error(
                    "checkpoint " + std::to_string(checkpoint.id) + " of pipeline '" + name +
                    "' in " + dir + " was taken with " + key + "=" + stored +
                    ", but this pipeline has " + key + "=" + value +
                    "; restore is refused. Use --reset-state to start over, or another "
                    "pipeline.name or state directory.");
        }
    }

    /// Asks every writer how far its committed output goes (see
    /// SinkWriter::recoverable_checkpoint) and returns the checkpoint to restore: the latest
    /// candidate, or an older one (restore() discards its successors once restored), or nullptr
    /// for a fresh start when the first checkpoint the pipeline ever took is not covered. Throws
    /// when the needed checkpoint is no longer stored: resuming from a newer one would lose
    /// records.
    const state::Checkpoint* choose_recoverable(const std::vector<state::Checkpoint>& stored,
                                                const std::string& dir) {
        const std::string& name = plan.settings.name;
        const state::Checkpoint& latest = stored.back();
        std::uint64_t target = latest.id;
        for (std::size_t i = 0; i < writers.size(); ++i) {
            auto it = latest.parts.find("sink/" + std::to_string(i));
            std::string_view state = it == latest.parts.end() ? std::string_view() : it->second;
            target = std::min(target, writers[i]->recoverable_checkpoint(state, latest.id));
        }
        if (target >= latest.id) return &latest;
        const state::Checkpoint* older = nullptr;
        for (const auto& c : stored)
            if (c.id <= target) older = &c;
        // The oldest stored checkpoint is the first of a fresh start: before it, there was
        // nothing, and a fresh start (the source's startup mode) is what resumes there.
        const state::Checkpoint& oldest = stored.front();
        auto previous = oldest.parts.find("previous");
        bool oldest_is_first = previous != oldest.parts.end() && previous->second == "0";
        if (!older && !oldest_is_first)
            throw std::runtime_error(
                "pipeline '" + name + "': the sink's output is committed only up to checkpoint " +
                std::to_string(target) + ", older than checkpoint " + std::to_string(latest.id) +
                " in " + dir + ", so the pipeline must resume from checkpoint " +
                std::to_string(target) + " or older; the oldest one stored is " +
                std::to_string(oldest.id) +
                ". Resuming from a newer one would lose records, so nothing was restored. "
                "Keep more checkpoints (state.checkpoints.num-retained), or use --reset-state to "
                "start over from the source's startup mode.");
        std::uint64_t keep = older ? older->id : 0;
        spdlog::warn(
            "pipeline '{}': the sink's output is committed only up to checkpoint {} (the latest "
            "checkpoint is {}): resuming from {}, the source replays what followed; discarding "
            "the newer checkpoints",
            name, target, latest.id,
            older ? "checkpoint " + std::to_string(keep) : std::string("a fresh start"));
        return older;
    }

    // ---- source ----------------------------------------------------------------------------
    class Output final : public SourceOutput {
      public:
        explicit Output(Impl& rt) : rt_(rt) {}
        awaitable<void> emit(EventBatch events) override {
            rt_.events_in += events.size();
            rt_.rm.source.records_out.inc(events.size());
            rt_.rm.source_batches.inc();
            co_await rt_.send_to_source_channel(StreamElement(std::move(events)));
        }
        bool stopping() const override { return rt_.stopping; }
        awaitable<void> sleep(std::int64_t millis) override {
            if (rt_.stopping) co_return;
            asio::steady_timer timer(rt_.io, std::chrono::milliseconds(millis));
            rt_.sleepers.insert(&timer);
            co_await timer.async_wait(asio::as_tuple(use_awaitable));
            rt_.sleepers.erase(&timer);
        }
        void request_checkpoint() override {
            // Ends checkpoint_loop's wait: it takes the checkpoint at once. One in flight is
            // left alone (the source asks again when it completes).
            if (!rt_.stopping && !rt_.source_done && !rt_.checkpoint_in_flight)
                rt_.checkpoint_timer.cancel();
        }

      private:
        Impl& rt_;
    };

    awaitable<void> source_task() {
        Output output(*this);
        co_await source->run(output);
        source_done = true;
        checkpoint_timer.cancel();
        // The final checkpoint carries the source's end state, so a restart emits nothing again.
        std::uint64_t id = next_checkpoint_id++;
        auto& pending = checkpoints[id];
        pending.source_state = source->snapshot_state();
        pending.dead_letters += bad_records.source_stage->take_pending();
        pending.final = true;
        co_await send_to_source_channel(StreamElement(Barrier{id}));
        co_await send_to_source_channel(StreamElement(EndOfInput{}));
    }

    awaitable<void> checkpoint_loop() {
        auto interval = std::chrono::milliseconds(
            std::max<std::int64_t>(1, plan.settings.checkpoint_interval_ms));
        while (!stopping && !source_done) {
            checkpoint_timer.expires_after(interval);
            co_await checkpoint_timer.async_wait(asio::as_tuple(use_awaitable));
            if (stopping || source_done) break;
            if (unwritten) {
                co_await write_unwritten_again();
                continue;
            }
            if (checkpoint_in_flight) continue;  // one at a time; the next tick retries
            checkpoint_in_flight = true;
            std::uint64_t id = next_checkpoint_id++;
            checkpoints[id].source_state = source->snapshot_state();
            checkpoints[id].dead_letters += bad_records.source_stage->take_pending();
            // Queued after any batch the source is still handing over, so it follows those events.
            co_await send_to_source_channel(StreamElement(Barrier{id}));
        }
    }

    // ---- processing ------------------------------------------------------------------------
    /// Without a transform: routes each batch as it arrives.
    awaitable<void> processor_task() {
        EventBatch out;
        while (true) {
            auto [ec, element] =
                co_await source_channel.async_receive(asio::as_tuple(use_awaitable));
            if (ec) co_return;
            --queued[0];
            if (auto* batch = std::get_if<EventBatch>(&element)) {
                co_await route(*batch, out);
            } else if (auto* barrier = std::get_if<Barrier>(&element)) {
                std::string no_transform_state;
                std::string no_dead_letters;
                co_await pass_barrier(*barrier, no_transform_state, no_dead_letters);
            } else {
                co_await end_writers();
                co_return;
            }
        }
    }

    /// With a transform, one task hands the source's stream to the transform stage and another
    /// routes what comes out, so the loop routes and writes earlier batches while the transform
    /// thread works on later ones.
    awaitable<void> transform_feeder_task() {
        while (true) {
            auto [ec, element] =
                co_await source_channel.async_receive(asio::as_tuple(use_awaitable));
            if (ec) co_return;
            --queued[0];
            bool end = std::holds_alternative<EndOfInput>(element);
            co_await transform_stage->send(std::move(element));
            if (end) co_return;
        }
    }

    awaitable<void> transform_router_task() {
        EventBatch out;
        while (true) {
            TransformStage::Result result = co_await transform_stage->receive();
            if (auto* batch = std::get_if<EventBatch>(&result.element)) {
                co_await route(*batch, out);
            } else if (auto* barrier = std::get_if<Barrier>(&result.element)) {
                co_await pass_barrier(*barrier, result.transform_state, result.dead_letters);
            } else {
                co_await end_writers();
                co_return;
            }
        }
    }

    /// Barrier N has passed every operator: their state joins checkpoint N, and the writers flush.
    // (Arguments by reference: GCC 12 mis-compiles temporaries made inside a co_await expression.)
    awaitable<void> pass_barrier(const Barrier& barrier, std::string& transform_state,
                                 std::string& transform_dead_letters) {
        auto& pending = checkpoints[barrier.checkpoint_id];
        pending.schema_state = schema_operator->snapshot_state();
        pending.transform_state = std::move(transform_state);
        pending.dead_letters += transform_dead_letters;
        pending.writer_states.assign(writers.size(), {});
        pending.acks_remaining = writers.size();
        for (std::size_t i = 0; i < writer_channels.size(); ++i)
            co_await send_to_writer(i, WriterElement(barrier));
    }

    awaitable<void> end_writers() {
        for (std::size_t i = 0; i < writer_channels.size(); ++i)
            co_await send_to_writer(i, WriterElement(EndOfInput{}));
    }

    awaitable<void> route(EventBatch& in, EventBatch& out) {
        co_await schema_operator->process(in, out);
        schema_change_timer.cancel();  // its schema changes are applied
        co_await dispatch(out);
    }

    /// Sends sink-side events to the writers: data by primary-key partition, schema changes to all.
    awaitable<void> dispatch(EventBatch& out) {
        if (out.empty()) co_return;
        events_out += out.size();
        rm.sink.records_in.inc(out.size());
        if (writers.size() == 1) {
            EventBatch batch;
            batch.swap(out);
            rm.sink_batches.inc();
            co_await send_to_writer(0, WriterElement(std::move(batch)));
            co_return;
        }
        std::vector<EventBatch> parts(writers.size());
        for (Event& e : out) {
            if (auto* data = std::get_if<DataChangeEvent>(&e)) {
                std::size_t w = partition_of(*data, schema_operator->sink_schema(data->table),
                                             writers.size(), plan.partitioning);
                parts[w].push_back(std::move(e));
            } else {
                for (auto& p : parts) p.push_back(e);
            }
        }
        out.clear();
        for (std::size_t i = 0; i < parts.size(); ++i) {
            if (parts[i].empty()) continue;
            rm.sink_batches.inc();
            co_await send_to_writer(i, WriterElement(std::move(parts[i])));
        }
    }

    /// Flink's FlushEvent: everything before a schema change reaches the target before it applies.
    /// The flush and the apply that follows it must end within schema-operator.rpc-timeout (as
    /// Flink's schema operator waits that long for its coordinator), else the pipeline fails.
    awaitable<void> flush_writers(EventBatch& pending, const SchemaChangeEvent& change) {
        arm_schema_change_timeout(change);
        co_await dispatch(pending);
        auto done = std::make_shared<Countdown>(io.get_executor(), writers.size());
        for (std::size_t i = 0; i < writer_channels.size(); ++i) {
            // A named element: GCC 12 mis-compiles brace-initialised temporaries inside a
            // co_await expression (the shared_ptr's count was dropped twice: use after free).
            FlushRequest request{done};
            WriterElement element(std::move(request));
            co_await send_to_writer(i, std::move(element));
        }
        co_await done->wait();
    }

    void arm_schema_change_timeout(const SchemaChangeEvent& change) {
        schema_change_timer.expires_after(std::chrono::milliseconds(plan.schema_change_timeout_ms));
        schema_change_timer.async_wait(
            [this, what = format_schema_change(change),
             table = table_of(change).str()](boost::system::error_code ec) {
                if (ec || stopping) return;
                std::string why =
                    "schema change " + what + " of sink table " + table +
                    " was not applied within pipeline.schema-operator.rpc-timeout (" +
                    std::to_string(plan.schema_change_timeout_ms) +
                    " ms): the sink writers had not flushed the events before it, or sink `" +
                    plan.definition.sink.type +
                    "` had not applied it. The pipeline stops and resumes from its last "
                    "checkpoint when restarted; raise schema-operator.rpc-timeout if the sink is "
                    "only slow";
                spdlog::error("{}", why);
                rm.failures.inc();
                fail(std::make_exception_ptr(std::runtime_error(why)));
            });
    }

    // ---- writers and checkpoint completion ---------------------------------------------------
    awaitable<void> writer_task(std::size_t index) {
        auto& writer = *writers[index];
        auto& channel = *writer_channels[index];
        while (true) {
            auto [ec, element] = co_await channel.async_receive(asio::as_tuple(use_awaitable));
            if (ec) co_return;
            --queued[index + 1];
            if (auto* batch = std::get_if<EventBatch>(&element)) {
                co_await writer.write(*batch);
                if (transform_stage) transform_stage->recycle_written(*batch);
            } else if (auto* barrier = std::get_if<Barrier>(&element)) {
                std::string state = co_await writer.flush(barrier->checkpoint_id);
                std::string dead = bad_records.writer_stages[index]->take_pending();
                co_await acknowledge(barrier->checkpoint_id, index, std::move(state),
                                     std::move(dead));
            } else if (auto* flush = std::get_if<FlushRequest>(&element)) {
                co_await writer.flush(0);
                flush->done->arrive();
            } else {
                co_await writer.close();
                if (++writers_closed == writers.size()) finish();
                co_return;
            }
        }
    }

    awaitable<void> acknowledge(std::uint64_t id, std::size_t writer, std::string state,
                                std::string dead_letter_lines) {
        auto it = checkpoints.find(id);
        if (it == checkpoints.end()) co_return;
        it->second.writer_states[writer] = std::move(state);
        it->second.dead_letters += dead_letter_lines;
        if (--it->second.acks_remaining > 0) co_return;
        co_await complete_checkpoint(id);
    }

    awaitable<void> complete_checkpoint(std::uint64_t id) {
        auto node = checkpoints.extract(id);
        PendingCheckpoint& pending = node.mapped();
        state::Checkpoint checkpoint;
        checkpoint.id = id;
        checkpoint.created_ms = now_ms();
        checkpoint.fingerprint = plan.fingerprint();
        checkpoint.parts["source"] = std::move(pending.source_state);
        checkpoint.parts["schema"] = std::move(pending.schema_state);
        if (transform) checkpoint.parts["transform"] = std::move(pending.transform_state);
        for (std::size_t i = 0; i < pending.writer_states.size(); ++i)
            checkpoint.parts["sink/" + std::to_string(i)] = std::move(pending.writer_states[i]);
        // The checkpoint before this one in this pipeline's history (0: a fresh start).
        checkpoint.parts["previous"] = std::to_string(previous_checkpoint_id);
        // Durable before the checkpoint that names its length: a crash between the two leaves
        // bytes past that length, which the restore cuts off (the stages replay those records).
        if (dead_letters)
            checkpoint.parts["dead-letter"] = dead_letters->commit(pending.dead_letters);
        co_await persist(std::move(checkpoint), pending.started, pending.final);
    }

    /// Writes a complete checkpoint to the store, then lets the writers commit and the source
    /// acknowledge upstream what it covers. A failed write (the state directory's disk is full)
    /// commits and acknowledges nothing: the checkpoint is kept and written again at the next
    /// interval, no newer barrier is taken meanwhile (writers keep writing, the sinks' uncommitted
    /// output grows, a Kafka sink's transaction stays open), and the pipeline fails once more
    /// than execution.checkpointing.tolerable-failed-checkpoints writes in a row have failed.
    awaitable<void> persist(state::Checkpoint checkpoint,
                            std::chrono::steady_clock::time_point started, bool final) {
        std::uint64_t id = checkpoint.id;
        try {
            store->write(plan.settings.name, checkpoint, retained);
        } catch (const state::StateError& e) {
            rm.checkpoints_failed.inc();
            ++consecutive_failed_checkpoints;
            std::string why = "pipeline '" + plan.settings.name + "': checkpoint " +
                              std::to_string(id) + " failed: " + e.what();
            std::string stored = previous_checkpoint_id
                                     ? "checkpoint " + std::to_string(previous_checkpoint_id)
                                     : std::string("no checkpoint");
            if (final || consecutive_failed_checkpoints > plan.tolerable_failed_checkpoints) {
                why += "; " + std::to_string(consecutive_failed_checkpoints) +
                       " consecutive checkpoint(s) failed (execution.checkpointing.tolerable-" +
                       "failed-checkpoints is " +
                       std::to_string(plan.tolerable_failed_checkpoints) +
                       "): stopping. The state directory " + state_dir() + " keeps " + stored +
                       ", from which a restart resumes once the cause is fixed";
                spdlog::error("{}", why);
                rm.failures.inc();
                fail(std::make_exception_ptr(state::StateError(why)));
                co_return;
            }
            spdlog::error(
                "{}; writing it again in {} ms ({} of {} tolerated consecutive failures, "
                "execution.checkpointing.tolerable-failed-checkpoints). Until then the sinks "
                "commit and the sources acknowledge nothing newer than {}",
                why, plan.settings.checkpoint_interval_ms, consecutive_failed_checkpoints,
                plan.tolerable_failed_checkpoints, stored);
            unwritten = UnwrittenCheckpoint{std::move(checkpoint), started};
            co_return;  // checkpoint_in_flight stays set: the next tick writes it again
        }
        if (consecutive_failed_checkpoints > 0)
            spdlog::info("pipeline '{}': checkpoint {} written after {} failed attempt(s)",
                         plan.settings.name, id, consecutive_failed_checkpoints);
        consecutive_failed_checkpoints = 0;
        // A final checkpoint written while an earlier one waited to be written again covers it:
        // that one is notified first, so that sources acknowledging one checkpoint's messages per
        // notification (oss-cdc MNS) acknowledge both.
        std::optional<std::uint64_t> superseded;
        if (unwritten && unwritten->checkpoint.id != id) superseded = unwritten->checkpoint.id;
        unwritten.reset();
        previous_checkpoint_id = id;
        ++checkpoints_completed;
        rm.checkpoint_completed(id, std::chrono::steady_clock::now() - started,
                                checkpoint.size_bytes(), checkpoint.created_ms);
        if (!final) checkpoint_in_flight = false;
        spdlog::debug("checkpoint {} complete in {} ms", id,
                      std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count());
        if (final) spdlog::info("final checkpoint {} written", id);
        // Writers commit first: the source acknowledges upstream (deletes messages, commits
        // offsets) only what the sink has committed.
        std::vector<std::uint64_t> completed;
        if (superseded) completed.push_back(*superseded);
        completed.push_back(id);
        for (std::uint64_t done : completed) {
            for (auto& w : writers) co_await w->notify_checkpoint_complete(done);
            co_await source->notify_checkpoint_complete(done);
        }
    }

    /// At a checkpoint interval while a written checkpoint's write has failed.
    awaitable<void> write_unwritten_again() {
        UnwrittenCheckpoint again = std::move(*unwritten);
        unwritten.reset();
        co_await persist(std::move(again.checkpoint), again.started, false);
    }

    // ---- lifecycle -------------------------------------------------------------------------
    void begin_drain(const char* why) {
        if (stopping) return;
        stopping = true;
        set_phase(RuntimePhase::Draining);
        spdlog::info("{}: draining (stop sources, final checkpoint, flush sinks; timeout {} ms)",
                     why, plan.shutdown_timeout_ms);
        checkpoint_timer.cancel();
        for (auto* t : sleepers) t->cancel();
        drain_timer.expires_after(std::chrono::milliseconds(plan.shutdown_timeout_ms));
        drain_timer.async_wait([this](boost::system::error_code ec) {
            if (ec) return;
            const char* why =
                "drain did not finish within pipeline.shutdown.timeout; exiting without a final "
                "checkpoint";
            spdlog::error("{}", why);
            fail(std::make_exception_ptr(std::runtime_error(why)));
        });
    }

    void wait_for_signal() {
        signals.async_wait([this](boost::system::error_code ec, int signal) {
            if (ec) return;
            if (stopping) {
                spdlog::warn("second signal ({}): exiting at once", signal);
                std::_Exit(130);
            }
            begin_drain(signal == SIGINT ? "SIGINT" : "SIGTERM");
            wait_for_signal();
        });
    }

    void set_phase(RuntimePhase p) {
        if (phase == p) return;
        phase = p;
        rm.ready.set(p == RuntimePhase::Running ? 1 : 0);
        if (options.on_phase) options.on_phase(p);
    }

    void finish() {
        set_phase(RuntimePhase::Stopped);
        drain_timer.cancel();
        checkpoint_timer.cancel();
        schema_change_timer.cancel();
        signals.cancel();
        spdlog::info("pipeline '{}' finished: {} events in, {} events out, {} checkpoints",
                     plan.settings.name, events_in, events_out, checkpoints_completed);
    }

    void fail(std::exception_ptr error) {
        if (!first_error) first_error = std::move(error);
        stopping = true;
        set_phase(RuntimePhase::Stopped);
        if (transform_stage) transform_stage->close();
        io.stop();
    }

    std::function<void(std::exception_ptr)> on_exit(const std::string& task) {
        return [this, task](const std::exception_ptr& e) {
            if (!e) return;
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& ex) {
                spdlog::error("{} failed: {}", task, ex.what());
            }
            rm.failures.inc();
            fail(e);
        };
    }

    int run() {
        try {
            // Before any connector exists: a second start on a running pipeline's directory must
            // fail before it touches an external system (a Kafka sink's new transactional
            // producer fences the running one's).
            state_lock = state::StateDirLock::acquire(state_dir());
            build();
        } catch (const std::exception& e) {
            spdlog::error("{}", e.what());
            set_phase(RuntimePhase::Stopped);
            return 1;
        }
        // The restore (opening RocksDB, decoding every part) runs on a thread of its own while
        // the event loop already serves what shares it (admin endpoint: /readyz answers 503
        // starting; systemd watchdog). Nothing on the loop touches the pipeline's objects until
        // the restore has finished and handed them back through post().
        auto keep_running = asio::make_work_guard(io);
        // Signals are handled from here on: SIGTERM during a restore lets it finish, then the
        // pipeline stops without starting (nothing ran, so there is nothing to drain).
        if (options.handle_signals) {
            signals.add(SIGTERM);
            signals.add(SIGINT);
            wait_for_signal();
        }
        std::thread restorer([this, &keep_running] {
            std::exception_ptr error;
            try {
                restore();
            } catch (...) {
                error = std::current_exception();
            }
            asio::post(io, [this, &keep_running, error] {
                keep_running.reset();
                start(error);
            });
        });
        try {
            io.run();
        } catch (...) {
            restorer.join();  // a handler threw: the restore ends (its post() is never run)
            throw;
        }
        restorer.join();
        return first_error ? 1 : 0;
    }

    /// On the loop, once the restore is done: start every task, or stop on a failed restore.
    void start(const std::exception_ptr& restore_error) {
        if (restore_error) {
            try {
                std::rethrow_exception(restore_error);
            } catch (const std::exception& e) {
                spdlog::error("{}", e.what());
            }
            fail(restore_error);
            return;
        }
        if (stopping) {
            spdlog::info("pipeline '{}': stop requested during the restore; not started",
                         plan.settings.name);
            finish();
            return;
        }
        spdlog::info("pipeline '{}' running{}: {} → {} (parallelism {}, checkpoint every {} ms)",
                     plan.settings.name, plan.batch ? " in BATCH mode (ends with its input)" : "",
                     plan.definition.source.type, plan.definition.sink.type,
                     plan.settings.parallelism, plan.settings.checkpoint_interval_ms);
        asio::co_spawn(io, source_task(), on_exit("source " + plan.definition.source.type));
        if (transform_stage) {
            asio::co_spawn(io, transform_feeder_task(), on_exit("pipeline"));
            asio::co_spawn(io, transform_router_task(), on_exit("pipeline"));
        } else {
            asio::co_spawn(io, processor_task(), on_exit("pipeline"));
        }
        for (std::size_t i = 0; i < writers.size(); ++i)
            asio::co_spawn(
                io, writer_task(i),
                on_exit("sink " + plan.definition.sink.type + " writer " + std::to_string(i)));
        asio::co_spawn(io, checkpoint_loop(), on_exit("checkpoint coordinator"));
        set_phase(RuntimePhase::Running);
    }

    PipelinePlan plan;
    RunOptions options;
    metrics::Registry registry;
    RuntimeMetrics rm;
    RuntimePhase phase = RuntimePhase::Starting;
    std::vector<std::int64_t> queued;
    asio::io_context io{1};
    state::StateDirLock state_lock;  // released after the store has closed
    std::unique_ptr<state::CheckpointStore> store;
    BadRecordStages bad_records{plan, registry};
    std::unique_ptr<DeadLetterFile> dead_letters;  // policy dead-letter only
    std::unique_ptr<Source> source;
    std::unique_ptr<Sink> sink;
    std::unique_ptr<transform::TransformOperator> transform;
    std::unique_ptr<TransformStage> transform_stage;  // joined before `transform` is destroyed
    std::unique_ptr<SchemaOperator> schema_operator;
    std::vector<std::unique_ptr<SinkWriter>> writers;
    SourceChannel source_channel;
    std::vector<std::unique_ptr<WriterChannel>> writer_channels;
    asio::steady_timer checkpoint_timer;
    asio::steady_timer drain_timer;
    asio::steady_timer schema_change_timer;  // schema-operator.rpc-timeout of the change applied
    asio::signal_set signals;
    std::set<asio::steady_timer*> sleepers;
    std::map<std::uint64_t, PendingCheckpoint> checkpoints;
    std::uint64_t next_checkpoint_id = 1;
    std::uint64_t previous_checkpoint_id = 0;  // the last one written or restored
    int retained = 3;                          // checkpoints kept in the store
    bool checkpoint_in_flight = false;
    std::optional<UnwrittenCheckpoint> unwritten;  // its write failed; written again next tick
    int consecutive_failed_checkpoints = 0;
    bool source_done = false;
    bool stopping = false;
    std::size_t writers_closed = 0;
    std::uint64_t events_in = 0, events_out = 0, checkpoints_completed = 0;
    std::exception_ptr first_error;
};

PipelineRuntime::PipelineRuntime(PipelinePlan plan, RunOptions options)
    : impl_(std::make_unique<Impl>(std::move(plan), std::move(options))) {}
PipelineRuntime::~PipelineRuntime() = default;
int PipelineRuntime::run() {
    return impl_->run();
}
asio::io_context& PipelineRuntime::io() {
    return impl_->io;
}
metrics::Registry& PipelineRuntime::metrics() {
    return impl_->registry;
}
RuntimePhase PipelineRuntime::phase() const {
    return impl_->phase;
}

}  // namespace cdcd
