#pragma once
// Runs a blocking call (a librdkafka flush, transaction commit, metadata query) on a short-lived
// helper thread and resumes the awaiting coroutine on its executor, so the event loop never
// blocks. Exceptions thrown by the call are rethrown in the coroutine.
#include <boost/asio/async_result.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>
#include <thread>
#include <utility>

namespace cdcd::kafka {

template <typename F>
boost::asio::awaitable<void> offload(F fn) {
    auto executor = co_await boost::asio::this_coro::executor;
    co_await boost::asio::async_initiate<decltype(boost::asio::use_awaitable),
                                         void(std::exception_ptr)>(
        [executor](auto handler, F fn) {
            auto work = boost::asio::make_work_guard(executor);
            std::thread([executor, work = std::move(work), handler = std::move(handler),
                         fn = std::move(fn)]() mutable {
                std::exception_ptr error;
                try {
                    fn();
                } catch (...) {
                    error = std::current_exception();
                }
                boost::asio::post(executor, [handler = std::move(handler), error]() mutable {
                    std::move(handler)(error);
                });
                work.reset();
            }).detach();
        },
        boost::asio::use_awaitable, std::move(fn));
}

}  // namespace cdcd::kafka
