#include "sinks/kafka/transactions.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <random>
#include <set>
#include <stdexcept>

#include "kafka_client/client_log.h"
#include "kafka_client/kafka_properties.h"
#include "sinks/kafka/producer_config.h"

namespace cdcd::kafka {

namespace asio = boost::asio;
using asio::awaitable;

namespace {

constexpr int kTimeoutMs = 60'000;
constexpr int kFlushSliceMs = 1'000;
// How long a transactional call may take before the sink stops waiting for it: its own timeout
// (kTimeoutMs) and a margin. librdkafka's send_offsets_to_transaction can wait past its timeout,
// for ever once the group coordinator it had cached was dropped after a broker restart (its
// issues #5456 and #5511); that held both writers at the barrier, and so the whole pipeline,
// with nothing in the log.
constexpr std::chrono::milliseconds kCallLimit{kTimeoutMs + 10'000};

// What follows a failed transactional call, for its error message: librdkafka's own words
// (`Local: Timed out`) do not say whether anything was lost.
constexpr const char* kRestartResumes =
    "The sink stops and cdcd exits; when it is restarted the open transaction is aborted and the "
    "pipeline resumes from its last checkpoint, exactly once";

/// Runs a transactional call on `calls` within kCallLimit; one that fails, or has not returned
/// by then, fails the sink with an error that says what to expect (`what`: "writing the commit
/// marker of checkpoint 7").
template <typename F>
awaitable<void> run_transactional(BlockingCalls& calls, const std::string& what, F call) {
    try {
        co_await calls.run_within(kCallLimit, what, std::move(call));
    } catch (const CallOverdue& e) {
        throw std::runtime_error(
            std::string("kafka sink: ") + e.what() +
            ": librdkafka can wait for ever on a transaction after a broker restart (its issues "
            "#5456 and #5511). " +
            kRestartResumes);
    } catch (const std::runtime_error& e) {
        throw std::runtime_error(std::string(e.what()) + ". " + kRestartResumes);
    }
}

awaitable<void> sleep_ms(int ms) {
    asio::steady_timer timer(co_await asio::this_coro::executor, std::chrono::milliseconds(ms));
    co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
}

std::string random_token() {
    std::random_device device;
    std::uniform_int_distribution<std::uint64_t> dist;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(dist(device)));
    return text;
}

std::string take_error(rd_kafka_error_t* error) {
    std::string text = rd_kafka_error_string(error);
    rd_kafka_error_destroy(error);
    return text;
}

/// Commits `offset` (with `token` as metadata) for `group` on `topic` [0] inside the producer's
/// open transaction.
void send_marker(Producer& producer, const std::string& group, const std::string& topic,
                 std::uint64_t offset, const std::string& token) {
    rd_kafka_topic_partition_list_t* offsets = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_t* tp = rd_kafka_topic_partition_list_add(offsets, topic.c_str(), 0);
    tp->offset = static_cast<std::int64_t>(offset);
    tp->metadata = const_cast<char*>(token.data());  // librdkafka copies it
    tp->metadata_size = token.size();
    rd_kafka_consumer_group_metadata_t* group_metadata =
        rd_kafka_consumer_group_metadata_new(group.c_str());
    rd_kafka_error_t* error = rd_kafka_send_offsets_to_transaction(producer.handle(), offsets,
                                                                   group_metadata, kTimeoutMs);
    tp->metadata = nullptr;
    tp->metadata_size = 0;
    rd_kafka_consumer_group_metadata_destroy(group_metadata);
    rd_kafka_topic_partition_list_destroy(offsets);
    if (error)
        throw std::runtime_error("kafka sink: cannot write the commit marker of checkpoint " +
                                 std::to_string(offset) + " (group " + group + ", topic " + topic +
                                 "): " + take_error(error));
}

struct Committed {
    std::int64_t offset = -1;
    std::string metadata;
};

/// The committed offsets of `group` on partition 0 of `topics`, as a read_committed consumer sees
/// them (librdkafka asks for stable offsets and retries while a transaction is pending on them).
std::map<std::string, Committed> read_markers(const KafkaSinkSettings& settings,
                                              const std::string& group,
                                              const std::set<std::string>& topics) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    auto set = [&](const std::string& k, const std::string& v) {
        set_or_throw(conf, k, v, "kafka sink: marker reader");
    };
    for (const auto& [k, v] : settings.client.librdkafka)
        if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
            spdlog::debug("kafka sink: marker reader ignores {}: {}", k, err);
    set("group.id", group);
    set("enable.auto.commit", "false");
    set("enable.auto.offset.store", "false");
    set("isolation.level", "read_committed");
    log_through_spdlog(conf);
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        throw std::runtime_error(std::string("kafka sink: marker reader: ") + err);
    }
    rd_kafka_topic_partition_list_t* list =
        rd_kafka_topic_partition_list_new(static_cast<int>(topics.size()));
    for (const auto& topic : topics) rd_kafka_topic_partition_list_add(list, topic.c_str(), 0);
    rd_kafka_resp_err_t result = rd_kafka_committed(rk, list, kTimeoutMs);
    std::map<std::string, Committed> out;
    std::string failure;
    if (result) {
        failure = rd_kafka_err2str(result);
    } else {
        for (int i = 0; i < list->cnt; ++i) {
            const rd_kafka_topic_partition_t& tp = list->elems[i];
            if (tp.err) {
                failure = std::string(tp.topic) + ": " + rd_kafka_err2str(tp.err);
                break;
            }
            Committed c;
            c.offset = tp.offset;
            if (tp.metadata)
                c.metadata.assign(static_cast<const char*>(tp.metadata), tp.metadata_size);
            out[tp.topic] = std::move(c);
        }
    }
    rd_kafka_topic_partition_list_destroy(list);
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    if (!failure.empty())
        throw std::runtime_error("kafka sink: cannot read the commit markers of group " + group +
                                 ": " + failure);
    return out;
}

}  // namespace

// ---- transactions -----------------------------------------------------------------------------

Transactions::Transactions(const KafkaSinkSettings& settings,
                           const ProducerSettings& producer_settings, std::size_t writers)
    : settings_(settings),
      writers_(writers),
      group_(transactional_names(settings).group),
      token_(random_token()),
      slots_(kSlots, Slot::Free),
      marker_topic_(kSlots) {
    ProducerSettings ps = producer_settings;
    for (std::size_t slot = 0; slot < kSlots; ++slot) {
        ps.transactional_id = transactional_names(settings).id_base + "-0-" + std::to_string(slot);
        producers_.push_back(std::make_unique<Producer>(ps));
        // Fences a previous incarnation with this id and completes or aborts its transaction.
        // Runs before the event loop starts (the sink's writers are built first).
        producers_.back()->init_transactions(kTimeoutMs);
    }
}

Transactions::~Transactions() = default;

std::vector<Producer*> Transactions::producers() const {
    std::vector<Producer*> out;
    for (const auto& p : producers_) out.push_back(p.get());
    return out;
}

awaitable<std::size_t> Transactions::slot_for(std::uint64_t epoch) {
    while (true) {
        if (auto it = epoch_slot_.find(epoch); it != epoch_slot_.end()) co_return it->second;
        for (std::size_t slot = 0; slot < slots_.size(); ++slot) {
            if (slots_[slot] != Slot::Free) continue;
            slots_[slot] = Slot::Reserved;
            epoch_slot_[epoch] = slot;
            co_return slot;
        }
        co_await sleep_ms(1);  // a commit frees one
    }
}

void Transactions::begin_if_needed(std::size_t slot, rd_kafka_topic_t* topic) {
    if (slots_[slot] != Slot::Reserved) return;
    producers_[slot]->begin_transaction();
    slots_[slot] = Slot::Open;
    marker_topic_[slot] = rd_kafka_topic_name(topic);
}

awaitable<void> Transactions::flush(Producer& producer) {
    // Delivery reports are served by the helper thread while it waits; the pipeline fails on the
    // first delivery error, and waits as long as librdkafka retries (message.timeout.ms) unless
    // nothing at all is acknowledged for the stall limit (producer_config.h says why).
    auto check = [&] {
        if (auto error = producer.delivery_error())
            throw std::runtime_error("kafka sink: delivery failed: " + *error);
    };
    producer.start_waiting();
    while (producer.in_flight() > 0) {
        check();
        Producer* p = &producer;
        co_await blocking_calls_.run([p] { rd_kafka_flush(p->handle(), kFlushSliceMs); });
        check_stalled(producer);
    }
    producer.poll();
    check();
}

void Transactions::check_stalled(Producer& producer) const {
    const auto stall_limit = transaction_stall_limit(settings_.client);
    if (producer.unacknowledged_for() < stall_limit) return;
    throw std::runtime_error(
        "kafka sink: the transaction's producer has had no record acknowledged for " +
        std::to_string(std::chrono::duration_cast<std::chrono::seconds>(stall_limit).count()) +
        " s with " + std::to_string(producer.in_flight()) +
        " still queued: librdkafka does not recover it (a broker fault such as its controller "
        "fencing it can leave it so). " +
        kRestartResumes);
}

awaitable<void> Transactions::arrive(std::uint64_t epoch, std::uint64_t checkpoint) {
    if (++arrivals_[epoch] < writers_) {
        // The other writers still write records before this barrier into the transaction.
        while (epochs_prepared_ <= epoch) co_await sleep_ms(1);
        co_return;
    }
    arrivals_.erase(epoch);
    if (auto it = epoch_slot_.find(epoch); it != epoch_slot_.end()) {
        std::size_t slot = it->second;
        epoch_slot_.erase(it);
        if (slots_[slot] == Slot::Open) {
            Producer* p = producers_[slot].get();
            co_await flush(*p);
            std::string topic = marker_topic_[slot];
            // By value: a call that overruns its limit outlives this coroutine.
            // Named, not temporaries (GCC 12 mis-compiles those inside a co_await expression);
            // captured by value, as a call that overruns its limit outlives this coroutine.
            const std::string what =
                "writing the commit marker of checkpoint " + std::to_string(checkpoint);
            auto call = [p, group = group_, topic, checkpoint, token = token_] {
                send_marker(*p, group, topic, checkpoint, token);
            };
            co_await run_transactional(blocking_calls_, what, std::move(call));
            slots_[slot] = Slot::Prepared;
            Prepared prepared;
            prepared.slot = slot;
            prepared.topic = std::move(topic);
            prepared_[checkpoint] = std::move(prepared);
        } else {
            slots_[slot] = Slot::Free;  // nothing was written in this epoch
        }
    }
    epochs_prepared_ = epoch + 1;
}

awaitable<void> Transactions::commit_through(std::uint64_t checkpoint) {
    // One committer at a time, so transactions commit strictly in checkpoint order: after a
    // crash, the committed ones are a prefix of the pending ones.
    while (committing_) co_await sleep_ms(1);
    committing_ = true;
    try {
        while (!prepared_.empty() && prepared_.begin()->first <= checkpoint) {
            std::size_t slot = prepared_.begin()->second.slot;
            Producer* p = producers_[slot].get();
            const std::string what = "committing the transaction of checkpoint " +
                                     std::to_string(prepared_.begin()->first);
            auto call = [p] { p->commit_transaction(kTimeoutMs); };
            co_await run_transactional(blocking_calls_, what, std::move(call));
            // Only now: a checkpoint taken meanwhile still lists it as pending.
            prepared_.erase(prepared_.begin());
            slots_[slot] = Slot::Free;
        }
    } catch (...) {
        committing_ = false;
        throw;
    }
    committing_ = false;
}

awaitable<void> Transactions::close() {
    if (++closed_ < writers_) co_return;
    // Records after the last checkpoint have no checkpoint to commit with.
    for (std::size_t slot = 0; slot < slots_.size(); ++slot) {
        if (slots_[slot] == Slot::Reserved) slots_[slot] = Slot::Free;
        if (slots_[slot] != Slot::Open) continue;
        Producer* p = producers_[slot].get();
        const std::string what = "aborting the transaction no checkpoint covers";
        auto call = [p] { p->abort_transaction(kTimeoutMs); };
        co_await run_transactional(blocking_calls_, what, std::move(call));
        slots_[slot] = Slot::Free;
    }
}

TransactionsState Transactions::state() const {
    TransactionsState s;
    s.group = group_;
    s.token = token_;
    s.ids = transactional_names(settings_).id_base;
    for (const auto& [checkpoint, prepared] : prepared_) {
        TransactionsState::Pending p;
        p.checkpoint = checkpoint;
        p.topic = prepared.topic;
        s.pending.push_back(std::move(p));
    }
    return s;
}

void Transactions::restore(const TransactionsState& state) {
    if (!state.token.empty()) token_ = state.token;
}

std::uint64_t Transactions::recoverable(const TransactionsState& state, std::uint64_t id) const {
    if (state.pending.empty()) return id;
    if (recoverable_answer_ && recoverable_answer_->id == id && recoverable_answer_->state == state)
        return recoverable_answer_->answer;
    const std::uint64_t answer = recoverable_from_markers(state, id);
    recoverable_answer_ = RecoverableAnswer{state, id, answer};
    return answer;
}

std::uint64_t Transactions::recoverable_from_markers(const TransactionsState& state,
                                                     std::uint64_t id) const {
    std::set<std::string> topics;
    for (const auto& p : state.pending) topics.insert(p.topic);
    auto markers = read_markers(settings_, state.group, topics);
    auto pending = state.pending;
    std::sort(pending.begin(), pending.end(),
              [](const auto& a, const auto& b) { return a.checkpoint < b.checkpoint; });
    for (const auto& p : pending) {
        auto it = markers.find(p.topic);
        bool committed = it != markers.end() && it->second.metadata == state.token &&
                         it->second.offset >= static_cast<std::int64_t>(p.checkpoint);
        if (committed) continue;
        spdlog::warn(
            "kafka sink: the transaction of checkpoint {} was not committed before cdcd stopped "
            "(marker group {}, topic {}: offset {}); it was aborted, so the pipeline resumes from "
            "the checkpoint before it",
            p.checkpoint, state.group, p.topic, it == markers.end() ? -1 : it->second.offset);
        return p.checkpoint - 1;
    }
    spdlog::info("kafka sink: the {} transaction(s) pending at checkpoint {} were committed",
                 state.pending.size(), id);
    return id;
}

}  // namespace cdcd::kafka
