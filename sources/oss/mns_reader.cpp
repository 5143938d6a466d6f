#include "sources/oss/mns_reader.h"

#include <spdlog/spdlog.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>

namespace cdcd::oss {

namespace asio = boost::asio;

void HeldMessages::add(const std::string& id, const std::string& handle,
                       std::int64_t next_visible_ms) {
    auto [it, inserted] = held_.try_emplace(id, Held{handle, next_visible_ms});
    if (!inserted) {
        it->second = Held{handle, next_visible_ms};
        return;  // already in a group: that group's checkpoint covers its first emission
    }
    current_.push_back(id);
}

void HeldMessages::seal() {
    sealed_.push_back(std::move(current_));
    current_.clear();
    ++sealed_total_;
}

std::vector<HeldMessages::Taken> HeldMessages::take_oldest_sealed() {
    std::vector<Taken> taken;
    if (sealed_.empty()) return taken;
    for (const auto& id : sealed_.front()) {
        auto it = held_.find(id);
        if (it == held_.end()) continue;
        taken.push_back(Taken{id, std::move(it->second)});
        held_.erase(it);
    }
    sealed_.pop_front();
    ++released_total_;
    return taken;
}

void HeldMessages::hold_again(const std::vector<Taken>& taken) {
    for (const auto& t : taken) add(t.id, t.held.handle, t.held.next_visible_ms);
}

std::vector<std::string> HeldMessages::expiring(std::int64_t deadline_ms) const {
    std::vector<std::string> ids;
    for (const auto& [id, h] : held_)
        if (h.next_visible_ms > 0 && h.next_visible_ms < deadline_ms) ids.push_back(id);
    return ids;
}

const HeldMessages::Held* HeldMessages::find(const std::string& id) const {
    auto it = held_.find(id);
    return it == held_.end() ? nullptr : &it->second;
}

void HeldMessages::update(const std::string& id, const std::string& handle,
                          std::int64_t next_visible_ms) {
    auto it = held_.find(id);
    if (it != held_.end()) it->second = Held{handle, next_visible_ms};
}

MnsReader::MnsReader(SourceContext& ctx, MnsState& state, HeldMessages& held)
    : ctx_(ctx), state_(state), held_(held) {
    // Held messages stay invisible for two checkpoint intervals + 10 s (at least 30 s) per
    // extension.
    extend_seconds_ = static_cast<int>(
        std::clamp<std::int64_t>(ctx.settings.checkpoint_interval_ms * 2 / 1000 + 10, 30, 43'200));
}

bool MnsReader::events_of(const MnsMessage& m, EventBatch& out) {
    if (state_.skip_before_ms > 0 && m.enqueue_time_ms > 0 &&
        m.enqueue_time_ms < state_.skip_before_ms)
        return false;
    BadEventPosition position{ctx_.settings.mns_queue, m.message_id, std::nullopt};
    std::vector<DecodedEntry> entries;
    try {
        entries = decode_message_entries(m.body);
    } catch (const EventDecodeError& e) {
        ctx_.on_bad_event(position, e.what(), m.body);
        return false;
    }
    bool any = false;
    for (const auto& entry : entries) {
        if (!entry.event) continue;
        const OssEvent& e = *entry.event;
        EventAction action = action_of(e.event_name);
        if (action == EventAction::Ignore) continue;
        ObjectInfo o;
        o.key = e.key;
        o.etag = e.etag;
        o.size = e.size.value_or(0);
        o.mtime_ms = e.event_time_ms.value_or(m.enqueue_time_ms);
        OpType op = ctx_.settings.append_only
                        ? OpType::Insert
                        : (action == EventAction::Delete ? OpType::Delete : OpType::Replace);
        if (ctx_.records.add(out, op, e.bucket_name, o, &e, e.region)) any = true;
    }
    // The valid events are in `out` before any decision: under `fail` they are still emitted.
    for (const auto& entry : entries) {
        if (entry.event) continue;
        position.event_index = entry.index;
        ctx_.on_bad_event(position, entry.error, entry.raw);
    }
    return any;
}

int receive_wait_seconds(std::chrono::milliseconds wait) {
    // MNS waits whole seconds; a long poll answers as soon as a message is there, so rounding a
    // fraction up costs no latency (and 500 ms must not become 0, a short poll).
    return static_cast<int>((wait.count() + 999) / 1000);
}

std::int64_t EmptyReceiveBackoff::after_empty(std::int64_t elapsed_ms) {
    if (elapsed_ms >= kQuickMs) {
        next_ms_ = kFirstMs;  // a real long poll: it already waited
        return 0;
    }
    std::int64_t pause = next_ms_;
    next_ms_ = std::min(next_ms_ * 2, kMaxMs);
    return pause;
}

asio::awaitable<void> MnsReader::receiver(int index) {
    const int wait = receive_wait_seconds(ctx_.settings.mns_wait);
    EmptyReceiveBackoff backoff;
    while (!ctx_.stopping() && !done_) {
        std::vector<MnsMessage> messages;
        bool failed = false;
        const std::int64_t asked = now_ms();
        try {
            messages = co_await ctx_.mns->receive(ctx_.settings.mns_batch_size, wait);
        } catch (const MnsError& e) {
            if (!e.transient()) throw;
            spdlog::warn("oss-cdc receiver {}: {}; retrying in 2 s", index, e.what());
            failed = true;
        }
        if (failed) {
            co_await ctx_.sleep_ms(2'000);
            continue;
        }
        if (messages.empty()) {
            // MNS bills every request: an empty answer that came back at once (wait 0, or a
            // server that does not hold the poll) must not be asked again at once.
            co_await ctx_.sleep_ms(backoff.after_empty(now_ms() - asked));
            continue;
        }
        backoff.reset();
        EventBatch batch;
        std::size_t records = 0;
        std::size_t decided = 0;  // leading messages whose every event is emitted or dropped
        std::exception_ptr bad_event;
        for (const auto& m : messages) {
            std::size_t before = batch.size();
            try {
                events_of(m, batch);
            } catch (...) {  // on_bad_event decided to stop (BadEventError, or a policy's own)
                bad_event = std::current_exception();
            }
            for (std::size_t i = before; i < batch.size(); ++i)
                if (std::holds_alternative<DataChangeEvent>(batch[i])) ++records;
            if (bad_event) break;
            ++decided;
        }
        co_await ctx_.ready(batch, records);
        // State first: these messages now belong to the next checkpoint. The message of a bad
        // event under `fail` (and those after it) is not held: it is never deleted.
        for (std::size_t i = 0; i < decided; ++i)
            held_.add(messages[i].message_id, messages[i].receipt_handle,
                      messages[i].next_visible_time_ms);
        const std::uint64_t covering_seal = held_.sealed() + 1;
        if (!batch.empty()) co_await ctx_.emit(std::move(batch));
        if (bad_event) {
            co_await deliver_before_failing(covering_seal);
            std::rethrow_exception(bad_event);
        }
    }
}

asio::awaitable<void> MnsReader::deliver_before_failing(std::uint64_t seal) {
    // Failing at once would drop the valid events still on their way to the sink (the runtime
    // stops the event loop); they would be read again after a restart, but an operator looking
    // at the output should see everything up to the bad event.
    spdlog::info(
        "oss-cdc: stopping on an undecodable event; waiting for the checkpoint that covers the "
        "events emitted before it");
    const std::int64_t deadline =
        now_ms() + std::max<std::int64_t>(3 * ctx_.settings.checkpoint_interval_ms, 10'000);
    while (held_.released() < seal && !ctx_.stopping() && now_ms() < deadline)
        co_await ctx_.sleep_ms(20);
}

asio::awaitable<void> MnsReader::keep_visible() {
    while (!ctx_.stopping() && !done_) {
        co_await ctx_.sleep_ms(1'000);
        // Extend the messages whose visibility lapses within the next 15 s (or a third of the
        // extension, whichever is shorter), so a long checkpoint does not redeliver them.
        std::int64_t margin = std::min<std::int64_t>(15'000, extend_seconds_ * 1000 / 3);
        for (const auto& id : held_.expiring(now_ms() + margin)) {
            const auto* h = held_.find(id);
            if (!h) continue;
            std::string handle = h->handle;
            try {
                MnsMessage m = co_await ctx_.mns->change_visibility(handle, extend_seconds_);
                const auto* now = held_.find(id);
                if (now && now->handle == handle) {
                    held_.update(id, m.receipt_handle, m.next_visible_time_ms);
                } else if (!now && ctx_.mns_delete) {
                    // Its checkpoint completed while the extension was in flight: that delete
                    // used the handle MNS has just replaced, so delete with the new one.
                    std::vector<std::string> latest{m.receipt_handle};
                    co_await ctx_.mns_delete->remove(latest, false);
                }
            } catch (const MnsError& e) {
                // Gone or redelivered: the delete will fail and the message (emitted again) is
                // acknowledged through its new handle.
                spdlog::warn("oss-cdc: extending the visibility of message {} failed: {}", id,
                             e.what());
                const auto* now = held_.find(id);
                if (now && now->handle == handle) held_.update(id, handle, 0);  // stop trying
            }
        }
    }
}

asio::awaitable<void> MnsReader::run() {
    auto executor = co_await asio::this_coro::executor;
    int n = std::max(1, ctx_.settings.parallelism);
    auto remaining = std::make_shared<int>(n + 1);
    auto error = std::make_shared<std::exception_ptr>();
    asio::steady_timer all_done(executor, asio::steady_timer::time_point::max());
    auto finished = [remaining, error, &all_done, this](const std::exception_ptr& e) {
        if (e && !*error) {
            *error = e;
            done_ = true;
        }
        if (--*remaining == 0) all_done.cancel();
    };
    for (int i = 0; i < n; ++i) asio::co_spawn(executor, receiver(i), finished);
    asio::co_spawn(executor, keep_visible(), finished);
    spdlog::info("oss-cdc: consuming MNS queue {} with {} receiver(s), batch size {}, wait {} s",
                 ctx_.settings.mns_queue, n, ctx_.settings.mns_batch_size,
                 receive_wait_seconds(ctx_.settings.mns_wait));
    while (*remaining > 0) {
        boost::system::error_code ec;
        co_await all_done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    if (*error) std::rethrow_exception(*error);
}

asio::awaitable<void> MnsReader::acknowledge_oldest() {
    std::vector<HeldMessages::Taken> taken = held_.take_oldest_sealed();
    if (taken.empty() || !ctx_.mns_delete) co_return;
    std::vector<std::string> handles;
    handles.reserve(taken.size());
    for (const auto& t : taken) handles.push_back(t.held.handle);
    try {
        auto failures = co_await ctx_.mns_delete->remove(handles, ctx_.settings.mns_batch_delete);
        for (const auto& f : failures)
            spdlog::warn(
                "oss-cdc: MNS refused to delete a message ({}); it will be delivered again",
                f.code);
        spdlog::debug("oss-cdc: deleted {} MNS messages", handles.size() - failures.size());
    } catch (const MnsError& e) {
        // MNS unreachable for longer than the retries (a restart, a network cut): held again,
        // kept invisible, and deleted after the next checkpoint instead of being redelivered
        // (and emitted again) once their visibility lapses.
        spdlog::warn(
            "oss-cdc: deleting {} MNS messages failed after {} retries: {}; trying again after "
            "the next checkpoint",
            handles.size(), ctx_.settings.mns_delete_max_retries, e.what());
        held_.hold_again(taken);
    }
}

}  // namespace cdcd::oss
