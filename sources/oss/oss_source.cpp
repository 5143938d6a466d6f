#include "sources/oss/oss_source.h"

#include <spdlog/spdlog.h>

#include "sources/oss/polling_reader.h"

namespace cdcd::oss {

namespace {
std::string json_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\')
            o += '\\', o += c;
        else if (static_cast<unsigned char>(c) < 0x20)
            o += ' ';
        else
            o += c;
    }
    return o;
}
}  // namespace

OssSource::OssSource(boost::asio::io_context& io, OssSettings settings, metrics::Registry& registry,
                     BadRecordSink& bad_records)
    : ctx_(std::make_unique<SourceContext>(io, std::move(settings), registry)) {
    if (bad_records.policy() != BadRecordPolicy::Fail)
        ctx_->on_bad_event = [&bad_records](const BadEventPosition& position,
                                            const std::string& error, std::string_view raw) {
            bad_records.handle(BadRecord{"parse-error", position.str(), error, std::string(raw)});
        };
    mns_reader_ = std::make_unique<MnsReader>(*ctx_, mns_, held_);
}

void OssSource::restore(std::string_view state) {
    SourceState restored = decode_state(state);
    phase_ = restored.phase;
    snapshot_ = std::move(restored.snapshot);
    mns_ = restored.mns;
    polling_ = std::move(restored.polling);
    // The configuration may have changed since the checkpoint: refuse a phase it cannot resume
    // here, where the runtime names the checkpoint, rather than when the phase starts.
    check_phase_fits();
    spdlog::info(
        "oss-cdc: restored phase {} ({} objects snapshotted, {} objects tracked by polling)",
        to_string(phase_), snapshot_.emitted, polling_.objects());
}

void OssSource::check_phase_fits() const {
    const auto& s = ctx_->settings;
    auto missing = [](std::initializer_list<std::pair<const char*, bool>> options) {
        std::string out;
        for (const auto& [key, set] : options)
            if (!set) out += std::string(out.empty() ? "`" : " and `") + key + "`";
        return out;
    };
    const std::string configured = std::string("scan.incremental.mode ") +
                                   (s.mode == IncrementalMode::Polling ? "POLLING" : "MNS") +
                                   " with scan.startup.mode " + to_string(s.startup);
    if (phase_ == Phase::Snapshot) {
        const std::size_t prefixes = scan_prefixes(s).size();
        const std::string where = "the snapshot phase (at prefix " +
                                  std::to_string(std::uint64_t{snapshot_.prefix_index} + 1) + ", " +
                                  std::to_string(snapshot_.emitted) + " objects emitted)";
        std::string absent = missing(
            {{"oss-endpoint", ctx_->oss != nullptr}, {"oss-bucket", !s.oss_bucket.empty()}});
        if (!absent.empty())
            throw StateError("the checkpoint was taken during " + where +
                             ", which lists the bucket: resuming it needs " + absent +
                             ", which this configuration (" + configured + ") does not set. Set " +
                             (absent.find(" and ") == std::string::npos ? "it" : "them") +
                             " again to finish the snapshot, or start over with --reset-state");
        if (snapshot_.prefix_index > prefixes)
            throw StateError("the checkpoint was taken during " + where + ", but `path` lists " +
                             std::to_string(prefixes) +
                             " prefix(es) now. Restore `path` to finish the snapshot, or start "
                             "over with --reset-state");
    }
    if (phase_ == Phase::Incremental && s.mode == IncrementalMode::Polling && !ctx_->oss)
        throw StateError(
            "the checkpoint was taken during the incremental phase, which this configuration (" +
            configured +
            ") runs by listing the bucket: that needs `oss-endpoint`, which is not "
            "set. Set it, or start over with --reset-state");
    if (phase_ == Phase::Incremental && s.mode == IncrementalMode::Mns && !ctx_->mns)
        throw StateError(
            "the checkpoint was taken during the incremental phase, which this configuration (" +
            configured + ") runs by consuming MNS: that needs " +
            missing({{"mns.endpoint", !s.mns_endpoint.empty()},
                     {"mns.queue-name", !s.mns_queue.empty()}}) +
            ", which it does not set. Set them again to resume consuming the queue, or start "
            "over with --reset-state");
}

std::string OssSource::snapshot_state() {
    held_.seal();
    return encode_state(phase_, snapshot_, mns_, polling_);
}

boost::asio::awaitable<void> OssSource::notify_checkpoint_complete(std::uint64_t id) {
    (void)id;  // checkpoints complete in the order their states were taken: oldest group first
    co_await mns_reader_->acknowledge_oldest();
}

boost::asio::awaitable<void> OssSource::run(SourceOutput& output) {
    ctx_->output = &output;
    const auto& s = ctx_->settings;
    bool polling = s.mode == IncrementalMode::Polling;
    if (phase_ == Phase::Start) {
        switch (s.startup) {
            case StartupMode::Snapshot:
            case StartupMode::Initial:
                phase_ = Phase::Snapshot;
                break;
            case StartupMode::LatestOffset:
            case StartupMode::CommittedOffset:
                // The spec: COMMITTED_OFFSET with nothing committed (no checkpoint, or we
                // would not be here) is LATEST_OFFSET, not the queue's whole backlog.
                phase_ = Phase::Incremental;
                mns_.skip_before_ms = now_ms();
                break;
            case StartupMode::Timestamp:
                phase_ = Phase::Incremental;
                mns_.skip_before_ms = s.startup_timestamp_ms;
                break;
            default:
                phase_ = Phase::Incremental;
                break;
        }
        spdlog::info("oss-cdc: starting with scan.startup.mode {} ({} incremental mode)",
                     to_string(s.startup), polling ? "POLLING" : "MNS");
    }
    check_phase_fits();
    if (phase_ == Phase::Snapshot) {
        // INITIAL + POLLING: the snapshot is the polling baseline.
        PollingState* baseline = polling && s.startup == StartupMode::Initial ? &polling_ : nullptr;
        SnapshotReader reader(*ctx_, snapshot_, baseline);
        co_await reader.run();
        if (output.stopping()) co_return;
        if (baseline) polling_.baseline_done = true;
        phase_ = s.startup == StartupMode::Snapshot ? Phase::Done : Phase::Incremental;
        check_phase_fits();
    }
    if (phase_ == Phase::Done) co_return;
    if (polling) {
        PollingReader reader(*ctx_, polling_);
        co_await reader.run();
    } else {
        co_await mns_reader_->run();
    }
}

std::string OssSource::describe_state(std::string_view state) const {
    try {
        SourceState decoded = decode_state(state);
        const SnapshotProgress& snap = decoded.snapshot;
        const MnsState& mns = decoded.mns;
        const PollingState& polling = decoded.polling;
        return "{\"version\":" + std::to_string(decoded.version) + ",\"phase\":\"" +
               to_string(decoded.phase) +
               "\",\"snapshot\":{\"prefix_index\":" + std::to_string(snap.prefix_index) +
               ",\"start_after\":\"" + json_escape(snap.start_after) +
               "\",\"emitted\":" + std::to_string(snap.emitted) +
               "},\"mns\":{\"skip_before_ms\":" + std::to_string(mns.skip_before_ms) +
               "},\"polling\":{\"baseline_done\":" + (polling.baseline_done ? "true" : "false") +
               ",\"scans\":" + std::to_string(polling.scans) +
               ",\"objects\":" + std::to_string(polling.objects()) +
               ",\"state_bytes\":" + std::to_string(state.size()) + "}}";
    } catch (const StateError& e) {
        return std::string("{\"error\":\"") + json_escape(e.what()) + "\"}";
    }
}

}  // namespace cdcd::oss
