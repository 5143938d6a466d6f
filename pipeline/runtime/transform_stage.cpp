#include "pipeline/runtime/transform_stage.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include "pipeline/data/row_buffer_pool.h"
#include "pipeline/runtime/keep_row_buffers.h"

namespace cdcd {

namespace asio = boost::asio;

namespace {

// Work waiting per direction. One keeps the rows in flight few enough to stay in cache.
constexpr std::size_t kChannelCapacity = 1;
// Spare buffers: for projected rows up to this size, at most this many in the pool and on their
// way back to it.
constexpr std::size_t kMaxSpareRowBytes = 1024;
constexpr std::size_t kMaxSpareRows = 16384;

}  // namespace

TransformStage::TransformStage(asio::io_context& loop, transform::TransformOperator& op,
                               BadRecordStage* bad_records, TapHub* taps,
                               std::shared_ptr<RowBufferReturn> source_rows_home)
    : op_(op),
      bad_records_(bad_records),
      taps_(taps),
      source_rows_home_(std::move(source_rows_home)),
      work_(loop, kChannelCapacity),
      results_(loop, kChannelCapacity) {
    asio::co_spawn(thread_, run(), asio::detached);
}

TransformStage::~TransformStage() {
    close();
    thread_.join();  // the thread's loop ends on the closed channels
}

void TransformStage::close() {
    work_.close();
    results_.close();
    work_.cancel();
    results_.cancel();
}

asio::awaitable<void> TransformStage::run() {
    transform::TransformOperator::RowBuffers rows;  // rows.spare: the pool of spare buffers
    while (true) {
        auto [ec, work] = co_await work_.async_receive(asio::as_tuple(asio::use_awaitable));
        if (ec) co_return;
        // The written rows become the pool, the spares left over from the last batch on top
        // (project() takes from the back): only those few move.
        if (!rows.spare.empty())
            work.written_rows.insert(work.written_rows.end(),
                                     std::make_move_iterator(rows.spare.begin()),
                                     std::make_move_iterator(rows.spare.end()));
        rows.spare.swap(work.written_rows);
        if (rows.spare.size() > kMaxSpareRows) rows.spare.resize(kMaxSpareRows);
        Transformed out;
        try {
            if (auto* batch = std::get_if<EventBatch>(&work.element)) {
                if (taps_)
                    taps_->offer(TapPoint::Source, *batch,
                                 [this](TableId t) { return op_.upstream_schema(t); });
                EventBatch transformed;
                rows.retired.reserve(2 * batch->size());  // at most two row images per event
                op_.process(*batch, transformed, &rows);
                out.row_size_hint = op_.row_size_hint();
                out.retired_rows = std::move(rows.retired);
                rows.retired.clear();
                out.input = std::move(*batch);
                work.element = std::move(transformed);
            } else if (std::holds_alternative<Barrier>(work.element)) {
                out.transform_state = op_.snapshot_state();
                if (bad_records_) out.dead_letters = bad_records_->take_pending();
            }
        } catch (...) {
            out.error = std::current_exception();
        }
        bool last = out.error || std::holds_alternative<EndOfInput>(work.element);
        out.element = std::move(work.element);
        auto [send_ec] = co_await results_.async_send(boost::system::error_code{}, std::move(out),
                                                      asio::as_tuple(asio::use_awaitable));
        if (send_ec || last) co_return;
    }
}

asio::awaitable<void> TransformStage::send(StreamElement element) {
    Work work{std::move(element), {}};
    work.written_rows.swap(written_rows_);
    co_await work_.async_send(boost::system::error_code{}, std::move(work), asio::use_awaitable);
}

asio::awaitable<TransformStage::Result> TransformStage::receive() {
    auto [ec, out] = co_await results_.async_receive(asio::as_tuple(asio::use_awaitable));
    if (ec) throw boost::system::system_error(ec, "transform stage");
    if (out.row_size_hint > 0) written_row_size_ = out.row_size_hint;
    // The input rows and dropped events, built by the source: their buffers serve the next rows
    // it builds, and the rest is freed here.
    if (source_rows_home_) {
        return_row_buffers(out.input, *source_rows_home_, &out.retired_rows);
    } else {
        RowBufferPool& pool = RowBufferPool::this_thread();
        for (Row& row : out.retired_rows) pool.give(std::move(row).release());
        keep_row_buffers(out.input);
    }
    out.retired_rows.clear();
    out.input.clear();
    if (out.error) std::rethrow_exception(out.error);
    co_return Result{std::move(out.element), std::move(out.transform_state),
                     std::move(out.dead_letters)};
}

void TransformStage::recycle_written(EventBatch& written) {
    std::size_t size = written_row_size_;
    if (size == 0 || size > kMaxSpareRowBytes) return;
    auto keep = [&](std::optional<Row>& row) {
        if (!row || written_rows_.size() >= kMaxSpareRows) return;
        std::size_t capacity = row->bytes().capacity();
        if (capacity < size || capacity > 2 * kMaxSpareRowBytes) return;
        written_rows_.push_back(std::move(*row).release());
        row.reset();
    };
    // Sized once per batch (the vector went to the transform thread with the last Work).
    if (written_rows_.capacity() == 0) written_rows_.reserve(2 * written.size());
    for (Event& e : written) {
        if (auto* d = std::get_if<DataChangeEvent>(&e)) {
            keep(d->before);
            keep(d->after);
        }
    }
}

}  // namespace cdcd
