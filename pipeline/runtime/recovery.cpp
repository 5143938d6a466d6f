// Start-up: the state directory's store is opened and the checkpoint to resume from chosen,
// checked and handed to every operator and connector, or a fresh start claims the sinks' output.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "pipeline/runtime/pipeline_runtime_impl.h"

namespace cdcd {

/// The dead-letter file of policy dead-letter: bad-record.dead-letter.path, else one per
/// pipeline in the state directory.
std::string PipelineRuntime::Impl::dead_letter_path(const std::string& state_dir) const {
    if (!plan.dead_letter_path.empty()) return plan.dead_letter_path;
    std::string name;
    for (char c : plan.settings.name)
        name += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')
                    ? c
                    : '_';
    return state_dir + "/dead-letter/" + name + ".jsonl";
}

std::string PipelineRuntime::Impl::state_dir() const {
    return options.state_dir.empty() ? plan.state_dir : options.state_dir;
}

/// Opens the (locked) state directory's store. With --reset-state, discards the pipeline's
/// checkpoints, whether they decode or not; a directory too damaged even for that is moved
/// aside, never deleted, and the pipeline starts over in a fresh one.
void PipelineRuntime::Impl::open_store(const std::string& dir) {
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

void PipelineRuntime::Impl::restore() {
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
        spdlog::info("pipeline '{}': no checkpoint in {}, starting from the source's startup mode",
                     name, dir);
        claim_fresh_outputs();
        return;
    }
    std::vector<state::Checkpoint> candidates =
        options.from_checkpoint ? requested_candidates(stored, *options.from_checkpoint, dir)
                                : decodable_candidates(stored, dir);
    check_fingerprint(candidates.back(), dir);
    std::optional<int> rescaled = rescale_writer_states(candidates.back(), dir);
    const state::Checkpoint* chosen = choose_recoverable(candidates, dir);
    if (chosen && chosen != &candidates.back()) {
        check_fingerprint(*chosen, dir);
        rescaled = rescale_writer_states(candidates[chosen - candidates.data()], dir);
    }
    if (chosen) restore_parts(*chosen, stored, dir);
    // Only now that the restore succeeded: a failed one leaves the store as it was.
    std::uint64_t keep = chosen ? chosen->id : 0;
    if (stored.back().id > keep) {
        store->discard_newer(name, keep);
        spdlog::info("pipeline '{}': discarded the checkpoints newer than {} in {}", name,
                     chosen ? "checkpoint " + std::to_string(keep) : std::string("a fresh start"),
                     dir);
    }
    if (!chosen) {
        spdlog::info("pipeline '{}': starting from the source's startup mode (in {})", name, dir);
        claim_fresh_outputs();
        return;
    }
    previous_checkpoint_id = chosen->id;
    rm.restores.inc();
    rm.checkpoint_completed(chosen->id, std::chrono::steady_clock::duration(-1),
                            chosen->size_bytes(), chosen->created_ms);
    spdlog::info("pipeline '{}': restored checkpoint {} ({} bytes) from {}", name, chosen->id,
                 chosen->size_bytes(), dir);
    if (rescaled) store_rescaled(*chosen, *rescaled, dir);
}

std::string PipelineRuntime::Impl::id_list(const std::vector<std::uint64_t>& ids) {
    std::string out;
    for (auto id : ids) out += (out.empty() ? "" : ", ") + std::to_string(id);
    return out.empty() ? "none" : out;
}

/// The checkpoints a plain restart may resume from, oldest first: every one that decodes up
/// to the newest that does. A newer one that does not decode (damaged bytes, a format this
/// build does not know) is skipped with a warning: no connector has seen it, so the older one
/// is a consistent, if older, point to resume from.
std::vector<state::Checkpoint> PipelineRuntime::Impl::decodable_candidates(
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
std::vector<state::Checkpoint> PipelineRuntime::Impl::requested_candidates(
    const std::vector<state::StoredCheckpoint>& stored, std::uint64_t id,
    const std::string& dir) const {
    const std::string& name = plan.settings.name;
    std::vector<std::uint64_t> ids;
    ids.reserve(stored.size());
    for (const auto& c : stored) ids.push_back(c.id);
    auto it = std::find_if(stored.begin(), stored.end(),
                           [id](const state::StoredCheckpoint& c) { return c.id == id; });
    if (it == stored.end())
        throw std::runtime_error("--from-checkpoint " + std::to_string(id) + ": no checkpoint " +
                                 std::to_string(id) + " of pipeline '" + name + "' is stored in " +
                                 dir + "; the stored ones are " + id_list(ids) +
                                 " (cdcd checkpoints list --state-dir " + dir + ")");
    if (!it->checkpoint)
        throw std::runtime_error("--from-checkpoint " + std::to_string(id) + ": checkpoint " +
                                 std::to_string(id) + " of pipeline '" + name + "' in " + dir +
                                 " cannot be decoded (" + it->error + "); the stored ones are " +
                                 id_list(ids));
    std::vector<state::Checkpoint> out;
    for (const auto& c : stored)
        if (c.checkpoint && c.id <= id) out.push_back(*c.checkpoint);
    return out;
}

/// Hands each part of `chosen` to its operator or connector. A part the connector refuses
/// stops the start: falling back past it on our own could make a sink that is not idempotent
/// write twice what followed the older checkpoint, so the operator decides
/// (docs/operations.md).
void PipelineRuntime::Impl::restore_parts(const state::Checkpoint& chosen,
                                          const std::vector<state::StoredCheckpoint>& stored,
                                          const std::string& dir) {
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
    for (auto& transform : transforms) {  // every lane's operator starts in the same state
        restore_part("transform", "the transform", [&](const std::string& s) {
            transform->restore(s);
            restored_transform_state = s;  // for the readers' operators (start_readers)
        });
        // For `cdcd tap` at the source point (TransformOperator::upstream_schema).
        transform->restore_unselected(schema_operator->upstream_schemas());
    }
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

std::string PipelineRuntime::Impl::part_error(const state::Checkpoint& chosen,
                                              const std::string& part, const std::string& who,
                                              const std::string& what,
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
void PipelineRuntime::Impl::claim_fresh_outputs() {
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
    spdlog::info("pipeline '{}': checkpoint {} records the sink's fresh output", plan.settings.name,
                 claim.id);
}

void PipelineRuntime::Impl::check_fingerprint(const state::Checkpoint& checkpoint,
                                              const std::string& dir) const {
    const std::string& name = plan.settings.name;
    for (const auto& [key, value] : plan.fingerprint()) {
        if (key == kParallelismKey) continue;  // the sink redistributes (rescale_writer_states)
        auto it = checkpoint.fingerprint.find(key);
        std::string stored = it == checkpoint.fingerprint.end() ? "(absent)" : it->second;
        if (stored != value)
            throw std::runtime_error(
                "checkpoint " + std::to_string(checkpoint.id) + " of pipeline '" + name + "' in " +
                dir + " was taken with " + key + "=" + stored + ", but this pipeline has " + key +
                "=" + value +
                "; restore is refused. Use --reset-state to start over, or another "
                "pipeline.name or state directory.");
    }
}

/// A checkpoint taken at another pipeline.parallelism: its writers' states become the states of
/// this pipeline's writers, as the sink redistributes them (Sink::rescale_writer_states), and its
/// fingerprint this pipeline's. Returns the parallelism it was taken at, or nullopt when it is
/// this one. Throws when the sink refuses, or the parallelism is not recorded.
std::optional<int> PipelineRuntime::Impl::rescale_writer_states(state::Checkpoint& checkpoint,
                                                                const std::string& dir) const {
    const int now = plan.settings.parallelism;
    auto recorded = checkpoint.fingerprint.find(kParallelismKey);
    std::string value = recorded == checkpoint.fingerprint.end() ? "(absent)" : recorded->second;
    if (value == std::to_string(now)) return std::nullopt;
    const std::string taken = "checkpoint " + std::to_string(checkpoint.id) + " of pipeline '" +
                              plan.settings.name + "' in " + dir + " was taken with " +
                              kParallelismKey + "=" + value + ", and this pipeline has " +
                              std::to_string(now);
    // A number no pipeline runs at (100,000 writers take 500 MB) is a damaged fingerprint.
    constexpr int kMostWriters = 1'000'000;
    int before = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), before);
    if (ec != std::errc() || end != value.data() + value.size() || before < 1 ||
        before > kMostWriters)
        throw std::runtime_error(taken +
                                 "; restore is refused. Use --reset-state to start over, or "
                                 "another pipeline.name or state directory.");
    std::vector<std::string> states(static_cast<std::size_t>(before));
    for (int j = 0; j < before; ++j) {
        auto it = checkpoint.parts.find("sink/" + std::to_string(j));
        if (it != checkpoint.parts.end()) states[static_cast<std::size_t>(j)] = it->second;
    }
    std::vector<std::optional<std::string>> after;
    try {
        after = sink->rescale_writer_states(states, now);
    } catch (const std::exception& e) {
        throw std::runtime_error(taken + ", but sink `" + plan.definition.sink.type +
                                 "` cannot resume at another parallelism: " + e.what() +
                                 ". Nothing was restored or discarded. Run it with " +
                                 kParallelismKey + ": " + value +
                                 ", or use --reset-state to start over.");
    }
    if (after.size() != static_cast<std::size_t>(now))
        throw std::logic_error("sink `" + plan.definition.sink.type + "` rescaled to " +
                               std::to_string(after.size()) + " writers, not " +
                               std::to_string(now));
    for (int j = 0; j < before; ++j) checkpoint.parts.erase("sink/" + std::to_string(j));
    for (int i = 0; i < now; ++i)
        if (auto& s = after[static_cast<std::size_t>(i)])
            checkpoint.parts["sink/" + std::to_string(i)] = std::move(*s);
    checkpoint.fingerprint[kParallelismKey] = std::to_string(now);
    return before;
}

/// After restoring a rescaled checkpoint: a checkpoint of the restored state at this
/// parallelism, with the output each writer now owns (SinkWriter::fresh_start_state: a file
/// writer that starts a new file claims it), stored before anything runs. A crash before the
/// next checkpoint then resumes at this parallelism into that output, instead of rescaling again
/// onto output the crashed run had begun.
void PipelineRuntime::Impl::store_rescaled(const state::Checkpoint& chosen, int before,
                                           const std::string& dir) {
    state::Checkpoint rescaled = chosen;
    for (std::size_t i = 0; i < writers.size(); ++i)
        if (auto s = writers[i]->fresh_start_state())
            rescaled.parts["sink/" + std::to_string(i)] = std::move(*s);
    if (dead_letters) rescaled.parts["dead-letter"] = dead_letters->commit({});
    rescaled.id = next_checkpoint_id++;
    rescaled.created_ms = now_ms();
    rescaled.fingerprint = plan.fingerprint();
    // Its "previous" stays the chosen one's: it stands for the same point of the history.
    store->write(plan.settings.name, rescaled, retained);
    previous_checkpoint_id = rescaled.id;
    spdlog::info(
        "pipeline '{}': checkpoint {} was taken with {} sink writer(s); resumed it with {}, the "
        "sink's state redistributed, and stored that as checkpoint {} in {}",
        plan.settings.name, chosen.id, before, writers.size(), rescaled.id, dir);
}

/// Asks every writer how far its committed output goes (see
/// SinkWriter::recoverable_checkpoint) and returns the checkpoint to restore: the latest
/// candidate, or an older one (restore() discards its successors once restored), or nullptr
/// for a fresh start when the first checkpoint the pipeline ever took is not covered. Throws
/// when the needed checkpoint is no longer stored: resuming from a newer one would lose
/// records.
const state::Checkpoint* PipelineRuntime::Impl::choose_recoverable(
    const std::vector<state::Checkpoint>& stored, const std::string& dir) {
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

}  // namespace cdcd
