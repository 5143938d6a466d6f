#pragma once
// MNS incremental consumption: `scan.parallelism` receivers long-poll BatchReceiveMessage
// (mns.batch-size, mns.polling-wait-time), decode the OSS events and emit REPLACE for
// ObjectCreated/ObjectModified and DELETE for ObjectRemoved (INSERT for all when append-only).
// Messages are deleted only once a checkpoint covering them is complete: the receipt handles
// received since the last barrier form the group of the next checkpoint; held messages have
// their visibility extended (ChangeMessageVisibility) before it lapses. A message with an event
// that cannot be decoded is held only if SourceContext::on_bad_event lets it go (skip): under
// `fail` it is never held, so never deleted.
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "sources/oss/codec.h"
#include "sources/oss/source_context.h"

namespace cdcd::oss {

struct MnsState {
    /// Messages enqueued before this instant are acknowledged without being emitted
    /// (LATEST_OFFSET: the job's first start; TIMESTAMP: scan.startup.timestamp-millis).
    std::int64_t skip_before_ms = 0;

    void encode(ByteWriter& w) const { w.svarint(skip_before_ms); }
    static MnsState decode(ByteReader& r) {
        MnsState s;
        s.skip_before_ms = r.svarint();
        return s;
    }
};

/// Receipt handles of messages emitted but not yet deleted, grouped by checkpoint.
class HeldMessages {
  public:
    struct Held {
        std::string handle;
        std::int64_t next_visible_ms = 0;
    };
    /// A received message joins the current group (a redelivery refreshes its handle).
    void add(const std::string& message_id, const std::string& handle,
             std::int64_t next_visible_ms);
    /// snapshot_state(): the current group becomes the group of the checkpoint being taken.
    void seal();
    struct Taken {
        std::string id;
        Held held;
    };
    /// The oldest sealed group's messages (removed from the holdings); empty when none sealed.
    std::vector<Taken> take_oldest_sealed();
    /// Messages whose delete failed: held again in the current group, so that their visibility
    /// keeps being extended and the next completed checkpoint deletes them.
    void hold_again(const std::vector<Taken>& taken);
    /// Messages whose visibility lapses before `deadline_ms`.
    std::vector<std::string> expiring(std::int64_t deadline_ms) const;
    const Held* find(const std::string& id) const;
    void update(const std::string& id, const std::string& handle, std::int64_t next_visible_ms);
    std::size_t size() const { return held_.size(); }
    std::size_t sealed_groups() const { return sealed_.size(); }
    /// Groups sealed / released (by take_oldest_sealed) since the start: the checkpoint sealed
    /// as number n has completed once released() >= n.
    std::uint64_t sealed() const { return sealed_total_; }
    std::uint64_t released() const { return released_total_; }

  private:
    std::unordered_map<std::string, Held> held_;  // message id → latest handle
    std::vector<std::string> current_;
    std::deque<std::vector<std::string>> sealed_;
    std::uint64_t sealed_total_ = 0;
    std::uint64_t released_total_ = 0;
};

/// `waitseconds` of a receive for mns.polling-wait-time: whole seconds, a fraction rounded up.
int receive_wait_seconds(std::chrono::milliseconds wait);

/// The pause after an empty receive. One that returned within kQuickMs did not long-poll (wait
/// 0, or a server that ignores waitseconds): pause kFirstMs, doubling per consecutive such answer
/// up to kMaxMs, so an idle queue costs at most a request every kMaxMs. A long poll that waited
/// needs no pause.
class EmptyReceiveBackoff {
  public:
    static constexpr std::int64_t kQuickMs = 1'000;
    static constexpr std::int64_t kFirstMs = 250;
    static constexpr std::int64_t kMaxMs = 5'000;
    /// The pause (ms) after an empty answer that took `elapsed_ms`.
    std::int64_t after_empty(std::int64_t elapsed_ms);
    /// Messages arrived: the next empty answer pauses kFirstMs again.
    void reset() { next_ms_ = kFirstMs; }

  private:
    std::int64_t next_ms_ = kFirstMs;
};

class MnsReader {
  public:
    MnsReader(SourceContext& ctx, MnsState& state, HeldMessages& held);
    boost::asio::awaitable<void> run();
    /// Deletes the messages of the oldest sealed group (called on checkpoint completion).
    boost::asio::awaitable<void> acknowledge_oldest();

    /// The events of one message (appended to out): its valid events first, then each
    /// undecodable one goes to ctx.on_bad_event (which throws BadEventError under `fail`). False
    /// when it carried nothing to emit.
    bool events_of(const MnsMessage& m, EventBatch& out);

  private:
    boost::asio::awaitable<void> receiver(int index);
    /// Before failing on a bad event: waits (bounded) until the checkpoint sealed as number
    /// `seal` completes, so the valid events emitted before the failure reach the sink.
    boost::asio::awaitable<void> deliver_before_failing(std::uint64_t seal);
    boost::asio::awaitable<void> keep_visible();

    SourceContext& ctx_;
    MnsState& state_;
    HeldMessages& held_;
    int extend_seconds_ = 60;
    bool done_ = false;
};

}  // namespace cdcd::oss
