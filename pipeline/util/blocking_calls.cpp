#include "pipeline/util/blocking_calls.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdlib>
#include <exception>
#include <memory>

#include "config/units.h"

namespace cdcd {

namespace asio = boost::asio;

BlockingCalls::~BlockingCalls() {
    auto running = std::count_if(helpers_.begin(), helpers_.end(),
                                 [](const Helper& h) { return !h.done.load(); });
    if (running > 0)
        spdlog::info("{}: waiting for {} call(s) in progress to return before closing{}{}", owner_,
                     running, why_wait_.empty() ? "" : " ", why_wait_);
    if (running > 0 && teardown_limit_) wait_within_teardown_limit();
    for (Helper& h : helpers_) h.thread.join();
}

void BlockingCalls::wait_within_teardown_limit() {
    const auto deadline = std::chrono::steady_clock::now() + *teardown_limit_;
    auto running = [this] {
        return std::any_of(helpers_.begin(), helpers_.end(),
                           [](const Helper& h) { return !h.done.load(); });
    };
    while (running() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!running()) return;
    // Returning would destroy what the call still uses; waiting may never end.
    spdlog::error(
        "{}: a call has not returned within {} of the teardown; exiting now without waiting "
        "for it (exit code 1). Nothing is lost: a restart resumes from the last checkpoint",
        owner_, config::format_duration(*teardown_limit_));
    spdlog::shutdown();  // flushes every logger
    std::_Exit(1);
}

asio::awaitable<void> BlockingCalls::run_void(std::function<void()> call) {
    // Named, not a temporary: GCC 12 mis-compiles temporaries made inside a co_await expression.
    const std::string unnamed;
    co_await run_void_within(std::chrono::milliseconds::max(), unnamed, std::move(call));
}

namespace {

/// What a call's coroutine and its helper thread share: the coroutine waits on `timer`, which
/// the call's return cancels (on the event loop, as timers are not thread-safe).
struct CallWait {
    explicit CallWait(const asio::any_io_executor& executor) : timer(executor) {}
    asio::steady_timer timer;
    bool returned = false;
    std::exception_ptr error;
};

}  // namespace

asio::awaitable<void> BlockingCalls::run_void_within(std::chrono::milliseconds limit,
                                                     const std::string& what,
                                                     std::function<void()> call) {
    join_finished();
    auto executor = co_await asio::this_coro::executor;
    auto wait = std::make_shared<CallWait>(executor);
    if (limit == std::chrono::milliseconds::max())
        wait->timer.expires_at(asio::steady_timer::time_point::max());
    else
        wait->timer.expires_after(limit);
    Helper& helper = helpers_.emplace_back();
    try {
        helper.thread =
            std::thread([&helper, executor, wait, work = asio::make_work_guard(executor),
                         call = std::move(call)]() mutable {
                std::exception_ptr error;
                try {
                    call();
                } catch (...) {
                    error = std::current_exception();
                }
                // On a stopped event loop this only queues the resumption; the io_context's
                // destruction then destroys it, and the coroutine.
                asio::post(executor, [wait = std::move(wait), error] {
                    wait->returned = true;
                    wait->error = error;
                    wait->timer.cancel();
                });
                work.reset();
                helper.done.store(true);
            });
    } catch (...) {
        helpers_.pop_back();
        throw;
    }
    co_await wait->timer.async_wait(asio::as_tuple(asio::use_awaitable));
    if (!wait->returned)
        throw CallOverdue(what + " did not return within " + config::format_duration(limit));
    if (wait->error) std::rethrow_exception(wait->error);
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
