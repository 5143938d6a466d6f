#include "pipeline/util/blocking_calls.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/async_result.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>

namespace cdcd {

namespace asio = boost::asio;

BlockingCalls::~BlockingCalls() {
    auto running = std::count_if(helpers_.begin(), helpers_.end(),
                                 [](const Helper& h) { return !h.done.load(); });
    if (running > 0)
        spdlog::info("{}: waiting for {} call(s) in progress to return before closing{}{}", owner_,
                     running, why_wait_.empty() ? "" : " ", why_wait_);
    for (Helper& h : helpers_) h.thread.join();
}

asio::awaitable<void> BlockingCalls::run_void(std::function<void()> call) {
    join_finished();
    auto executor = co_await asio::this_coro::executor;
    co_await asio::async_initiate<decltype(asio::use_awaitable), void(std::exception_ptr)>(
        [this, executor](auto handler, std::function<void()> call) {
            Helper& helper = helpers_.emplace_back();
            try {
                helper.thread =
                    std::thread([&helper, executor, work = asio::make_work_guard(executor),
                                 handler = std::move(handler), call = std::move(call)]() mutable {
                        std::exception_ptr error;
                        try {
                            call();
                        } catch (...) {
                            error = std::current_exception();
                        }
                        // On a stopped event loop this only queues the resumption; the io_context's
                        // destruction then destroys the coroutine.
                        asio::post(executor, [handler = std::move(handler), error]() mutable {
                            std::move(handler)(error);
                        });
                        work.reset();
                        helper.done.store(true);
                    });
            } catch (...) {
                helpers_.pop_back();
                throw;
            }
        },
        asio::use_awaitable, std::move(call));
}

void BlockingCalls::join_finished() {
    for (auto it = helpers_.begin(); it != helpers_.end();) {
        if (!it->done.load()) {
            ++it;
            continue;
        }
        it->thread.join();  // the thread is exiting: only its captures are left to destroy
        it = helpers_.erase(it);
    }
}

}  // namespace cdcd
