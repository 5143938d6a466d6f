#include "sources/oss/polling_reader.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "metrics/progress.h"
#include "sources/oss/snapshot_reader.h"

namespace cdcd::oss {

PrefixMerge::PrefixMerge(const KeyIndex& old, std::size_t max_changes, bool emit_changes,
                         bool emit_deletes)
    : old_(old), budget_(max_changes), emit_changes_(emit_changes), emit_deletes_(emit_deletes) {
    // Sized like the previous scan (plus slack) so a million keys do not grow by doubling.
    next_.reserve(old.size() + old.size() / 64 + 64, old.key_bytes() + old.key_bytes() / 64 + 4096);
}

void PrefixMerge::drop_old_before(std::string_view key) {
    drop_old(false, key);
}

void PrefixMerge::drop_old(bool all, std::string_view key) {
    // Keys of the old state below `key` (or all that remain) were not listed: the object is gone.
    // A key never emitted (kUnemittedFingerprint) has nothing downstream to delete.
    while (i_ < old_.size() && (all || old_.key(i_) < key)) {
        if (emit_changes_ && emit_deletes_ && old_.fingerprint(i_) != kUnemittedFingerprint) {
            // Tracked until its DELETE is emitted (or, deferred, reported by the next scan).
            next_.append(old_.key(i_), old_.fingerprint(i_));
            if (budget_ > 0) {
                --budget_;
                ScanChange c{ScanChange::Kind::Delete, {}};
                c.object.key = std::string(old_.key(i_));
                changes_.push_back(std::move(c));
            } else {
                ++deferred_;
            }
        }
        ++i_;
    }
}

void PrefixMerge::feed(const ObjectInfo& o) {
    drop_old_before(o.key);
    std::uint64_t fp = object_fingerprint(o);
    bool known = i_ < old_.size() && old_.key(i_) == o.key;
    if ((known && old_.fingerprint(i_) == fp) || !emit_changes_) {
        next_.append(o.key, fp);
    } else {
        // Pending until emitted: it stays different from the listing (found again if not).
        next_.append(o.key, known ? old_.fingerprint(i_) : kUnemittedFingerprint);
        if (budget_ > 0) {
            --budget_;
            changes_.push_back({ScanChange::Kind::Upsert, o});
        } else {
            ++deferred_;
        }
    }
    if (known) ++i_;
}

void apply_emitted(KeyIndex& index, const ScanChange* begin, const ScanChange* end) {
    for (const ScanChange* c = begin; c != end; ++c) {
        std::size_t i = index.find(c->object.key);
        if (i == KeyIndex::npos) continue;  // cannot happen: the merge recorded every change
        index.set_fingerprint(i, c->kind == ScanChange::Kind::Upsert ? object_fingerprint(c->object)
                                                                     : kDeletedFingerprint);
    }
}

void PrefixMerge::end_of_listing() {
    if (ended_) return;
    ended_ = true;
    drop_old(true, {});
}

KeyIndex PrefixMerge::finish() {
    end_of_listing();
    return std::move(next_);
}

PollingReader::PollingReader(SourceContext& ctx, PollingState& state) : ctx_(ctx), state_(state) {}

boost::asio::awaitable<bool> PollingReader::scan_once() {
    const auto prefixes = scan_prefixes(ctx_.settings);
    const std::string& bucket = ctx_.settings.oss_bucket;
    if (state_.prefixes.size() != prefixes.size()) state_.prefixes.resize(prefixes.size());
    const bool baseline = !state_.baseline_done;
    auto started = std::chrono::steady_clock::now();
    std::size_t listed = 0, emitted_total = 0, deferred_total = 0, batches = 0;
    const auto batch_size = static_cast<std::size_t>(ctx_.settings.polling_prefix_size);
    // A scan lists the whole bucket: objects listed so far, against the objects tracked after
    // the previous scan (unknown for the baseline). Logs at most every 10 s, and as metrics.
    std::int64_t tracked = 0;
    for (const auto& index : state_.prefixes) tracked += static_cast<std::int64_t>(index.size());
    metrics::ProgressReporter reporter(ctx_.metrics.registry(), "oss-cdc",
                                       baseline ? "baseline scan" : "scan", baseline ? 0 : tracked);
    for (std::size_t p = 0; p < prefixes.size() && !ctx_.stopping(); ++p) {
        PrefixMerge merge(state_.prefixes[p], std::max(kMaxCachedChanges, batch_size), !baseline,
                          ctx_.settings.polling_emit_deletes);
        std::string token;
        bool complete = false;
        while (!ctx_.stopping()) {
            ListPage page;
            bool failed = false;
            try {
                page = co_await ctx_.oss->list_objects_v2(bucket, prefixes[p], "", token,
                                                          SnapshotReader::kPageSize);
            } catch (const OssError& e) {
                if (!e.transient()) throw;
                spdlog::warn("oss-cdc polling: {}; retrying in 5 s", e.what());
                failed = true;
            }
            if (failed) {
                co_await ctx_.sleep_ms(5'000);
                continue;
            }
            listed += page.objects.size();
            reporter.advance(static_cast<std::int64_t>(page.objects.size()));
            for (const auto& o : page.objects) merge.feed(o);
            if (!page.truncated) {
                complete = true;
                break;
            }
            token = page.next_continuation_token;
        }
        if (!complete) co_return false;  // stopping: the state of this prefix stays as it was
        // The listing's keys, every change still pending: a checkpoint from here on re-finds
        // what is not emitted yet.
        state_.prefixes[p] = merge.finish();
        deferred_total += merge.deferred();
        const std::vector<ScanChange>& changes = merge.changes();
        OpType upsert = ctx_.settings.append_only ? OpType::Insert : OpType::Replace;
        OpType remove = ctx_.settings.append_only ? OpType::Insert : OpType::Delete;
        for (std::size_t from = 0; from < changes.size() && !ctx_.stopping(); from += batch_size) {
            const std::size_t to = std::min(changes.size(), from + batch_size);
            // Build the events before touching the state (the rate limit wait must come first).
            EventBatch batch;
            std::size_t n = 0;
            for (std::size_t i = from; i < to; ++i)
                if (ctx_.records.add(batch,
                                     changes[i].kind == ScanChange::Kind::Upsert ? upsert : remove,
                                     bucket, changes[i].object))
                    ++n;
            co_await ctx_.ready(batch, n);
            apply_emitted(state_.prefixes[p], changes.data() + from, changes.data() + to);
            emitted_total += n;
            ++batches;
            if (!batch.empty()) co_await ctx_.emit(std::move(batch));
        }
        state_.prefixes[p].compact();
    }
    if (ctx_.stopping()) co_return false;
    ++state_.scans;
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (baseline) {
        state_.baseline_done = true;
        spdlog::info("oss-cdc polling {}: baseline scan recorded {} objects in {:.2f} s", bucket,
                     listed, secs);
    } else {
        spdlog::info(
            "oss-cdc polling {}: scan {} listed {} objects in {:.2f} s, emitted {} changes in {} "
            "batch(es){}",
            bucket, state_.scans, listed, secs, emitted_total, batches,
            deferred_total ? ", " + std::to_string(deferred_total) +
                                 " deferred to the next scan, which starts at once"
                           : std::string());
    }
    co_return deferred_total > 0;
}

boost::asio::awaitable<void> PollingReader::run() {
    while (!ctx_.stopping()) {
        const bool more = co_await scan_once();
        if (ctx_.stopping()) break;
        if (!more) co_await ctx_.sleep_ms(ctx_.settings.polling_interval.count());
    }
}

}  // namespace cdcd::oss
