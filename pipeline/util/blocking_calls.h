#pragma once
// Blocking calls (librdkafka's flush and transaction calls, a file's fdatasync), each on a helper
// thread of its own and awaited by the coroutine that made it, so the event loop never blocks.
// The helper threads belong to the object that owns what the calls use, and its destruction
// joins them: a failing pipeline stops the event loop while calls may still be running, then
// destroys their owner and the event loop, which the calls still use.
//
// A call that never returns (librdkafka's send_offsets_to_transaction can wait past its own
// timeout after a broker restart: its issues #5456 and #5511) would hold its coroutine, and then
// the teardown, for ever. run_within() stops waiting for it at a limit and throws CallOverdue; an
// owner given a teardown limit then waits for its calls at most that long and ends the process
// (exit code 1) rather than destroy what a call still uses: like kill -9, from which a restart
// resumes at the last checkpoint.
#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <list>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

namespace cdcd {

/// A call awaited with run_within() had not returned at its limit (it goes on running).
class CallOverdue : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class BlockingCalls {
  public:
    /// `owner` names the owner in the log line of a teardown that waits for calls; `why_wait`
    /// (optional) says there why they cannot be cut short. With a `teardown_limit`, the teardown
    /// waits at most that long for calls still running, then ends the process (exit code 1).
    explicit BlockingCalls(std::string owner, std::string why_wait = {},
                           std::optional<std::chrono::milliseconds> teardown_limit = std::nullopt)
        : owner_(std::move(owner)),
          why_wait_(std::move(why_wait)),
          teardown_limit_(teardown_limit) {}
    /// Waits for the calls still running. Declare this after what the calls use, and destroy it
    /// before the io_context their coroutines resume on.
    ~BlockingCalls();
    BlockingCalls(const BlockingCalls&) = delete;
    BlockingCalls& operator=(const BlockingCalls&) = delete;

    /// Runs `call` on a helper thread; the coroutine resumes on its own executor with the call's
    /// result, or its exception rethrown. On the event loop's thread only.
    template <typename F>
    boost::asio::awaitable<std::invoke_result_t<F&>> run(F call);
    /// As run(), but waits at most `limit`: then throws CallOverdue ("<what> did not return
    /// within N s") and leaves the call running on its helper thread.
    template <typename F>
    boost::asio::awaitable<std::invoke_result_t<F&>> run_within(std::chrono::milliseconds limit,
                                                                std::string what, F call);

    /// Helper threads not yet joined: those of the calls in progress, and of calls that returned
    /// since the last call started.
    std::size_t threads() const { return helpers_.size(); }

  private:
    struct Helper {
        std::thread thread;
        std::atomic<bool> done{false};  // nothing left but the thread's exit
    };

    boost::asio::awaitable<void> run_void(std::function<void()> call);
    boost::asio::awaitable<void> run_void_within(std::chrono::milliseconds limit,
                                                 const std::string& what,
                                                 std::function<void()> call);
    /// With a teardown limit: waits for the calls in progress until it passes, and ends the
    /// process if one is still running then.
    void wait_within_teardown_limit();
    /// Joins the helpers whose calls have returned (so their threads do not pile up).
    void join_finished();

    std::string owner_;
    std::string why_wait_;
    std::optional<std::chrono::milliseconds> teardown_limit_;
    std::list<Helper> helpers_;  // a list: each helper thread refers to its own element
};

template <typename F>
boost::asio::awaitable<std::invoke_result_t<F&>> BlockingCalls::run(F call) {
    using Result = std::invoke_result_t<F&>;
    if constexpr (std::is_void_v<Result>) {
        co_await run_void([&call] { call(); });
    } else {
        // Set by the helper thread before it resumes this coroutine.
        std::optional<Result> result;
        co_await run_void([&call, &result] { result.emplace(call()); });
        co_return std::move(*result);
    }
}

template <typename F>
boost::asio::awaitable<std::invoke_result_t<F&>> BlockingCalls::run_within(
    std::chrono::milliseconds limit, std::string what, F call) {
    using Result = std::invoke_result_t<F&>;
    // The call may outlive this coroutine (CallOverdue): it owns what it uses.
    auto shared_call = std::make_shared<F>(std::move(call));
    if constexpr (std::is_void_v<Result>) {
        std::function<void()> run = [shared_call] { (*shared_call)(); };
        co_await run_void_within(limit, what, std::move(run));
    } else {
        auto result = std::make_shared<std::optional<Result>>();
        std::function<void()> run = [shared_call, result] { result->emplace((*shared_call)()); };
        co_await run_void_within(limit, what, std::move(run));
        co_return std::move(**result);
    }
}

}  // namespace cdcd
