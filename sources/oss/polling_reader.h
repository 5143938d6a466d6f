#pragma once
// POLLING: every polling.interval, list every prefix and compare with the last scan's state
// (key → fingerprint of eTag, size, mtime). The new and changed objects one scan finds are
// emitted (REPLACE, or INSERT when append-only) from that scan, in batches of
// polling.prefix-size back to back — the spec's "batches from one cached scan" — with the state
// advanced batch by batch, so a checkpoint between two batches holds exactly what was emitted.
// At most kMaxCachedChanges changes per prefix are held from one scan; the rest stay "different
// from the state" and the next scan follows at once instead of after polling.interval. With
// polling.emit-deletes, a key a complete scan no longer finds is emitted as DELETE (in the same
// batches). The first scan of LATEST_OFFSET only records the baseline.
#include <boost/asio/awaitable.hpp>

#include "sources/oss/polling_state.h"
#include "sources/oss/source_context.h"

namespace cdcd::oss {

struct ScanChange {
    enum class Kind { Upsert, Delete } kind;
    ObjectInfo object;  // for deletes: key only (size/etag unknown)
};

/// Merges one prefix's listing (sorted, streamed in pages through `feed`) with `old`; the result
/// is the next state for the prefix and the changes to emit (at most `max_changes`; the others
/// are deferred). In the next state a change is still pending: a changed key keeps its old
/// fingerprint, a new key has kUnemittedFingerprint and a deleted key stays; apply_emitted()
/// records each as its batch is emitted. Pure, for tests and the reader.
class PrefixMerge {
  public:
    PrefixMerge(const KeyIndex& old, std::size_t max_changes, bool emit_changes, bool emit_deletes);
    /// Objects must arrive in increasing key order (as ListObjectsV2 returns them).
    void feed(const ObjectInfo& o);
    /// Call after the last page: keys not listed are gone (deletes are known from here on).
    void end_of_listing();
    /// end_of_listing() (if not called yet), then the new index for the prefix.
    KeyIndex finish();
    std::vector<ScanChange>& changes() { return changes_; }
    std::size_t deferred() const { return deferred_; }

  private:
    void drop_old_before(std::string_view key);
    void drop_old(bool all, std::string_view key);

    const KeyIndex& old_;
    std::size_t i_ = 0;
    std::size_t budget_;
    bool emit_changes_, emit_deletes_;
    KeyIndex next_;
    std::vector<ScanChange> changes_;
    std::size_t deferred_ = 0;
    bool ended_ = false;
};

/// Records in `index` (a PrefixMerge's next state) that `changes` were emitted.
void apply_emitted(KeyIndex& index, const ScanChange* begin, const ScanChange* end);

class PollingReader {
  public:
    /// Changes held from one scan of a prefix (≈ 150 bytes each plus the key); more wait for the
    /// next scan, which then starts at once.
    static constexpr std::size_t kMaxCachedChanges = 100'000;

    PollingReader(SourceContext& ctx, PollingState& state);
    /// Scans until stopping.
    boost::asio::awaitable<void> run();
    /// One complete scan of every prefix (public for the benchmark's timing via logs). True when
    /// changes were left for the next scan (more than kMaxCachedChanges in a prefix).
    boost::asio::awaitable<bool> scan_once();

  private:
    SourceContext& ctx_;
    PollingState& state_;
};

}  // namespace cdcd::oss
