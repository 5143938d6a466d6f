// The writer's coroutines share one State on the sink's single-threaded event loop: write()
// adds to the Batcher and waits when too many closed batches queue up; kMaxInFlight senders each
// take a ready batch, send it and complete it, so up to kMaxInFlight requests overlap and may be
// acknowledged out of order; the ticker seals batches older than the flush interval; flush()
// seals everything and waits until the Batcher is empty. Writer 0 also runs the sink's idle
// connection evictor (`connection.idle-evict`): the writers' lifetime is what bounds a timer
// that must not keep the event loop running after the pipeline ends.
#include "sinks/vikingdb/writer.h"

#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pipeline/schema/schema_change_apply.h"

namespace cdcd::vikingdb {

namespace asio = boost::asio;

namespace {

/// Wakes every coroutine waiting on it; waiters re-check their condition (spurious wakes are
/// harmless). The timer's expiry is only reset when nobody waits, so two waiters never cancel
/// each other back and forth.
class Signal {
  public:
    explicit Signal(const asio::any_io_executor& ex) : timer_(ex) {}
    asio::awaitable<void> wait() {
        if (waiters_++ == 0) timer_.expires_at(asio::steady_timer::time_point::max());
        co_await timer_.async_wait(asio::as_tuple(asio::use_awaitable));
        --waiters_;
    }
    void notify() { timer_.cancel(); }

  private:
    asio::steady_timer timer_;
    int waiters_ = 0;
};

/// Requests in flight per writer. With one, the next batch waits for the whole round trip (both
/// processes waking up, HTTP, the server's work); with a few, the server finds the next request
/// waiting when it finishes one. Four: pipeline.parallelism 4 (16 in flight) was no faster in
/// bench/vikingdb/run.py. Batches sharing a key still go one after another (Batcher), so only
/// batches with disjoint keys overlap.
constexpr std::size_t kMaxInFlight = 4;

/// Closed batches queued beyond those in flight before write() waits (back-pressure): a writer
/// holds at most kMaxInFlight + kMaxReadyBatches + 1 closed batches and one open batch per
/// collection.
constexpr std::size_t kMaxReadyBatches = 4;

}  // namespace

struct VikingdbWriter::State {
    State(const asio::any_io_executor& ex, std::shared_ptr<DataPlaneClient> d, BadRecordSink& bad)
        : executor(ex),
          data(std::move(d)),
          bad_records(bad),
          batcher(kMaxInFlight),
          work(ex),
          progress(ex),
          tick(ex),
          evict(ex) {}
    asio::any_io_executor executor;
    std::shared_ptr<DataPlaneClient> data;
    BadRecordSink& bad_records;
    Batcher batcher;
    std::unordered_map<std::string, WriteTarget> targets;  // by collection name
    Signal work, progress;
    asio::steady_timer tick;
    asio::steady_timer evict;
    std::exception_ptr error;
    bool stopping = false;
    int running = 0;  // sender and timer coroutines alive

    void rethrow() const {
        if (error) std::rethrow_exception(error);
    }
};

namespace {

/// A record VikingDB refused for its data, for the bad-record policy.
BadRecord refused(const Batch& b, std::size_t i, const ApiError& e) {
    std::string answer = "HTTP " + std::to_string(e.status());
    if (!e.code().empty()) answer += " " + e.code();
    if (!e.server_message().empty()) answer += ": " + e.server_message();
    bool upsert = b.kind == OpKind::Upsert;
    return BadRecord{"rejected",
                     "collection '" + b.collection + "' " + (upsert ? "upsert" : "delete") +
                         " of primary key " + b.keys[i],
                     std::move(answer), upsert ? b.payloads[i] : b.keys[i]};
}

/// One of kMaxInFlight senders: sends whatever batch the batcher hands out, one at a time.
asio::awaitable<void> sender(std::shared_ptr<VikingdbWriter::State> s) {
    while (!s->stopping && !s->error) {
        Batch* b = s->batcher.take_ready();
        if (b == nullptr) {
            co_await s->work.wait();
            continue;
        }
        try {
            WriteTarget target = s->targets.at(b->collection);
            // Under policy fail the client's own error (naming the record) fails the writer.
            OnRejected rejected;
            if (s->bad_records.policy() != BadRecordPolicy::Fail)
                rejected = [&s = *s, b](std::size_t i, const ApiError& e) {
                    s.bad_records.handle(refused(*b, i, e));
                };
            co_await s->data->send(std::move(target), *b, std::move(rejected));
            s->batcher.complete(*b);
        } catch (...) {
            if (!s->error) s->error = std::current_exception();  // the first error fails the writer
        }
        // The acknowledgement may have released batches that waited for it: wake idle senders.
        s->work.notify();
        s->progress.notify();
    }
    --s->running;
    s->progress.notify();
}

asio::awaitable<void> ticker(std::shared_ptr<VikingdbWriter::State> s,
                             std::chrono::milliseconds interval) {
    while (!s->stopping && !s->error) {
        s->tick.expires_after(interval);
        co_await s->tick.async_wait(asio::as_tuple(asio::use_awaitable));
        if (s->stopping) break;
        // Every open batch is at most one interval old here: send it.
        s->batcher.seal_opened_before(std::chrono::steady_clock::now());
        if (s->batcher.has_ready()) s->work.notify();
    }
    --s->running;
}

/// Every `interval`, closes the pooled connections idle that long (and those past
/// `connection.time-to-live`), as Apache HttpClient's IdleConnectionEvictor does.
asio::awaitable<void> evictor(std::shared_ptr<VikingdbWriter::State> s,
                              std::chrono::milliseconds interval) {
    while (!s->stopping) {
        s->evict.expires_after(interval);
        co_await s->evict.async_wait(asio::as_tuple(asio::use_awaitable));
        if (s->stopping) break;
        s->data->close_idle(interval);
    }
}

}  // namespace

VikingdbWriter::VikingdbWriter(const VikingdbSettings& settings,
                               std::shared_ptr<CollectionCatalog> catalog,
                               std::shared_ptr<DataPlaneClient> data,
                               const asio::any_io_executor& executor, int index, int parallelism,
                               BadRecordSink& bad_records)
    : settings_(settings),
      catalog_(std::move(catalog)),
      index_(index),
      parallelism_(parallelism),
      state_(std::make_shared<State>(executor, std::move(data), bad_records)) {}

VikingdbWriter::~VikingdbWriter() {
    state_->stopping = true;
    state_->work.notify();
    state_->tick.cancel();
    state_->evict.cancel();
}

void VikingdbWriter::start() {
    if (started_) return;
    started_ = true;
    for (std::size_t i = 0; i < kMaxInFlight; ++i) {
        ++state_->running;
        asio::co_spawn(state_->executor, sender(state_), asio::detached);
    }
    if (settings_.flush_interval.count() > 0) {
        ++state_->running;
        asio::co_spawn(state_->executor, ticker(state_, settings_.flush_interval), asio::detached);
    }
    if (index_ == 0 && settings_.idle_evict.count() > 0)
        asio::co_spawn(state_->executor, evictor(state_, settings_.idle_evict), asio::detached);
}

void VikingdbWriter::restore_schemas(const std::vector<std::pair<TableId, Schema>>& schemas) {
    for (const auto& [table, schema] : schemas) schemas_[table] = schema;
}

asio::awaitable<std::shared_ptr<const CollectionBinding>> VikingdbWriter::binding_for(
    const TableId& table) {
    auto it = bindings_.find(table);
    if (it != bindings_.end()) co_return it->second;
    auto binding = catalog_->find(table);
    if (!binding) {
        auto schema = schemas_.find(table);
        if (schema == schemas_.end())
            throw std::runtime_error("VikingDB sink: data for table " + table.str() +
                                     " before its CREATE TABLE");
        // Resumed from a checkpoint: the CreateTableEvent is not sent again.
        binding = co_await catalog_->open(table, schema->second, settings_.auto_create);
    }
    bindings_[table] = binding;
    state_->targets[binding->target.collection] = binding->target;
    co_return binding;
}

void VikingdbWriter::add(const CollectionBinding& b, OpKind kind, std::string key,
                         std::string payload) {
    state_->batcher.add(b.target.collection, b.batch_limit, kind, std::move(key),
                        std::move(payload));
}

asio::awaitable<void> VikingdbWriter::handle(const DataChangeEvent& e) {
    auto binding = co_await binding_for(e.table);
    const RecordEncoder& enc = *binding->encoder;
    switch (e.op) {
        case OpType::Insert:
        case OpType::Replace:
        case OpType::Update: {
            if (!e.after)
                throw std::runtime_error("VikingDB sink: " + e.table.str() +
                                         ": change without an after image");
            std::string key = enc.key_json(*e.after);
            if (e.op == OpType::Update && e.before && !settings_.ignore_update_before) {
                std::string old_key = enc.key_json(*e.before);
                if (old_key != key) {
                    if (parallelism_ > 1)
                        throw std::runtime_error(
                            "VikingDB sink: table " + e.table.str() +
                            ": an UPDATE changes the primary key from " + old_key + " to " + key +
                            ", which needs sink parallelism 1 (pipeline.parallelism is " +
                            std::to_string(parallelism_) +
                            "); set pipeline.parallelism: 1 or sink.ignore-update-before");
                    add(*binding, OpKind::Delete, old_key, {});
                }
            }
            std::string record;
            enc.encode(*e.after, key, record);
            add(*binding, OpKind::Upsert, std::move(key), std::move(record));
            break;
        }
        case OpType::Delete: {
            if (settings_.ignore_delete) break;
            if (!e.before)
                throw std::runtime_error("VikingDB sink: " + e.table.str() +
                                         ": DELETE without a before image");
            add(*binding, OpKind::Delete, enc.key_json(*e.before), {});
            break;
        }
    }
}

asio::awaitable<void> VikingdbWriter::write(EventSelection events) {
    start();
    state_->rethrow();
    for (const Event& e : events) {
        if (const auto* data = std::get_if<DataChangeEvent>(&e)) {
            co_await handle(*data);
            if (state_->batcher.has_ready()) state_->work.notify();
            while (state_->batcher.ready_batches() > kMaxReadyBatches && !state_->error)
                co_await state_->progress.wait();
            state_->rethrow();
            continue;
        }
        TableId table = table_of(e);
        bindings_.erase(table);
        if (const auto* create = std::get_if<CreateTableEvent>(&e)) {
            schemas_[table] = create->schema;
        } else if (std::holds_alternative<DropTableEvent>(e)) {
            schemas_.erase(table);
        } else if (auto it = schemas_.find(table); it != schemas_.end()) {
            if (auto change = as_schema_change(e))
                it->second = apply_schema_change(it->second, *change);
        }
    }
}

asio::awaitable<std::string> VikingdbWriter::flush(std::uint64_t) {
    start();
    state_->batcher.seal_all();
    state_->work.notify();
    while (!state_->batcher.empty() && !state_->error && state_->running > 0)
        co_await state_->progress.wait();
    state_->rethrow();
    if (!state_->batcher.empty())
        throw std::runtime_error("VikingDB sink: writer " + std::to_string(index_) +
                                 " stopped with " + std::to_string(state_->batcher.records()) +
                                 " records unacknowledged");
    co_return std::string();
}

asio::awaitable<void> VikingdbWriter::close() {
    auto s = state_->data->stats().requests.load();
    spdlog::info("VikingDB sink writer {}: closing ({} data-plane requests by the sink so far)",
                 index_, s);
    state_->stopping = true;
    state_->work.notify();
    state_->tick.cancel();
    state_->evict.cancel();
    co_return;
}

}  // namespace cdcd::vikingdb
