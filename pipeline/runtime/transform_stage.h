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
// kept for its next rows or freed there.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/concurrent_channel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <exception>
#include <memory>
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

    /// `bad_records` (optional) is the transform's stage of the bad-record policy, used on the
    /// transform thread only: its dead-letter lines are cut at each barrier. `taps` (optional)
    /// is offered each batch at the source point, on the transform thread, before the transform.
    /// `source_rows_home` (optional): where the input rows go when the source built them on a
    /// thread of its own (Source::row_buffer_return); else the loop keeps them.
    TransformStage(boost::asio::io_context& loop, transform::TransformOperator& op,
                   BadRecordStage* bad_records = nullptr, TapHub* taps = nullptr,
                   std::shared_ptr<RowBufferReturn> source_rows_home = nullptr);
    ~TransformStage();  // closes both channels and joins the thread
    TransformStage(const TransformStage&) = delete;
    TransformStage& operator=(const TransformStage&) = delete;

    /// On the loop: hands a batch, barrier or the end to the transform thread; waits while the
    /// stage is full.
    boost::asio::awaitable<void> send(StreamElement element);
    /// On the loop: the next result, in the order the elements were sent; rethrows the
    /// transform's error (a TransformError names the table, key and expression).
    boost::asio::awaitable<Result> receive();
    /// On the loop: rows the writers are done with become spare buffers for projected rows.
    void recycle_written(EventBatch& written);
    /// Wakes both sides for good (the pipeline failed or stops).
    void close();

  private:
    struct Work {
        StreamElement element;
        std::vector<std::string> written_rows;  // projected rows the writers are done with
    };
    /// `element` holds the transformed batch; `input` the upstream batch, with the events the
    /// transform dropped, for the loop to destroy.
    struct Transformed {
        StreamElement element;
        EventBatch input;
        std::vector<Row> retired_rows;  // input rows replaced by projected ones
        std::size_t row_size_hint = 0;  // the batch's largest projected row (0: none projected)
        std::string transform_state;
        std::string dead_letters;
        std::exception_ptr error;
    };
    using WorkChannel =
        boost::asio::experimental::concurrent_channel<void(boost::system::error_code, Work)>;
    using ResultChannel =
        boost::asio::experimental::concurrent_channel<void(boost::system::error_code, Transformed)>;

    boost::asio::awaitable<void> run();  // the transform thread's loop

    transform::TransformOperator& op_;
    BadRecordStage* bad_records_;
    TapHub* taps_;
    std::shared_ptr<RowBufferReturn> source_rows_home_;
    WorkChannel work_;
    ResultChannel results_;
    // On the loop: written rows of at least written_row_size_ bytes (the last nonzero
    // row_size_hint), for the next Work.
    std::vector<std::string> written_rows_;
    std::size_t written_row_size_ = 0;
    // Last: joined (in the destructor) before the channels are destroyed.
    boost::asio::thread_pool thread_{1};
};

}  // namespace cdcd
