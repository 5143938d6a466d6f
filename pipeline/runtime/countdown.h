#pragma once
// Wait on the event loop until N parties have arrived (writers flushing for a schema change).
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace cdcd {

class Countdown {
  public:
    Countdown(boost::asio::any_io_executor executor, std::size_t parties)
        : timer_(executor, boost::asio::steady_timer::time_point::max()), remaining_(parties) {}

    void arrive() {
        if (remaining_ > 0 && --remaining_ == 0) timer_.cancel();
    }
    boost::asio::awaitable<void> wait() {
        while (remaining_ > 0)
            co_await timer_.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }

  private:
    boost::asio::steady_timer timer_;
    std::size_t remaining_;
};

}  // namespace cdcd
