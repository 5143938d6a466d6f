#include "pipeline/util/blocking_calls.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace cdcd;
using namespace std::chrono_literals;
namespace asio = boost::asio;

TEST_CASE("a blocking call runs off the event loop and resumes its coroutine with its result") {
    asio::io_context io;
    BlockingCalls calls("test");
    const auto loop_thread = std::this_thread::get_id();
    std::atomic<bool> loop_turned{false};
    std::thread::id call_thread, resumed_thread;
    std::optional<int> result;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            result = co_await calls.run([&] {
                call_thread = std::this_thread::get_id();
                // Returns only once the event loop ran something else meanwhile.
                for (int i = 0; i < 10'000 && !loop_turned; ++i) std::this_thread::sleep_for(1ms);
                return loop_turned ? 42 : -1;
            });
            resumed_thread = std::this_thread::get_id();
        },
        asio::detached);
    asio::post(io, [&] { loop_turned = true; });
    io.run();
    CHECK(result == 42);
    CHECK(call_thread != loop_thread);
    CHECK(resumed_thread == loop_thread);
}

TEST_CASE("a blocking call's exception is rethrown in its coroutine") {
    asio::io_context io;
    BlockingCalls calls("test");
    std::string caught;
    bool after = false;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            try {
                co_await calls.run([] { throw std::runtime_error("commit failed"); });
                after = true;
            } catch (const std::runtime_error& e) {
                caught = e.what();
            }
            // The next call after a failed one runs as usual.
            co_await calls.run([] {});
        },
        asio::detached);
    io.run();
    CHECK(caught == "commit failed");
    CHECK_FALSE(after);
}

TEST_CASE("the threads of returned calls are joined as calls go, not kept until teardown") {
    asio::io_context io;
    BlockingCalls calls("test");
    std::size_t threads = 0;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            for (int i = 0; i < 50; ++i) co_await calls.run([] {});
            threads = calls.threads();
        },
        asio::detached);
    io.run();
    // The last calls' threads may still be exiting; kept until teardown, there would be 50.
    CHECK(threads < 10);
}

namespace {

// What the calls use, destroyed after the BlockingCalls that runs them (like a producer).
struct OwnedState {
    explicit OwnedState(std::atomic<bool>& alive) : alive(alive) {}
    ~OwnedState() { alive = false; }
    std::atomic<bool>& alive;
    std::vector<int> touched;
};

struct Owner {
    explicit Owner(std::atomic<bool>& alive) : state(alive) {}
    OwnedState state;
    BlockingCalls calls{"test owner"};
};

}  // namespace

TEST_CASE("destroying the owner of a stopped event loop waits for its calls still running") {
    std::atomic<bool> alive{true};
    bool state_alive_after_sleep = false;
    bool resumed = false;
    std::chrono::steady_clock::duration teardown{};
    {
        asio::io_context io;
        auto owner = std::make_unique<Owner>(alive);
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                OwnedState& state = owner->state;
                co_await owner->calls.run([&state, &state_alive_after_sleep] {
                    std::this_thread::sleep_for(200ms);
                    state_alive_after_sleep = state.alive;
                    state.touched.push_back(1);
                });
                resumed = true;
            },
            asio::detached);
        io.poll();  // the coroutine starts the call and waits
        // As a failing pipeline does: stop the loop, destroy the owner, then the io_context.
        io.stop();
        auto start = std::chrono::steady_clock::now();
        owner.reset();
        teardown = std::chrono::steady_clock::now() - start;
        CHECK_FALSE(alive);
    }
    CHECK(state_alive_after_sleep);
    CHECK(teardown >= 150ms);
    CHECK_FALSE(resumed);  // the stopped loop's destruction destroyed the coroutine instead
}

TEST_CASE("a call awaited within a limit resumes its coroutine with its result") {
    asio::io_context io;
    BlockingCalls calls("test");
    std::optional<int> result;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            // Named arguments: GCC 12 mis-compiles temporaries made inside a co_await expression.
            const std::string what = "the answer";
            auto answer = [] { return 42; };
            result = co_await calls.run_within(5s, what, answer);
        },
        asio::detached);
    io.run();
    CHECK(result == 42);
}

TEST_CASE("a call that outruns its limit fails its coroutine and goes on running") {
    // As librdkafka's send_offsets_to_transaction can, past its own timeout: the coroutine
    // must not wait for ever.
    asio::io_context io;
    BlockingCalls calls("test");
    std::atomic<bool> release{false};
    std::atomic<bool> returned{false};
    bool returned_when_caught = true;
    std::string caught;
    std::chrono::steady_clock::duration waited{};
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            const auto start = std::chrono::steady_clock::now();
            const std::string what = "writing the marker";
            auto stuck = [&] {
                while (!release) std::this_thread::sleep_for(1ms);
                returned = true;
            };
            try {
                co_await calls.run_within(100ms, what, stuck);
            } catch (const CallOverdue& e) {
                caught = e.what();
            }
            waited = std::chrono::steady_clock::now() - start;
            returned_when_caught = returned;
            release = true;  // the loop runs until the call has returned
        },
        asio::detached);
    io.run();
    CHECK(caught == "writing the marker did not return within 100ms");
    CHECK(waited >= 100ms);
    CHECK(waited < 5s);
    CHECK_FALSE(returned_when_caught);
    CHECK(returned);
}

TEST_CASE("a teardown with a limit ends the process when a call does not return by then") {
    // A call that never returns would hold the teardown, and so the daemon, for ever; the owner
    // cannot return either, as the call still uses what the owner is about to destroy.
    const auto start = std::chrono::steady_clock::now();
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        asio::io_context io;
        auto calls = std::make_unique<BlockingCalls>("stuck owner", "", 200ms);
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                co_await calls->run([] {
                    while (true) std::this_thread::sleep_for(10ms);
                });
            },
            asio::detached);
        io.poll();
        io.stop();
        calls.reset();  // ends the process
        std::_Exit(7);  // not reached
    }
    int status = 0;
    pid_t done = 0;
    for (int i = 0; i < 1000 && done == 0; ++i) {
        done = waitpid(child, &status, WNOHANG);
        if (done == 0) std::this_thread::sleep_for(10ms);
    }
    if (done == 0) kill(child, SIGKILL), waitpid(child, &status, 0);
    REQUIRE(done == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(std::chrono::steady_clock::now() - start >= 200ms);
}
