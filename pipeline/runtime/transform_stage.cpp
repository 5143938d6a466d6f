#include "pipeline/runtime/transform_stage.h"

#include <algorithm>
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

// Whether `batch` holds data changes only (no schema change).
bool holds_data_only(const EventBatch& batch) {
    return std::all_of(batch.begin(), batch.end(), is_data_change);
}

}  // namespace

TransformStage::Lane::Lane(asio::io_context& loop, const LaneParts& parts)
    : parts(parts), work(loop, kChannelCapacity), results(loop, kChannelCapacity) {}

TransformStage::TransformStage(asio::io_context& loop, transform::TransformOperator& op,
                               BadRecordStage* bad_records, TapHub* taps,
                               std::shared_ptr<RowBufferReturn> source_rows_home)
    : TransformStage(loop, {LaneParts{&op, bad_records}}, taps, std::move(source_rows_home)) {}

TransformStage::TransformStage(asio::io_context& loop, const std::vector<LaneParts>& lanes,
                               TapHub* taps, std::shared_ptr<RowBufferReturn> source_rows_home)
    : taps_(taps), source_rows_home_(std::move(source_rows_home)), sent_(loop) {
    if (lanes.empty()) throw std::invalid_argument("a transform stage needs a lane");
    for (const LaneParts& parts : lanes) lanes_.push_back(std::make_unique<Lane>(loop, parts));
    runs_per_lane_.assign(lanes_.size(), 0);
    for (auto& lane : lanes_) asio::co_spawn(lane->thread, run(*lane), asio::detached);
}

TransformStage::~TransformStage() {
    close();
    for (auto& lane : lanes_) lane->thread.join();  // each lane's loop ends on its closed channels
}

void TransformStage::close() {
    closed_ = true;
    sent_.cancel();
    for (auto& lane : lanes_) {
        lane->work.close();
        lane->results.close();
        lane->work.cancel();
        lane->results.cancel();
    }
}

void TransformStage::help_on_loop(LaneParts parts) {
    on_loop_ = std::make_unique<LoopHelper>();
    on_loop_->parts = parts;
    // The loop's result and a lane's come back at once, two batches' rows: kept in 1 MiB, most
    // were freed, and the source (building on the loop) allocated 10 % of its rows anew, without
    // room to write their projections over them.
    RowBufferPool::this_thread().keep_up_to(2 * RowBufferPool::kMaxKeptBytes);
}

asio::awaitable<void> TransformStage::run(Lane& lane) {
    transform::TransformOperator::RowBuffers rows;  // rows.spare: the pool of spare buffers
    while (true) {
        auto [ec, work] = co_await lane.work.async_receive(asio::as_tuple(asio::use_awaitable));
        if (ec) co_return;
        Transformed out = transform(lane.parts, rows, work);
        bool last = out.error || std::holds_alternative<EndOfInput>(out.element);
        auto [send_ec] = co_await lane.results.async_send(
            boost::system::error_code{}, std::move(out), asio::as_tuple(asio::use_awaitable));
        if (send_ec || last) co_return;
    }
}

TransformStage::Transformed TransformStage::transform(
    const LaneParts& parts, transform::TransformOperator::RowBuffers& rows, Work& work) {
    transform::TransformOperator& op = *parts.op;
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
            if (taps_ && work.offer_to_taps)
                taps_->offer(TapPoint::Source, *batch,
                             [&op](TableId t) { return op.upstream_schema(t); });
            if (work.data_only) {
                // Transformed where it is: the loop gets back the vector and the event
                // objects it sent, not a second batch to read and then destroy.
                op.process_in_place(*batch, &rows);
                out.dropped_rows = std::move(rows.dropped);
                rows.dropped.clear();
            } else {
                EventBatch transformed;
                op.process(*batch, transformed, &rows);
                out.input = std::move(*batch);
                work.element = std::move(transformed);
            }
            out.row_size_hint = op.row_size_hint();
            out.rows_in_place = op.rows_in_place();
            out.retired_rows = std::move(rows.retired);
            rows.retired.clear();
        } else if (std::holds_alternative<Barrier>(work.element)) {
            out.transform_state = op.snapshot_state();
            if (parts.bad_records) out.dead_letters = parts.bad_records->take_pending();
        }
    } catch (...) {
        out.error = std::current_exception();
    }
    out.element = std::move(work.element);
    return out;
}

bool TransformStage::loop_takes(bool data_only) const {
    if (!data_only || !on_loop_ || on_loop_->failed || on_loop_->holds_result) return false;
    // A lane's result waiting to be received means the loop, not the transform, is behind (a
    // sink that formats on the loop): it has its own work to do.
    return std::none_of(lanes_.begin(), lanes_.end(),
                        [](const std::unique_ptr<Lane>& lane) { return lane->results.ready(); });
}

void TransformStage::mirror_to_loop(const EventBatch& batch) {
    if (!on_loop_ || on_loop_->failed) return;
    EventBatch changes = schema_changes_in(batch);
    if (changes.empty()) return;
    try {
        EventBatch ignored;  // the lanes' results are the ones received
        on_loop_->parts.op->process(changes, ignored);
    } catch (...) {
        // The lanes fail on the same change, in order; until then the loop only waits.
        on_loop_->failed = true;
    }
}

std::string TransformStage::cut_loop_dead_letters() {
    BadRecordStage* bad_records = on_loop_ ? on_loop_->parts.bad_records : nullptr;
    return bad_records ? bad_records->take_pending() : std::string{};
}

asio::awaitable<void> TransformStage::send(StreamElement element) {
    auto* batch = std::get_if<EventBatch>(&element);
    if (!batch) {  // a barrier and the end go to every lane
        std::string loop_dead_letters =
            std::holds_alternative<Barrier>(element) ? cut_loop_dead_letters() : std::string{};
        co_await send_piece(kEveryLane, std::move(element), true, false, false,
                            std::move(loop_dead_letters));
        co_return;
    }
    // Whether a batch holds data changes only is asked here, where the source just wrote its
    // events, not on the lane, where the first read of each would wait for memory.
    const bool data_only = holds_data_only(*batch);
    if (!data_only) mirror_to_loop(*batch);
    if (lanes_.size() == 1 && !data_only) {  // one lane takes it all
        co_await send_piece(0, std::move(element), true, false);
        co_return;
    }
    if (data_only) {
        // One run (the usual batch): sent as it is, without moving each event into a piece.
        co_await send_piece(kAnyLane, std::move(element), true, true, true);
        co_return;
    }
    // Runs of data change events, each to a lane with room for it; any other event to every
    // lane.
    std::vector<std::pair<bool, EventBatch>> pieces;  // (to every lane, events)
    for (Event& e : *batch) {
        const bool data = std::holds_alternative<DataChangeEvent>(e);
        if (pieces.empty() || !data || pieces.back().first) {
            pieces.emplace_back(!data, EventBatch{});
            if (data) pieces.back().second.reserve(batch->size());
        }
        pieces.back().second.push_back(std::move(e));
    }
    batch->clear();
    if (pieces.empty()) pieces.emplace_back(false, EventBatch{});
    for (std::size_t k = 0; k < pieces.size(); ++k) {
        auto& [every, events] = pieces[k];
        co_await send_piece(every ? kEveryLane : kAnyLane, StreamElement(std::move(events)),
                            k + 1 == pieces.size(), !every);
    }
}

asio::awaitable<void> TransformStage::send_piece(std::size_t lane, StreamElement element,
                                                 bool last_of_element, bool data_only,
                                                 bool loop_may_take,
                                                 std::string loop_dead_letters) {
    // The spare buffers go with the first Work made (the later ones swap in an empty vector).
    auto work_of = [this, data_only](StreamElement e, bool offer_to_taps) {
        Work work{std::move(e), {}, offer_to_taps, data_only};
        work.written_rows.swap(written_rows_);
        return work;
    };
    if (lane != kEveryLane) {
        Work work = work_of(std::move(element), true);
        if (lane == kAnyLane) {
            // The first lane with room takes the run, so that while the transform keeps up, one
            // lane does it all and its rows stay in one thread's cache; only when every lane is
            // busy does the run wait, for the next lane in turn.
            for (std::size_t i = 0; i < lanes_.size(); ++i) {
                // try_send moves from `work` only when the lane has room (and then returns true).
                // NOLINTNEXTLINE(bugprone-use-after-move)
                if (lanes_[i]->work.try_send(boost::system::error_code{}, std::move(work))) {
                    note_piece_sent({i, last_of_element, nullptr, {}});
                    co_return;
                }
            }
            if (loop_may_take && loop_takes(data_only)) {
                // Every lane is busy: the loop transforms it now instead of waiting for one.
                LoopHelper& helper = *on_loop_;
                auto out =
                    std::make_unique<Transformed>(transform(helper.parts, helper.rows, work));
                helper.holds_result = true;
                ++helper.runs;
                note_piece_sent({kOnLoop, last_of_element, std::move(out), {}});
                co_return;
            }
            lane = next_busy_lane_;
            next_busy_lane_ = (next_busy_lane_ + 1) % lanes_.size();
        }
        note_piece_sent({lane, last_of_element, nullptr, {}});
        co_await lanes_[lane]->work.async_send(boost::system::error_code{}, std::move(work),
                                               asio::use_awaitable);
        co_return;
    }
    // A copy for each lane but the last, which takes the element itself; taps at the source
    // point see it once, from the first lane.
    note_piece_sent({kEveryLane, last_of_element, nullptr, std::move(loop_dead_letters)});
    const std::size_t last = lanes_.size() - 1;
    for (std::size_t i = 0; i < last; ++i)
        co_await lanes_[i]->work.async_send(boost::system::error_code{},
                                            work_of(StreamElement(element), i == 0),
                                            asio::use_awaitable);
    co_await lanes_[last]->work.async_send(
        boost::system::error_code{}, work_of(std::move(element), last == 0), asio::use_awaitable);
}

void TransformStage::note_piece_sent(PieceSent piece) {
    if (piece.lane < lanes_.size()) ++runs_per_lane_[piece.lane];
    pieces_sent_.push_back(std::move(piece));
    sent_.cancel();  // a receive() may be waiting for it
}

void TransformStage::return_input_rows(Transformed& out) {
    if (out.rows_in_place) {
        // Projected rows were written over their input rows: the written rows, with room for
        // projected rows, go back to the source first (recycle_written). An input row retired
        // here had no room for its projection: it is freed, not kept for the source's next
        // row, which would then have no room either.
        rows_in_place_ = true;
        written_row_size_ = out.row_size_hint;  // the rows without room, if any
        out.retired_rows.clear();
    } else if (out.row_size_hint > 0) {
        rows_in_place_ = false;
        written_row_size_ = out.row_size_hint;
    }
    // The rows of the events the transform dropped are the source's, as the input rows are.
    out.retired_rows.insert(out.retired_rows.end(),
                            std::make_move_iterator(out.dropped_rows.begin()),
                            std::make_move_iterator(out.dropped_rows.end()));
    out.dropped_rows.clear();
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
}

void TransformStage::return_to_source(EventBatch& events) {
    if (source_rows_home_)
        return_row_buffers(events, *source_rows_home_);
    else
        keep_row_buffers(events);
}

asio::awaitable<TransformStage::Transformed> TransformStage::receive_from(std::size_t lane) {
    auto [ec, out] =
        co_await lanes_[lane]->results.async_receive(asio::as_tuple(asio::use_awaitable));
    if (ec) throw boost::system::system_error(ec, "transform stage");
    return_input_rows(out);
    co_return std::move(out);
}

asio::awaitable<TransformStage::Transformed> TransformStage::receive_part(PieceSent& piece) {
    if (piece.lane == kOnLoop) {
        Transformed out = std::move(*piece.on_loop);
        on_loop_->holds_result = false;
        return_input_rows(out);
        co_return std::move(out);
    }
    if (piece.lane != kEveryLane) co_return co_await receive_from(piece.lane);
    // Every lane's result: the first lane's element and state (every operator saw the same
    // schema changes), each lane's dead letters and the loop's, the first error.
    Transformed first = co_await receive_from(0);
    for (std::size_t i = 1; i < lanes_.size(); ++i) {
        Transformed out = co_await receive_from(i);
        first.dead_letters += out.dead_letters;
        if (!first.error) first.error = out.error;
    }
    first.dead_letters += piece.loop_dead_letters;
    co_return std::move(first);
}

asio::awaitable<TransformStage::Result> TransformStage::receive() {
    // The pieces of the next element, in the order they were sent, joined into one result.
    std::optional<Transformed> out;
    while (true) {
        while (pieces_sent_.empty() && !closed_) {  // not sent yet
            sent_.expires_at(asio::steady_timer::time_point::max());
            co_await sent_.async_wait(asio::as_tuple(asio::use_awaitable));
        }
        if (closed_)
            throw boost::system::system_error(asio::error::operation_aborted, "transform stage");
        PieceSent piece = std::move(pieces_sent_.front());
        pieces_sent_.pop_front();
        Transformed next = co_await receive_part(piece);
        if (next.error) std::rethrow_exception(next.error);
        if (!out) {
            out = std::move(next);
        } else {
            auto& batch = std::get<EventBatch>(out->element);
            auto& more = std::get<EventBatch>(next.element);
            batch.insert(batch.end(), std::make_move_iterator(more.begin()),
                         std::make_move_iterator(more.end()));
        }
        if (piece.last_of_element) break;
    }
    co_return Result{std::move(out->element), std::move(out->transform_state),
                     std::move(out->dead_letters)};
}

void TransformStage::recycle_written(EventBatch& written) {
    std::size_t size = written_row_size_;
    if (rows_in_place_ && !source_rows_home_) {
        // The source's pool first, so that its next rows have room for their projections; what
        // the pool has no room for (many large rows in flight) serves the lanes as spares, for
        // the rows projected without room, instead of being freed here and allocated there.
        RowBufferPool& pool = RowBufferPool::this_thread();
        release_row_buffers(written, [&](std::string&& buffer) {
            const std::size_t capacity = buffer.capacity();
            if (pool.would_keep(capacity))
                pool.give(std::move(buffer));
            else if (written_rows_.size() < kMaxSpareRows && capacity >= size &&
                     capacity <= 2 * kMaxSpareRowBytes)
                written_rows_.push_back(std::move(buffer));
        });
        return;
    }
    if (rows_in_place_ || size == 0 || size > kMaxSpareRowBytes) {
        // No spares wanted (rows projected in place, or none yet, or too large for spares): the
        // buffers serve the source's next rows.
        return_to_source(written);
        return;
    }
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
