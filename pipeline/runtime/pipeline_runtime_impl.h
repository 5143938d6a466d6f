#pragma once
// The pipeline runtime's state and steps, shared by the files that implement them:
//   pipeline_runtime.cpp        wiring: builds the stages, runs the source, processing and writer
//                               tasks, drains and stops
//   recovery.cpp                opens the state directory and restores a checkpoint (or claims a
//                               fresh start)
//   checkpoint_coordinator.cpp  barriers, acks, writing checkpoints and notifying their completion
//   source_readers.cpp          a source split into readers on the writers' threads: their
//                               outputs (routing where they can), barriers aligned across
//                               them, their end
// Private to pipeline/runtime: include only from those files.
#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/experimental/concurrent_channel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "pipeline/runtime/bad_record_stage.h"
#include "pipeline/runtime/countdown.h"
#include "pipeline/runtime/dead_letter_file.h"
#include "pipeline/runtime/event_loop.h"
#include "pipeline/runtime/pipeline_runtime.h"
#include "pipeline/runtime/runtime_metrics.h"
#include "pipeline/runtime/shared_batch.h"
#include "pipeline/runtime/tap_hub.h"
#include "pipeline/runtime/transform_stage.h"
#include "pipeline/runtime/writer_loops.h"
#include "pipeline/schema/schema_operator.h"
#include "pipeline/transform/transform_operator.h"
#include "state/checkpoint_store.h"
#include "state/state_dir_lock.h"

namespace cdcd {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

struct PipelineRuntime::Impl {
    struct FlushRequest {
        std::shared_ptr<Countdown> done;
    };
    using WriterElement =
        std::variant<EventBatch, std::shared_ptr<SharedBatch>, Barrier, FlushRequest, EndOfInput>;
    /// What the source channel carries: an element, and the reader that sent it.
    struct SourceElement {
        static constexpr std::size_t kNoReader = static_cast<std::size_t>(-1);
        StreamElement element;
        std::size_t reader = kNoReader;  // kNoReader: the source on the loop, or the coordinator
    };
    // Thread-safe: a source's readers send from the writers' loops (source_readers.cpp).
    using SourceChannel =
        asio::experimental::concurrent_channel<void(boost::system::error_code, SourceElement)>;
    // Thread-safe: a writer may run on a loop of its own (writer_loops.h).
    using WriterChannel =
        asio::experimental::concurrent_channel<void(boost::system::error_code, WriterElement)>;

    // Batches in flight to each writer; with ~1k events per batch this bounds memory while keeping
    // every stage busy.
    static constexpr std::size_t kChannelCapacity = 4;
    // Batches between the source and the schema operator, which share the loop: one. With four,
    // a source that builds its rows on the loop ran four batches (about 1.5 MB of rows and
    // events) ahead, so they had left the core's cache when they were routed and partitioned
    // (GENERATED -> file at parallelism 2: -8 % wall and CPU with one).
    static constexpr std::size_t kSourceChannelCapacity = 1;

    // Dead-letter bytes one stage may hold between two checkpoints: a flood of bad records stops
    // the pipeline instead of exhausting memory.
    static constexpr std::size_t kMaxPendingDeadLetterBytes = 64 << 20;

    static std::int64_t now_ms() {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    }

    /// A complete checkpoint whose write to the store failed, kept to be written again.
    struct UnwrittenCheckpoint {
        state::Checkpoint checkpoint;
        std::chrono::steady_clock::time_point started;
    };

    struct PendingCheckpoint {
        std::string source_state;
        std::string schema_state;
        std::string transform_state;
        std::string dead_letters;  // every stage's dead-letter lines cut at this checkpoint
        // By writer index once the barrier has passed the operators; set by the writer's ack.
        std::vector<std::optional<std::string>> writer_states;
        std::size_t acks_remaining = 0;
        bool final = false;
        std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
        int progress_reports = 0;  // "has waited" warnings logged for it
    };

    Impl(PipelinePlan p, RunOptions o)
        : plan(std::move(p)),
          options(std::move(o)),
          registry(metrics::Labels{{"pipeline", plan.settings.name}}),
          rm(registry, plan.definition.source.type, plan.definition.sink.type),
          taps(TapSettings{plan.tap_enabled, plan.tap_sensitive_columns}, registry),
          source_channel(io, kSourceChannelCapacity),
          checkpoint_timer(io),
          drain_timer(io),
          schema_change_timer(io),
          checkpoint_expiry_timer(io),
          signals(io) {}

    // ---- construction (pipeline_runtime.cpp) ----------------------------------------------------
    /// The bad-record policy's stages: the source, each transform lane, each writer.
    class BadRecordStages final : public BadRecordHandlers {
      public:
        BadRecordStages(const PipelinePlan& plan, metrics::Registry& registry)
            : plan_(plan), registry_(registry) {
            source_stage = make("source", plan.definition.source.type);
            const std::size_t lanes = plan.transform_lanes();  // reads the CPU limits
            for (std::size_t i = 0; i < lanes; ++i)
                transform_stages.push_back(make("transform", "transform"));
            for (int i = 0; i < plan.settings.parallelism; ++i)
                writer_stages.push_back(make("sink", plan.definition.sink.type));
        }
        BadRecordSink& source() override { return *source_stage; }
        BadRecordSink& writer(int index) override {
            return *writer_stages.at(static_cast<std::size_t>(index));
        }

        /// A stage of the transform for one more operator (the loop's, a source reader's).
        BadRecordStage& add_transform_stage() {
            transform_stages.push_back(make("transform", "transform"));
            return *transform_stages.back();
        }

        std::unique_ptr<BadRecordStage> source_stage;
        // One per lane, then the loop's and one per source reader that transforms
        // (add_transform_stage).
        std::vector<std::unique_ptr<BadRecordStage>> transform_stages;
        std::vector<std::unique_ptr<BadRecordStage>> writer_stages;

      private:
        std::unique_ptr<BadRecordStage> make(const char* stage, const std::string& connector) {
            // The stage's threads (lanes, the loop's operator, readers; writers) log as one.
            auto& log = logs_[stage];
            if (!log) log = std::make_shared<BadRecordLog>(stage, connector);
            return std::make_unique<BadRecordStage>(stage, connector, plan_.settings.name,
                                                    plan_.bad_record_policy, registry_,
                                                    kMaxPendingDeadLetterBytes, log);
        }
        const PipelinePlan& plan_;
        metrics::Registry& registry_;
        std::map<std::string, std::shared_ptr<BadRecordLog>> logs_;  // per stage
    };

    void build();
    void register_channel_metrics();
    awaitable<void> send_to_source_channel(StreamElement element,
                                           std::size_t reader = SourceElement::kNoReader);
    awaitable<void> send_to_writer(std::size_t i, WriterElement element);

    // ---- recovery (recovery.cpp) ----------------------------------------------------------------
    std::string dead_letter_path(const std::string& state_dir) const;
    std::string state_dir() const;
    void open_store(const std::string& dir);
    void restore();
    static std::string id_list(const std::vector<std::uint64_t>& ids);
    std::vector<state::Checkpoint> decodable_candidates(
        std::vector<state::StoredCheckpoint>& stored, const std::string& dir) const;
    std::vector<state::Checkpoint> requested_candidates(
        const std::vector<state::StoredCheckpoint>& stored, std::uint64_t id,
        const std::string& dir) const;
    void restore_parts(const state::Checkpoint& chosen,
                       const std::vector<state::StoredCheckpoint>& stored, const std::string& dir);
    std::string part_error(const state::Checkpoint& chosen, const std::string& part,
                           const std::string& who, const std::string& what,
                           const std::vector<state::StoredCheckpoint>& stored,
                           const std::string& dir) const;
    void claim_fresh_outputs();
    void check_fingerprint(const state::Checkpoint& checkpoint, const std::string& dir) const;
    static constexpr const char* kParallelismKey = "pipeline.parallelism";
    std::optional<int> rescale_writer_states(state::Checkpoint& checkpoint,
                                             const std::string& dir) const;
    void store_rescaled(const state::Checkpoint& chosen, int before, const std::string& dir);
    const state::Checkpoint* choose_recoverable(const std::vector<state::Checkpoint>& stored,
                                                const std::string& dir);

    // ---- source ---------------------------------------------------------------------------------
    class Output;
    awaitable<void> source_task();
    /// Counts a batch a source or reader emitted (atomic counters: any thread).
    void count_source_batch(std::size_t events);
    /// SourceOutput::request_checkpoint, on the loop.
    void checkpoint_now();

    // ---- source readers (source_readers.cpp) ----------------------------------------------------
    class ReaderOutput;
    /// Splits the source into one reader per writer thread, when it can; false: it runs on the
    /// loop.
    bool start_readers();
    awaitable<void> reader_task(std::size_t index);
    /// Each reader snapshots its state and sends barrier `id` on its own thread (after a batch
    /// on its way), then waits until the loop has sent it on to every writer.
    void inject_reader_barriers(std::uint64_t id);
    /// A reader's barrier or end, received on the loop: what passes on, in order. Barrier N
    /// passes once every reader has sent it (with their merged state as the source's), the end
    /// once every reader has ended, after a final checkpoint's barrier.
    std::vector<StreamElement> align_readers(StreamElement element);
    /// Lets the readers held at a barrier go on, once the loop has sent it to every writer.
    void release_readers();
    /// Reader `index`'s batch has been routed: it may route its next batches itself.
    void reader_batch_routed(std::size_t index);
    /// Hands the readers the schema operator's unchanged routes when schemas have changed.
    void publish_routes();
    /// The schema changes of `batch`, about to enter the transform stage, to each reader's
    /// operator too, so that it binds every table as the stage's operators do.
    void mirror_schema_changes(const EventBatch& batch);
    void wake_readers();

    // ---- checkpoint coordination (checkpoint_coordinator.cpp) -----------------------------------
    awaitable<void> checkpoint_loop();
    /// Warns while a checkpoint takes long, and fails the pipeline once it has taken longer than
    /// execution.checkpointing.timeout.
    awaitable<void> checkpoint_expiry_loop();
    /// What a pending checkpoint still waits for ("sink `kafka` writer(s) 1 have not …").
    std::string what_checkpoint_waits_for(const PendingCheckpoint& pending) const;
    /// What checkpoint `id`, expired, still waits for.
    std::string describe_expired_checkpoint(std::uint64_t id,
                                            const PendingCheckpoint& pending) const;
    awaitable<void> pass_barrier(const Barrier& barrier, std::string& transform_state,
                                 std::string& transform_dead_letters);
    awaitable<void> acknowledge(std::uint64_t id, std::size_t writer, std::string state,
                                std::string dead_letter_lines);
    awaitable<void> complete_checkpoint(std::uint64_t id);
    awaitable<void> persist(state::Checkpoint checkpoint,
                            std::chrono::steady_clock::time_point started, bool final);
    awaitable<void> write_unwritten_again();

    // ---- processing and writers -----------------------------------------------------------------
    awaitable<void> processor_task();
    /// Routes a batch, passes a barrier, or ends the writers (true) at the end of input.
    awaitable<bool> process(StreamElement& element, EventBatch& out);
    awaitable<void> transform_feeder_task();
    awaitable<void> transform_router_task();
    awaitable<void> end_writers();
    awaitable<void> route(EventBatch& in, EventBatch& out);
    awaitable<void> dispatch(EventBatch& out);
    awaitable<void> flush_writers(EventBatch& pending, const SchemaChangeEvent& change);
    void arm_schema_change_timeout(const SchemaChangeEvent& change);
    awaitable<void> writer_task(std::size_t index);
    /// Writer `index`'s barrier `id`: flushes, then acknowledges; when the flush becomes durable
    /// in the background, acknowledges from a task of its own once it has, and returns at once
    /// with that task's end in `acknowledged` (the writer goes on meanwhile).
    awaitable<void> checkpoint_writer(std::size_t index, std::uint64_t id,
                                      std::shared_ptr<Countdown>& acknowledged);
    /// Runs `task` on the pipeline's loop from a writer's task, wherever that runs.
    awaitable<void> on_pipeline_loop(awaitable<void> task);
    /// Runs `task` on writer `index`'s loop from the pipeline's loop.
    awaitable<void> on_writer_loop(std::size_t index, awaitable<void> task);
    /// A written batch's rows are freed, or recycled to the transform thread, on the pipeline's
    /// loop: the thread that allocated them (glibc's malloc makes a thread that frees another
    /// thread's memory wait for that thread's arena lock: 30,000 context switches and about 40 %
    /// more CPU in a 6M-event run with two writer threads).
    void release_written(EventBatch batch);
    /// After a writer has written its part of `shared`.
    void release_written(SharedBatch& shared);
    /// Runs `handler` on the pipeline's loop, later when called from a writer's own thread.
    void post_to_pipeline_loop(std::function<void()> handler);

    // ---- lifecycle ------------------------------------------------------------------------------
    void begin_drain(const char* why);
    void wait_for_signal();
    void set_phase(RuntimePhase p);
    void finish();
    void fail(std::exception_ptr error);
    std::function<void(std::exception_ptr)> on_exit(const std::string& task);
    int run();
    /// After every loop has stopped: destroys the coroutines a failure left suspended on them.
    void destroy_suspended_tasks();
    void start(const std::exception_ptr& restore_error);

    PipelinePlan plan;
    RunOptions options;
    metrics::Registry registry;
    RuntimeMetrics rm;
    // Before io: the admin endpoint's tap sessions, destroyed with the loop, detach from it.
    TapHub taps;
    RuntimePhase phase = RuntimePhase::Starting;
    std::deque<std::atomic<std::int64_t>> queued;  // decremented by writers, maybe on their loops
    EventLoop io{1};
    std::unique_ptr<WriterLoops> writer_loops;  // after io: destroyed (its tasks too) before it
    // Keeps the pipeline's loop running while writers on their own threads have not closed.
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> writers_working;
    state::StateDirLock state_lock;  // released after the store has closed
    std::unique_ptr<state::CheckpointStore> store;
    BadRecordStages bad_records{plan, registry};
    std::unique_ptr<DeadLetterFile> dead_letters;  // policy dead-letter only
    std::unique_ptr<Source> source;
    std::shared_ptr<RowBufferReturn> source_rows_home;  // the source builds rows off the loop
    // The source's readers, reader i on writer i's loop (empty: the source runs on the loop).
    std::vector<std::unique_ptr<SourceReader>> readers;
    std::vector<std::unique_ptr<SourceOutput>> reader_outputs;  // ReaderOutput each
    /// What each reader cuts at a barrier (or at its end), slot i written on reader i's thread.
    struct ReaderCut {
        std::vector<std::string> states;
        std::vector<std::string> dead_letters;  // its transform's, when it transforms
        explicit ReaderCut(std::size_t readers) : states(readers), dead_letters(readers) {}
    };
    struct ReaderBarrier {
        std::shared_ptr<ReaderCut> cut;
        std::size_t received = 0;
    };
    std::map<std::uint64_t, ReaderBarrier> reader_barriers;
    std::shared_ptr<ReaderCut> reader_final_cut;  // each slot written before the reader's end
    std::size_t readers_ended = 0;
    std::uint64_t published_schema_version = 0;  // of the routes the readers were handed
    std::unique_ptr<Sink> sink;
    // One operator per lane of the transform stage (empty: no transform).
    std::vector<std::unique_ptr<transform::TransformOperator>> transforms;
    std::unique_ptr<TransformStage> transform_stage;  // joined before `transforms` are destroyed
    // The transform's restored state, which the readers' operators start from too.
    std::optional<std::string> restored_transform_state;
    // With a transform and readers: reader i's own operator, for the batches it routes itself
    // (schema changes reach it from the loop as they enter the transform stage).
    std::vector<std::unique_ptr<transform::TransformOperator>> reader_transforms;
    // The reader of each batch sent into the transform stage and not yet routed, in order.
    std::deque<std::size_t> readers_of_transformed;
    std::unique_ptr<SchemaOperator> schema_operator;
    std::vector<std::unique_ptr<SinkWriter>> writers;
    SourceChannel source_channel;
    std::vector<std::unique_ptr<WriterChannel>> writer_channels;
    asio::steady_timer checkpoint_timer;
    asio::steady_timer drain_timer;
    std::optional<std::chrono::steady_clock::time_point> stop_deadline;  // set by begin_drain
    asio::steady_timer schema_change_timer;  // schema-operator.rpc-timeout of the change applied
    asio::steady_timer checkpoint_expiry_timer;  // checkpoint_expiry_loop's tick
    asio::signal_set signals;
    std::set<asio::steady_timer*> sleepers;
    std::map<std::uint64_t, PendingCheckpoint> checkpoints;
    std::uint64_t next_checkpoint_id = 1;
    std::uint64_t previous_checkpoint_id = 0;  // the last one written or restored
    int retained = 3;                          // checkpoints kept in the store
    bool checkpoint_in_flight = false;
    std::optional<UnwrittenCheckpoint> unwritten;  // its write failed; written again next tick
    int consecutive_failed_checkpoints = 0;
    bool source_done = false;
    std::atomic<bool> stopping = false;  // read by writers on their own loops
    std::size_t writers_closed = 0;
    std::uint64_t events_in = 0, events_out = 0, checkpoints_completed = 0;
    std::exception_ptr first_error;
};

}  // namespace cdcd
