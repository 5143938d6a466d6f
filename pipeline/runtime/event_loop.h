#pragma once
// An io_context whose pending handlers can be destroyed before the object is
// (execution_context::shutdown). A coroutine that a failure leaves suspended on one of the
// pipeline's loops may hold work on another (an awaited co_spawn across loops keeps a work guard
// on the awaiting loop), so what is left on the loops is destroyed while they all still exist.
#include <boost/asio/io_context.hpp>

namespace cdcd {

class EventLoop : public boost::asio::io_context {
  public:
    using io_context::io_context;
    /// Destroys every pending handler; the loop must not run again.
    using execution_context::shutdown;
};

}  // namespace cdcd
