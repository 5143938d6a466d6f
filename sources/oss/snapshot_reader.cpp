#include "sources/oss/snapshot_reader.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <limits>

#include "metrics/progress.h"

namespace cdcd::oss {

void SnapshotProgress::encode(ByteWriter& w) const {
    w.varint(prefix_index);
    w.bytes(start_after);
    w.varint(emitted);
}

SnapshotProgress SnapshotProgress::decode(ByteReader& r) {
    SnapshotProgress p;
    std::uint64_t prefix_index = r.varint();
    if (prefix_index >
        std::numeric_limits<std::uint32_t>::max())  // would wrap to a small index when narrowed
        throw StateError("oss-cdc snapshot state: prefix index " + std::to_string(prefix_index) +
                         " out of range");
    p.prefix_index = static_cast<std::uint32_t>(prefix_index);
    p.start_after = r.bytes();
    p.emitted = r.varint();
    return p;
}

std::vector<std::string> scan_prefixes(const OssSettings& s) {
    if (s.paths.empty()) return {""};
    return s.paths;
}

SnapshotReader::SnapshotReader(SourceContext& ctx, SnapshotProgress& progress,
                               PollingState* polling)
    : ctx_(ctx), progress_(progress), polling_(polling) {}

boost::asio::awaitable<void> SnapshotReader::run() {
    const auto prefixes = scan_prefixes(ctx_.settings);
    const std::string& bucket = ctx_.settings.oss_bucket;
    if (polling_ && polling_->prefixes.size() != prefixes.size())
        polling_->prefixes.resize(prefixes.size());
    using clock = std::chrono::steady_clock;
    auto started = clock::now();
    // Logs at most every 10 s; the same figures are cdcd_progress_items_* metrics.
    metrics::ProgressReporter reporter(ctx_.metrics.registry(), "oss-cdc", "snapshot", 0,
                                       static_cast<std::int64_t>(progress_.emitted));
    if (progress_.prefix_index > 0 || !progress_.start_after.empty())
        spdlog::info(
            "oss-cdc snapshot of {}: resuming at prefix {}/{} after '{}' ({} objects already "
            "emitted)",
            bucket, progress_.prefix_index + 1, prefixes.size(), progress_.start_after,
            progress_.emitted);
    std::string token;  // continuation token within the current prefix (in memory only)
    while (progress_.prefix_index < prefixes.size() && !ctx_.stopping()) {
        const std::string& prefix = prefixes[progress_.prefix_index];
        ListPage page;
        bool failed = false;
        try {
            page = co_await ctx_.oss->list_objects_v2(bucket, prefix, progress_.start_after, token,
                                                      kPageSize);
        } catch (const OssError& e) {
            if (!e.transient()) throw;
            spdlog::warn("oss-cdc snapshot: {}; retrying in 5 s", e.what());
            failed = true;
        }
        if (failed) {
            co_await ctx_.sleep_ms(5'000);
            continue;
        }
        EventBatch batch;
        batch.reserve(page.objects.size() + 1);
        std::size_t emitted = 0;
        for (const auto& o : page.objects)
            if (ctx_.records.add(batch, OpType::Insert, bucket, o)) ++emitted;
        co_await ctx_.ready(batch, emitted);
        // Advance the state past this page, then hand it over.
        if (polling_) {
            auto& idx = polling_->prefixes[progress_.prefix_index];
            for (const auto& o : page.objects) idx.append(o.key, object_fingerprint(o));
        }
        if (!page.objects.empty()) progress_.start_after = page.objects.back().key;
        progress_.emitted += emitted;
        if (page.truncated) {
            token = page.next_continuation_token;
        } else {
            ++progress_.prefix_index;
            progress_.start_after.clear();
            token.clear();
        }
        if (!batch.empty()) co_await ctx_.emit(std::move(batch));
        reporter.advance(static_cast<std::int64_t>(emitted));
    }
    if (progress_.prefix_index >= prefixes.size()) {
        reporter.finish();
        double secs = std::chrono::duration<double>(clock::now() - started).count();
        spdlog::info("oss-cdc snapshot of {} complete: {} objects in {:.1f} s", bucket,
                     progress_.emitted, secs);
    }
}

}  // namespace cdcd::oss
