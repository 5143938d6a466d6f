// A thread's kept row buffers: what is kept, what is freed, and rows built in kept buffers.
#include "pipeline/data/row_buffer_pool.h"

#include <catch2/catch.hpp>
#include <thread>

#include "pipeline/data/row.h"

using namespace cdcd;

namespace {

std::string buffer_of(std::size_t capacity) {
    std::string s;
    s.reserve(capacity);
    s.assign(10, 'x');
    return s;
}

}  // namespace

TEST_CASE("a kept buffer comes back empty with its capacity, and a too small one is dropped") {
    RowBufferPool pool;
    std::string out;
    CHECK_FALSE(pool.take(out, 16));  // nothing kept
    std::string big = buffer_of(300);
    const char* bytes = big.data();
    pool.give(std::move(big));
    REQUIRE(pool.size() == 1);
    CHECK(pool.kept_bytes() >= 300);
    REQUIRE(pool.take(out, 200));
    CHECK(out.empty());
    CHECK(out.capacity() >= 300);
    CHECK(out.data() == bytes);
    CHECK(pool.size() == 0);
    CHECK(pool.kept_bytes() == 0);

    pool.give(buffer_of(100));
    std::string other;
    CHECK_FALSE(pool.take(other, 200));  // too small: dropped, not kept to block the others
    CHECK(pool.size() == 0);
}

TEST_CASE("short strings, large buffers and buffers past the bound are not kept") {
    RowBufferPool pool;
    pool.give(std::string("short"));  // its bytes are inside the string object
    pool.give(buffer_of(RowBufferPool::kMaxBufferBytes + 1));
    CHECK(pool.size() == 0);
    while (pool.kept_bytes() + RowBufferPool::kMaxBufferBytes <= RowBufferPool::kMaxKeptBytes)
        pool.give(buffer_of(RowBufferPool::kMaxBufferBytes));
    const std::size_t kept = pool.size();
    pool.give(buffer_of(RowBufferPool::kMaxBufferBytes));
    CHECK(pool.size() == kept);
    CHECK(pool.kept_bytes() <= RowBufferPool::kMaxKeptBytes);
}

TEST_CASE("a pool told to keep more keeps more, and never less than its bound") {
    RowBufferPool pool;
    pool.keep_up_to(2 * RowBufferPool::kMaxKeptBytes);
    pool.keep_up_to(RowBufferPool::kMaxKeptBytes / 2);  // never lowered
    while (pool.kept_bytes() + RowBufferPool::kMaxBufferBytes <= 2 * RowBufferPool::kMaxKeptBytes)
        pool.give(buffer_of(RowBufferPool::kMaxBufferBytes));
    CHECK(pool.kept_bytes() > RowBufferPool::kMaxKeptBytes + RowBufferPool::kMaxKeptBytes / 2);
    const std::size_t kept = pool.size();
    pool.give(buffer_of(RowBufferPool::kMaxBufferBytes));
    CHECK(pool.size() == kept);
}

TEST_CASE("rows are built in the thread's kept buffers, and each thread has its own") {
    RowBuilder first(2, 64);
    first.set_long(0, 7).set_string(1, std::string(60, 'a'));
    Row row = std::move(first).build();
    const char* bytes = row.bytes().data();
    const std::size_t kept_before = RowBufferPool::this_thread().size();  // other tests' rows
    RowBufferPool::this_thread().give(std::move(row).release());

    bool other_thread_used_it = true;
    std::thread([&] {
        RowBuilder b(2, 64);
        b.set_long(0, 1).set_string(1, "b");
        other_thread_used_it = std::move(b).build().bytes().data() == bytes;
    }).join();
    CHECK_FALSE(other_thread_used_it);

    RowBuilder second(2, 64);
    second.set_long(0, 8).set_null(1);
    Row again = std::move(second).build();
    CHECK(again.bytes().data() == bytes);
    CHECK(again.view().get_long(0) == 8);
    CHECK(again.view().is_null(1));
    CHECK(RowBufferPool::this_thread().size() == kept_before);
}
