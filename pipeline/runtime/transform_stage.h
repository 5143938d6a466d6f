#pragma once
// The transform on a thread of its own, as a stage of the pipeline: the event loop sends it the
// source's stream (batches, barriers, the end) and receives it transformed, each side at its own
// pace through two bounded thread-safe channels. Neither side waits for the other unless a channel
// is full or empty, so the transform of later batches overlaps the routing and writing of earlier
// ones.
//
// Row memory circulates instead of being allocated and freed per row, and every buffer is freed on
// the thread that allocated it (freeing memory another thread allocated takes malloc's slow path):
// the transform thread allocates projected rows; once the writers are done with them they return,
// in bulk, as spare buffers for the next ones; the input rows they replaced, like the events the
// transform dropped, return to the loop (or to the source's own thread, which built them) to be
// kept for its next rows or freed there. A projection of every upstream column followed by
// computed ones, or of some columns in their order followed by computed ones, is written over
// its input row when the row's buffer has room: then the written rows go back to the source
// instead, so that its next rows have room for their projections (those the loop's pool has no
// room for become the lanes' spares), and an input row without that room is freed once its
// projection replaced it.
//
// The transform may run in lanes, each a thread with its own operator (at pipeline.parallelism
// above 1): a run of data change events goes to the first lane with room for it (so one lane
// does it all while it keeps up, and the others take runs only when it falls behind), and every
// other event (a schema change), barrier and the end goes to every lane, so that each operator
// sees every schema its rows need. Results are taken in the order the pieces were sent, so a
// key's changes, and everything else, keep their order.
//
// The loop can help (help_on_loop): with an operator of its own, kept in the lanes' state (it is
// handed every schema change sent), it transforms a batch of data changes itself when every lane
// is busy and none has a result waiting for the loop (the loop is then not behind itself),
// instead of waiting for one; its result takes its place in the order like a lane's.
// It holds at most one such result not yet received, so the stage's bound on what is in flight
// stays, and a slow writer still holds the source back. At parallelism 1 the transform's lane sets
// the pace while the loop, which reads the source and writes the sink, waits for it part of the
// time: the loop's share of the runs is that time put to use.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/concurrent_channel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/connector/stream.h"
#include "pipeline/data/row_buffer_return.h"
#include "pipeline/runtime/bad_record_stage.h"
#include "pipeline/runtime/tap_hub.h"
#include "pipeline/transform/transform_operator.h"

namespace cdcd {

class TransformStage {
  public:
    /// A batch transformed, a barrier with the operator's state as of that barrier, or the end.
    struct Result {
        StreamElement element;
        std::string transform_state;
        std::string dead_letters;  // at a barrier: the transform's dead-letter lines since the last
    };

    /// One lane's operator and its stage of the bad-record policy (optional), used on the lane's
    /// thread only: its dead-letter lines are cut at each barrier.
    struct LaneParts {
        transform::TransformOperator* op = nullptr;
        BadRecordStage* bad_records = nullptr;
    };

    /// `taps` (optional) is offered each batch at the source point, on the transform thread,
    /// before the transform. `source_rows_home` (optional): where the input rows go when the
    /// source built them on a thread of its own (Source::row_buffer_return); else the loop keeps
    /// them.
    TransformStage(boost::asio::io_context& loop, transform::TransformOperator& op,
                   BadRecordStage* bad_records = nullptr, TapHub* taps = nullptr,
                   std::shared_ptr<RowBufferReturn> source_rows_home = nullptr);
    /// A stage of `lanes.size()` lanes (at least one); their operators start in the same state.
    TransformStage(boost::asio::io_context& loop, const std::vector<LaneParts>& lanes,
                   TapHub* taps = nullptr,
                   std::shared_ptr<RowBufferReturn> source_rows_home = nullptr);
    ~TransformStage();  // closes the channels and joins the lanes' threads
    TransformStage(const TransformStage&) = delete;
    TransformStage& operator=(const TransformStage&) = delete;

    /// On the loop: hands a batch, barrier or the end to the transform thread; waits while the
    /// stage is full.
    boost::asio::awaitable<void> send(StreamElement element);
    /// On the loop: the next result, one per element sent and in their order; rethrows the
    /// transform's error (a TransformError names the table, key and expression). At a barrier,
    /// the lanes' dead-letter lines in lane order.
    boost::asio::awaitable<Result> receive();
    /// On the loop: rows the writers are done with become spare buffers for projected rows, or,
    /// when the lanes write projected rows over their input rows, go back to the source.
    void recycle_written(EventBatch& written);
    /// Wakes both sides for good (the pipeline failed or stops).
    void close();
    /// Lets the loop transform a batch of data changes itself with `parts` when every lane is
    /// busy and no lane's result waits for it. Its operator must start in the lanes' state; its
    /// bad-record stage's lines are cut at each barrier sent, after the lanes'. The loop's row
    /// pool keeps more from then on. Call on the loop, before the first send.
    void help_on_loop(LaneParts parts);
    /// On the loop: how many runs of data changes each lane was sent.
    const std::vector<std::uint64_t>& runs_per_lane() const { return runs_per_lane_; }
    /// On the loop: how many runs of data changes the loop transformed itself.
    std::uint64_t runs_on_loop() const { return on_loop_ ? on_loop_->runs : 0; }

  private:
    struct Work {
        StreamElement element;
        std::vector<std::string> written_rows;  // projected rows the writers are done with
        bool offer_to_taps = true;  // false for the copies of what every lane gets but the first
        bool data_only = false;     // a batch of data changes only: transformed where it is
    };
    /// `element` holds the transformed batch; `input` the upstream batch, with the events the
    /// transform dropped, for the loop to destroy (empty when the batch was transformed where
    /// it was: TransformOperator::process_in_place).
    struct Transformed {
        StreamElement element;
        EventBatch input;
        std::vector<Row> retired_rows;  // input rows replaced by projected ones
        std::vector<Row> dropped_rows;  // rows of the events dropped in place
        std::size_t row_size_hint = 0;  // the batch's largest projected row (0: none projected)
        bool rows_in_place = false;     // projected rows were written over their input rows
        std::string transform_state;
        std::string dead_letters;
        std::exception_ptr error;
    };
    using WorkChannel =
        boost::asio::experimental::concurrent_channel<void(boost::system::error_code, Work)>;
    using ResultChannel =
        boost::asio::experimental::concurrent_channel<void(boost::system::error_code, Transformed)>;

    struct Lane {
        Lane(boost::asio::io_context& loop, const LaneParts& parts);
        LaneParts parts;
        WorkChannel work;
        ResultChannel results;
        // Last: joined (in the stage's destructor) before the channels are destroyed.
        boost::asio::thread_pool thread{1};
    };
    /// The loop's own operator (help_on_loop).
    struct LoopHelper {
        LaneParts parts;
        transform::TransformOperator::RowBuffers rows;
        bool holds_result = false;  // a result of its own not yet received
        bool failed = false;        // a schema change failed it: the lanes fail in order
        std::uint64_t runs = 0;
    };
    static constexpr std::size_t kEveryLane = ~std::size_t{0};
    static constexpr std::size_t kAnyLane = kEveryLane - 1;
    static constexpr std::size_t kOnLoop = kEveryLane - 2;
    /// A piece of an element sent: the lane it went to (or kEveryLane, or kOnLoop with its
    /// result), and whether it is the element's last.
    struct PieceSent {
        std::size_t lane = 0;
        bool last_of_element = true;
        std::unique_ptr<Transformed> on_loop;  // kOnLoop: the loop's result
        std::string loop_dead_letters;         // a barrier: the loop operator's lines before it
    };

    boost::asio::awaitable<void> run(Lane& lane);  // a lane's thread's loop
    /// Transforms `work` with `parts`, `rows` its buffers, on the lane's thread or the loop.
    Transformed transform(const LaneParts& parts, transform::TransformOperator::RowBuffers& rows,
                          Work& work);
    /// Whether the loop transforms a batch of data changes itself, every lane being busy: not
    /// while it holds a result of its own, nor while a lane's result waits for it.
    bool loop_takes(bool data_only) const;
    /// The schema changes of `batch` to the loop's operator, so that it keeps the lanes' state.
    void mirror_to_loop(const EventBatch& batch);
    /// The loop operator's dead-letter lines since the last barrier, for this one's piece.
    std::string cut_loop_dead_letters();
    /// Sends a piece of an element to `lane`, to every lane, or to any lane with room.
    /// `data_only`: whether it is a batch of data changes only. `loop_may_take`: a whole batch
    /// of data changes, which the loop may transform itself (not a run of a batch whose schema
    /// changes its operator already has).
    boost::asio::awaitable<void> send_piece(std::size_t lane, StreamElement element,
                                            bool last_of_element, bool data_only,
                                            bool loop_may_take = false,
                                            std::string loop_dead_letters = {});
    void note_piece_sent(PieceSent piece);  // and counts a run sent to one lane
    /// The next result of `lane`, its input rows returned home.
    boost::asio::awaitable<Transformed> receive_from(std::size_t lane);
    /// The result of one piece sent.
    boost::asio::awaitable<Transformed> receive_part(PieceSent& piece);
    void return_input_rows(Transformed& out);
    /// The row buffers of `events` to the source's pool: the loop's, or its own thread's.
    void return_to_source(EventBatch& events);

    TapHub* taps_;
    std::shared_ptr<RowBufferReturn> source_rows_home_;
    std::vector<std::unique_ptr<Lane>> lanes_;
    std::unique_ptr<LoopHelper> on_loop_;
    // On the loop: the pieces sent and not yet received, in order; the lane a run waits for
    // when every lane is busy.
    std::deque<PieceSent> pieces_sent_;
    std::size_t next_busy_lane_ = 0;
    std::vector<std::uint64_t> runs_per_lane_;
    boost::asio::steady_timer sent_;  // wakes a receive() that waits for the first send
    bool closed_ = false;
    // On the loop: written rows of at least written_row_size_ bytes (the last nonzero
    // row_size_hint), for the next Work.
    std::vector<std::string> written_rows_;
    std::size_t written_row_size_ = 0;
    // On the loop: the last batch's rows were written over their input rows (its
    // Transformed::rows_in_place).
    bool rows_in_place_ = false;
};

}  // namespace cdcd
