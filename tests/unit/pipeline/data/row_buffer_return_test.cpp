// Row buffers sent back, from any thread, to the thread that built them: taken into its pool,
// up to the pool's bound.
#include "pipeline/data/row_buffer_return.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

using namespace cdcd;

namespace {

std::vector<std::string> buffers_of(std::size_t count, std::size_t capacity) {
    std::vector<std::string> out(count);
    for (auto& s : out) s.reserve(capacity);
    return out;
}

void empty(RowBufferPool& pool) {
    std::string out;
    while (pool.take(out, 0)) {
    }
}

}  // namespace

TEST_CASE("buffers given back from another thread are taken into the builder's pool") {
    RowBufferReturn home;
    std::thread writer([&] {
        auto buffers = buffers_of(10, 300);
        home.give_back(buffers);
        CHECK(buffers.empty());  // all taken
    });
    writer.join();
    CHECK(home.waiting_bytes() >= 10 * 300);
    RowBufferPool pool;
    home.take_into(pool);
    CHECK(pool.size() == 10);
    CHECK(home.waiting_bytes() == 0);
    home.take_into(pool);  // nothing came back since
    CHECK(pool.size() == 10);
    std::string row;
    CHECK(pool.take(row, 300));
    CHECK(row.capacity() >= 300);
}

TEST_CASE("what would wait past the pool's bound stays with the caller, to be freed there") {
    RowBufferReturn home;
    const std::size_t per_buffer = 4000;
    const std::size_t fit = RowBufferPool::kMaxKeptBytes / per_buffer;
    auto buffers = buffers_of(fit + 5, per_buffer);
    home.give_back(buffers);
    CHECK(buffers.size() >= 5);
    CHECK(buffers.size() <= 6);  // a buffer's capacity may round up past `per_buffer`
    CHECK(home.waiting_bytes() <= RowBufferPool::kMaxKeptBytes);
    // Once taken, there is room again.
    RowBufferPool pool;
    home.take_into(pool);
    auto more = buffers_of(3, per_buffer);
    home.give_back(more);
    CHECK(more.empty());
    empty(pool);
}

TEST_CASE("several builders take from one return at once, each buffer into one pool") {
    // The Kafka source's split readers: a consumer thread each, one return for the source. Two
    // takers once shared take_into's scratch vector outside the lock, and a buffer could land in
    // both pools or in neither.
    RowBufferReturn home;
    constexpr int kRounds = 3000;
    std::atomic<bool> done{false};
    std::atomic<std::size_t> taken{0};
    auto builder = [&] {
        RowBufferPool pool;
        while (!done) {
            home.take_into(pool);
            taken += pool.size();
            empty(pool);
        }
        home.take_into(pool);
        taken += pool.size();
        empty(pool);
    };
    std::thread a(builder), b(builder);
    std::size_t given = 0;
    for (int round = 0; round < kRounds; ++round) {
        auto buffers = buffers_of(64, 100);
        home.give_back(buffers);
        given += 64 - buffers.size();
    }
    done = true;
    a.join();
    b.join();
    CHECK(taken == given);
    CHECK(home.waiting_bytes() == 0);
}
