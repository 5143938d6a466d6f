// Aligned checkpoints: the coordinator injects barrier N after the source's state, the operators'
// states join it as N passes, each writer acks N, and the complete checkpoint is written to the
// store before the writers and the source are told it is durable.
#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>

#include "pipeline/runtime/pipeline_runtime_impl.h"

namespace cdcd {

awaitable<void> PipelineRuntime::Impl::checkpoint_loop() {
    auto interval =
        std::chrono::milliseconds(std::max<std::int64_t>(1, plan.settings.checkpoint_interval_ms));
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
        checkpoints[id].dead_letters += bad_records.source_stage->take_pending();
        if (!readers.empty()) {
            inject_reader_barriers(id);  // the source's state joins as the readers' barriers align
            continue;
        }
        checkpoints[id].source_state = source->snapshot_state();
        // Queued after any batch the source is still handing over, so it follows those events.
        co_await send_to_source_channel(StreamElement(Barrier{id}));
    }
}

/// A checkpoint whose barrier or flush never ends (a sink's flush that hangs) would leave the
/// pipeline running on without checkpoints, the next one waiting for it: after
/// execution.checkpointing.timeout it fails instead, as Flink's default does. Until then the log
/// says every 30 s (a quarter of a shorter timeout) what it waits for: a wait that ends in a
/// failure ten minutes later, or never, is not silent meanwhile.
awaitable<void> PipelineRuntime::Impl::checkpoint_expiry_loop() {
    const auto timeout = std::chrono::milliseconds(plan.checkpoint_timeout_ms);
    const auto report_every =
        std::max(std::chrono::milliseconds(1),
                 std::min<std::chrono::milliseconds>(timeout / 4, std::chrono::seconds(30)));
    const auto tick = std::min<std::chrono::milliseconds>(report_every, std::chrono::seconds(1));
    while (!stopping && phase != RuntimePhase::Stopped) {
        checkpoint_expiry_timer.expires_after(tick);
        auto [ec] = co_await checkpoint_expiry_timer.async_wait(asio::as_tuple(use_awaitable));
        if (ec || stopping || phase == RuntimePhase::Stopped) co_return;
        const auto now = std::chrono::steady_clock::now();
        for (auto& [id, pending] : checkpoints) {
            const auto waited = now - pending.started;
            if (waited < timeout) {
                if (waited < report_every * (pending.progress_reports + 1)) continue;
                ++pending.progress_reports;
                spdlog::warn(
                    "pipeline '{}': checkpoint {} has waited {} ms: {}; it fails the pipeline "
                    "if not complete within execution.checkpointing.timeout ({} ms)",
                    plan.settings.name, id,
                    std::chrono::duration_cast<std::chrono::milliseconds>(waited).count(),
                    what_checkpoint_waits_for(pending), plan.checkpoint_timeout_ms);
                continue;
            }
            std::string why = describe_expired_checkpoint(id, pending);
            spdlog::error("{}", why);
            rm.checkpoints_failed.inc();
            rm.failures.inc();
            fail(std::make_exception_ptr(std::runtime_error(why)));
            co_return;
        }
    }
}

std::string PipelineRuntime::Impl::what_checkpoint_waits_for(
    const PendingCheckpoint& pending) const {
    if (pending.writer_states.empty())
        return "its barrier has not passed the source and the operators";
    std::string missing;
    for (std::size_t i = 0; i < pending.writer_states.size(); ++i) {
        if (pending.writer_states[i]) continue;
        missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    }
    return "sink `" + plan.definition.sink.type + "` writer(s) " + missing +
           " have not acknowledged it (their flush has not ended)";
}

std::string PipelineRuntime::Impl::describe_expired_checkpoint(
    std::uint64_t id, const PendingCheckpoint& pending) const {
    const std::string waits = what_checkpoint_waits_for(pending);
    const std::string stored = previous_checkpoint_id
                                   ? "checkpoint " + std::to_string(previous_checkpoint_id)
                                   : std::string("its startup position (no checkpoint yet)");
    return "pipeline '" + plan.settings.name + "': checkpoint " + std::to_string(id) +
           " did not complete within execution.checkpointing.timeout (" +
           std::to_string(plan.checkpoint_timeout_ms) + " ms): " + waits +
           ". The pipeline stops; a restart resumes from " + stored +
           ". Raise execution.checkpointing.timeout if the sink is only slow";
}

/// Barrier N has passed every operator: their state joins checkpoint N, and the writers flush.
// (Arguments by reference: GCC 12 mis-compiles temporaries made inside a co_await expression.)
awaitable<void> PipelineRuntime::Impl::pass_barrier(const Barrier& barrier,
                                                    std::string& transform_state,
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

awaitable<void> PipelineRuntime::Impl::acknowledge(std::uint64_t id, std::size_t writer,
                                                   std::string state,
                                                   std::string dead_letter_lines) {
    auto it = checkpoints.find(id);
    if (it == checkpoints.end()) co_return;
    it->second.writer_states[writer] = std::move(state);
    it->second.dead_letters += dead_letter_lines;
    if (--it->second.acks_remaining > 0) co_return;
    co_await complete_checkpoint(id);
}

awaitable<void> PipelineRuntime::Impl::complete_checkpoint(std::uint64_t id) {
    auto node = checkpoints.extract(id);
    PendingCheckpoint& pending = node.mapped();
    state::Checkpoint checkpoint;
    checkpoint.id = id;
    checkpoint.created_ms = now_ms();
    checkpoint.fingerprint = plan.fingerprint();
    checkpoint.parts["source"] = std::move(pending.source_state);
    checkpoint.parts["schema"] = std::move(pending.schema_state);
    if (!transforms.empty()) checkpoint.parts["transform"] = std::move(pending.transform_state);
    for (std::size_t i = 0; i < pending.writer_states.size(); ++i)
        checkpoint.parts["sink/" + std::to_string(i)] = std::move(*pending.writer_states[i]);
    // The checkpoint before this one in this pipeline's history (0: a fresh start).
    checkpoint.parts["previous"] = std::to_string(previous_checkpoint_id);
    // Durable before the checkpoint that names its length: a crash between the two leaves
    // bytes past that length, which the restore cuts off (the stages replay those records).
    if (dead_letters) checkpoint.parts["dead-letter"] = dead_letters->commit(pending.dead_letters);
    co_await persist(std::move(checkpoint), pending.started, pending.final);
}

/// Writes a complete checkpoint to the store, then lets the writers commit and the source
/// acknowledge upstream what it covers. A failed write (the state directory's disk is full)
/// commits and acknowledges nothing: the checkpoint is kept and written again at the next
/// interval, no newer barrier is taken meanwhile (writers keep writing, the sinks' uncommitted
/// output grows, a Kafka sink's transaction stays open), and the pipeline fails once more
/// than execution.checkpointing.tolerable-failed-checkpoints writes in a row have failed.
awaitable<void> PipelineRuntime::Impl::persist(state::Checkpoint checkpoint,
                                               std::chrono::steady_clock::time_point started,
                                               bool final) {
    std::uint64_t id = checkpoint.id;
    try {
        store->write(plan.settings.name, checkpoint, retained);
        state_lock.check_in_place();  // else it went into a directory a restart will not see
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
                   "failed-checkpoints is " + std::to_string(plan.tolerable_failed_checkpoints) +
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
    rm.checkpoint_completed(id, std::chrono::steady_clock::now() - started, checkpoint.size_bytes(),
                            checkpoint.created_ms);
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
        for (std::size_t i = 0; i < writers.size(); ++i)
            co_await on_writer_loop(i, writers[i]->notify_checkpoint_complete(done));
        co_await source->notify_checkpoint_complete(done);
    }
}

/// At a checkpoint interval while a written checkpoint's write has failed.
awaitable<void> PipelineRuntime::Impl::write_unwritten_again() {
    UnwrittenCheckpoint again = std::move(*unwritten);
    unwritten.reset();
    co_await persist(std::move(again.checkpoint), again.started, false);
}

}  // namespace cdcd
