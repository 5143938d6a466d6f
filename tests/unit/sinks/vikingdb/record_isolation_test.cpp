// send_isolating(): a batch refused for the data of some of its records is split until exactly
// those records are found; every other record is delivered; other failures end the search.
#include "sinks/vikingdb/record_isolation.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>
#include <vector>

using namespace cdcd::vikingdb;
namespace asio = boost::asio;

namespace {

/// A server that refuses any request holding one of `bad` (all or nothing, like VikingDB) and,
/// optionally, any request of more than `max_records` records (a size limit).
struct FakeServer {
    std::set<std::size_t> bad;
    std::size_t max_records = SIZE_MAX;
    std::multiset<std::size_t> delivered;
    int requests = 0;

    std::optional<ApiError> send(std::size_t begin, std::size_t end) {
        ++requests;
        bool refused = end - begin > max_records;
        for (std::size_t i = begin; i < end; ++i) refused = refused || bad.count(i) > 0;
        if (refused) return ApiError("refused", 400, "InvalidParameter", "bad record");
        for (std::size_t i = begin; i < end; ++i) delivered.insert(i);
        return std::nullopt;
    }
};

std::vector<std::size_t> isolate(FakeServer& server, std::size_t n) {
    std::vector<std::size_t> rejected;
    SendRange send = [&](std::size_t b, std::size_t e) -> asio::awaitable<std::optional<ApiError>> {
        co_return server.send(b, e);
    };
    OnRejected on = [&](std::size_t i, const ApiError& e) {
        CHECK(e.code() == "InvalidParameter");
        rejected.push_back(i);
    };
    asio::io_context io;
    auto done = asio::co_spawn(io, send_isolating(0, n, send, on), asio::use_future);
    io.run();
    done.get();
    return rejected;
}

}  // namespace

TEST_CASE("an accepted batch is one request") {
    FakeServer server;
    CHECK(isolate(server, 100).empty());
    CHECK(server.requests == 1);
    CHECK(server.delivered.size() == 100);
}

TEST_CASE("the refused records of a batch are isolated, the others delivered exactly once") {
    auto [n, bad] = GENERATE(table<std::size_t, std::set<std::size_t>>({
        {100, {37}},
        {100, {0, 99}},
        {100, {10, 11, 12}},
        {60, {37, 45}},
        {1, {0}},
        {7, {0, 1, 2, 3, 4, 5, 6}},
    }));
    FakeServer server;
    server.bad = bad;
    auto rejected = isolate(server, n);
    CHECK(std::set<std::size_t>(rejected.begin(), rejected.end()) == bad);
    CHECK(rejected.size() == bad.size());  // each once
    for (std::size_t i = 0; i < n; ++i) CHECK(server.delivered.count(i) == (bad.count(i) ? 0 : 1));
    // At most two requests per bisection level for each refused record, plus the first.
    int levels = 0;
    for (std::size_t m = n; m > 1; m = (m + 1) / 2) ++levels;
    CHECK(server.requests <= 1 + 2 * levels * static_cast<int>(bad.size()));
}

TEST_CASE("a batch refused as a whole but accepted in halves loses nothing") {
    FakeServer server;
    server.max_records = 30;
    CHECK(isolate(server, 100).empty());
    CHECK(server.delivered.size() == 100);
    CHECK(std::set<std::size_t>(server.delivered.begin(), server.delivered.end()).size() == 100);
}

TEST_CASE("a failure other than refused data ends the search with its error") {
    int requests = 0;
    SendRange send = [&](std::size_t, std::size_t) -> asio::awaitable<std::optional<ApiError>> {
        ++requests;
        throw ApiError("unauthorized", 401, "Unauthorized", "no");
        co_return std::nullopt;
    };
    OnRejected on = [](std::size_t, const ApiError&) { FAIL("nothing is refused for its data"); };
    asio::io_context io;
    auto done = asio::co_spawn(io, send_isolating(0, 50, send, on), asio::use_future);
    io.run();
    CHECK_THROWS_WITH(done.get(), "unauthorized");
    CHECK(requests == 1);
}

TEST_CASE("a handler that throws (policy fail) stops at the first refused record") {
    FakeServer server;
    server.bad = {5, 40};
    SendRange send = [&](std::size_t b, std::size_t e) -> asio::awaitable<std::optional<ApiError>> {
        co_return server.send(b, e);
    };
    OnRejected on = [](std::size_t i, const ApiError&) {
        throw std::runtime_error("record " + std::to_string(i));
    };
    asio::io_context io;
    auto done = asio::co_spawn(io, send_isolating(0, 50, send, on), asio::use_future);
    io.run();
    CHECK_THROWS_WITH(done.get(), "record 5");
}
