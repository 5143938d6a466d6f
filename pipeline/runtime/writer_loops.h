#pragma once
// The event loops sink writers run on. A sink whose writers are independent
// (Sink::writers_are_independent) gets one loop and thread per writer when
// `pipeline.parallelism` is above 1, so N writers use N cores; otherwise every writer shares the
// pipeline's loop, as the source and the routing do.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <memory>
#include <thread>
#include <vector>

#include "pipeline/runtime/event_loop.h"

namespace cdcd {

class WriterLoops {
  public:
    /// `threads`: 0 runs every writer on `shared`; N > 0 gives writer i loop i of N.
    WriterLoops(boost::asio::io_context& shared, std::size_t threads);
    ~WriterLoops();
    WriterLoops(const WriterLoops&) = delete;
    WriterLoops& operator=(const WriterLoops&) = delete;

    /// Whether writers run on threads of their own (and so away from the pipeline's loop).
    bool own_threads() const { return !loops_.empty(); }
    boost::asio::any_io_executor executor(std::size_t writer);
    /// Starts the threads, once (after the writers' tasks are spawned onto them).
    void start();
    /// Stops the loops and joins their threads; the tasks still on them are left suspended, to be
    /// destroyed by shutdown() or with the loops.
    void stop();
    /// After stop(): destroys the tasks still on the loops.
    void shutdown();

  private:
    struct Loop {
        EventLoop io{1};
        boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work =
            boost::asio::make_work_guard(io);
        std::thread thread;
    };
    boost::asio::io_context& shared_;
    std::vector<std::unique_ptr<Loop>> loops_;
};

}  // namespace cdcd
