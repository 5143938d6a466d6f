#pragma once
// Blocking calls (librdkafka's flush and transaction calls, a file's fdatasync), each on a helper
// thread of its own and awaited by the coroutine that made it, so the event loop never blocks.
// The helper threads belong to the object that owns what the calls use, and its destruction
// joins them: a failing pipeline stops the event loop while calls may still be running, then
// destroys their owner and the event loop, which the calls still use.
#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <functional>
#include <list>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

namespace cdcd {

class BlockingCalls {
  public:
    /// `owner` names the owner in the log line of a teardown that waits for calls; `why_wait`
    /// (optional) says there why they cannot be cut short.
    explicit BlockingCalls(std::string owner, std::string why_wait = {})
        : owner_(std::move(owner)), why_wait_(std::move(why_wait)) {}
    /// Waits for the calls still running. Declare this after what the calls use, and destroy it
    /// before the io_context their coroutines resume on.
    ~BlockingCalls();
    BlockingCalls(const BlockingCalls&) = delete;
    BlockingCalls& operator=(const BlockingCalls&) = delete;

    /// Runs `call` on a helper thread; the coroutine resumes on its own executor with the call's
    /// result, or its exception rethrown. On the event loop's thread only.
    template <typename F>
    boost::asio::awaitable<std::invoke_result_t<F&>> run(F call);

    /// Helper threads not yet joined: those of the calls in progress, and of calls that returned
    /// since the last call started.
    std::size_t threads() const { return helpers_.size(); }

  private:
    struct Helper {
        std::thread thread;
        std::atomic<bool> done{false};  // nothing left but the thread's exit
    };

    boost::asio::awaitable<void> run_void(std::function<void()> call);
    /// Joins the helpers whose calls have returned (so their threads do not pile up).
    void join_finished();

    std::string owner_;
    std::string why_wait_;
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

}  // namespace cdcd
