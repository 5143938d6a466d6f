#pragma once
// The oss-cdc source: a snapshot phase (SNAPSHOT, INITIAL), then MNS or POLLING incremental
// discovery, with everything a restart needs in one state (source_state.h).
#include <memory>

#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/source.h"
#include "sources/oss/mns_reader.h"
#include "sources/oss/polling_state.h"
#include "sources/oss/snapshot_reader.h"
#include "sources/oss/source_context.h"
#include "sources/oss/source_state.h"

namespace cdcd::oss {

class OssSource final : public Source {
  public:
    /// An MNS event that cannot be decoded goes to `bad_records` (the pipeline's bad-record
    /// policy); under `fail` the source stops with its own message (see bad_event.h).
    OssSource(boost::asio::io_context& io, OssSettings settings,
              metrics::Registry& registry = metrics::Registry::detached(),
              BadRecordSink& bad_records = BadRecordHandlers::detached().source());

    void restore(std::string_view state) override;
    boost::asio::awaitable<void> run(SourceOutput& output) override;
    std::string snapshot_state() override;
    boost::asio::awaitable<void> notify_checkpoint_complete(std::uint64_t id) override;
    std::string describe_state(std::string_view state) const override;

    /// The downloader of FETCH_CONTENT, which the source prefetches with (fetch_content.h).
    void set_fetch_content(std::shared_ptr<FetchContent> downloader) {
        ctx_->fetch_content = std::move(downloader);
    }
    std::shared_ptr<FetchContent> fetch_content() const { return ctx_->fetch_content; }

    using Phase = SourcePhase;

  private:
    /// Throws StateError when phase_ (restored from a checkpoint) cannot run with the current
    /// settings: the snapshot phase without OSS access, the incremental phase without the
    /// clients of the configured mode, a snapshot position past the configured prefixes.
    void check_phase_fits() const;

    std::unique_ptr<SourceContext> ctx_;
    Phase phase_ = Phase::Start;
    SnapshotProgress snapshot_;
    PollingState polling_;
    MnsState mns_;
    HeldMessages held_;
    std::unique_ptr<MnsReader> mns_reader_;
};

}  // namespace cdcd::oss
