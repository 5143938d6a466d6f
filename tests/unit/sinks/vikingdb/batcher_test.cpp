#include "sinks/vikingdb/batcher.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <stdexcept>

using namespace cdcd::vikingdb;

namespace {

/// Sends everything ready, in order, and returns "U[k1,k2] D[k3]" ...
std::string drain(Batcher& b) {
    std::string out;
    while (Batch* x = b.take_ready()) {
        if (!out.empty()) out += " ";
        out += x->collection + (x->kind == OpKind::Upsert ? ":U" : ":D") + x->items_json();
        if (x->kind == OpKind::Upsert) {
            out += "=";
            out += x->items_json();
        }
        b.complete(*x);
    }
    return out;
}

/// "U[1,2]" / "D[3]"; "-" for nullptr.
std::string show(const Batch* x) {
    if (x == nullptr) return "-";
    std::string keys = "[";
    for (std::size_t i = 0; i < x->keys.size(); ++i) keys += (i ? "," : "") + x->keys[i];
    return (x->kind == OpKind::Upsert ? "U" : "D") + keys + "]";
}

void upserts(Batcher& b, std::size_t limit, std::initializer_list<int> keys) {
    for (int k : keys) b.add("c", limit, OpKind::Upsert, std::to_string(k), "{}");
}

std::string keys_only(Batcher& b) {
    std::string out;
    while (Batch* x = b.take_ready()) {
        if (!out.empty()) out += " ";
        std::string keys = "[";
        for (std::size_t i = 0; i < x->keys.size(); ++i) keys += (i ? "," : "") + x->keys[i];
        out += (x->kind == OpKind::Upsert ? "U" : "D") + keys + "]";
        b.complete(*x);
    }
    return out;
}

}  // namespace

TEST_CASE("full batches are ready at once, partial ones when sealed") {
    Batcher b(4);
    for (int i = 1; i <= 5; ++i)
        b.add("c", 2, OpKind::Upsert, std::to_string(i), "{\"id\":" + std::to_string(i) + "}");
    CHECK(b.records() == 5);
    CHECK(b.ready_batches() == 2);
    CHECK(keys_only(b) == "U[1,2] U[3,4]");
    CHECK(b.take_ready() == nullptr);  // [5] is open
    b.seal_all();
    CHECK(keys_only(b) == "U[5]");
    CHECK(b.empty());
}

TEST_CASE("a delete of a key in the open upsert batch does not overtake it") {
    Batcher b(4);
    b.add("c", 100, OpKind::Upsert, "1", "{\"id\":1,\"v\":1}");
    b.add("c", 100, OpKind::Upsert, "2", "{\"id\":2}");
    b.add("c", 100, OpKind::Delete, "1", "");
    b.add("c", 100, OpKind::Upsert, "1", "{\"id\":1,\"v\":2}");
    b.seal_all();
    CHECK(keys_only(b) == "U[1,2] D[1] U[1]");
}

TEST_CASE("a later operation on the same key in the open batch replaces the earlier one") {
    Batcher b(4);
    b.add("c", 100, OpKind::Upsert, "1", "{\"v\":1}");
    b.add("c", 100, OpKind::Upsert, "1", "{\"v\":2}");
    b.add("c", 100, OpKind::Upsert, "3", "{\"v\":3}");
    b.seal_all();
    Batch* x = b.take_ready();
    REQUIRE(x);
    CHECK(x->items_json() == "[{\"v\":2},{\"v\":3}]");
    b.complete(*x);
    b.add("c", 100, OpKind::Delete, "\"a\"", "");
    b.add("c", 100, OpKind::Delete, "\"a\"", "");
    b.seal_all();
    x = b.take_ready();
    REQUIRE(x);
    CHECK(x->items_json() == "[\"a\"]");
}

TEST_CASE("nothing is appended to a batch in flight, and collections are independent") {
    Batcher b(4);
    b.add("a", 2, OpKind::Upsert, "1", "{}");
    b.add("a", 2, OpKind::Upsert, "2", "{}");
    Batch* first = b.take_ready();
    REQUIRE(first);
    CHECK(first->keys.size() == 2);
    b.add("a", 2, OpKind::Delete, "1", "");    // behind the in-flight batch
    b.add("b", 1, OpKind::Upsert, "9", "{}");  // vectorize-style limit 1: ready at once
    Batch* next = b.take_ready();
    REQUIRE(next);
    CHECK(next->collection == "b");  // "a" is busy with its front batch
    CHECK(b.take_ready() == nullptr);
    b.complete(*next);
    b.complete(*first);
    b.seal_all();
    Batch* del = b.take_ready();
    REQUIRE(del);
    CHECK(del->kind == OpKind::Delete);
    CHECK(del->keys == std::vector<std::string>{"1"});
}

TEST_CASE("the flush interval seals batches opened before the deadline only") {
    Batcher b(4);
    auto t0 = Batcher::Clock::now();
    b.add("old", 100, OpKind::Upsert, "1", "{}", t0);
    b.add("new", 100, OpKind::Upsert, "2", "{}", t0 + std::chrono::seconds(5));
    b.seal_opened_before(t0 + std::chrono::seconds(1));
    Batch* x = b.take_ready();
    REQUIRE(x);
    CHECK(x->collection == "old");
    b.complete(*x);
    CHECK(b.take_ready() == nullptr);
    Batch queued;  // not a batch the batcher handed out
    queued.collection = "new";
    CHECK_THROWS_AS(b.complete(queued), std::logic_error);
    CHECK(drain(b).empty());
}

TEST_CASE("upsert batches with disjoint keys are all taken before any completes") {
    Batcher b(4);
    upserts(b, 2, {1, 2, 3, 4, 5, 6});
    Batch* x = b.take_ready();
    Batch* y = b.take_ready();
    Batch* z = b.take_ready();
    CHECK(show(x) == "U[1,2]");
    CHECK(show(y) == "U[3,4]");
    CHECK(show(z) == "U[5,6]");
    CHECK(b.in_flight() == 3);
    CHECK(b.take_ready() == nullptr);  // nothing else is queued
    // Nothing is appended to the in-flight batches: key 7 opens a new one.
    upserts(b, 2, {7});
    CHECK(b.batches() == 4);
    CHECK(b.take_ready() == nullptr);  // [7] is open
}

TEST_CASE("a batch sharing a key with an in-flight batch waits until that one completes") {
    Batcher b(4);
    upserts(b, 2, {1, 2});
    Batch* first = b.take_ready();
    REQUIRE(show(first) == "U[1,2]");
    upserts(b, 2, {3, 2});  // full, and key 2 is in flight
    upserts(b, 2, {5, 6});  // full, disjoint
    CHECK(b.ready_batches() == 2);
    Batch* disjoint = b.take_ready();
    CHECK(show(disjoint) == "U[5,6]");  // overtakes [3,2]
    CHECK(b.take_ready() == nullptr);
    b.complete(*disjoint);
    CHECK(b.take_ready() == nullptr);  // completing another batch releases nothing
    b.complete(*first);
    CHECK(show(b.take_ready()) == "U[3,2]");
}

TEST_CASE(
    "a batch sharing a key with an earlier queued batch waits for it, even when that one "
    "waits itself") {
    Batcher b(4);
    upserts(b, 2, {1, 2});
    Batch* b1 = b.take_ready();
    REQUIRE(show(b1) == "U[1,2]");
    upserts(b, 2, {3, 1});  // waits for [1,2] (in flight)
    upserts(b, 2, {4, 3});  // waits for [3,1] (queued, not in flight)
    upserts(b, 2, {8, 9});  // disjoint from all
    CHECK(show(b.take_ready()) == "U[8,9]");
    CHECK(b.take_ready() == nullptr);
    b.complete(*b1);
    Batch* b2 = b.take_ready();
    CHECK(show(b2) == "U[3,1]");
    CHECK(b.take_ready() == nullptr);  // [4,3] still waits for [3,1], now in flight
    b.complete(*b2);
    CHECK(show(b.take_ready()) == "U[4,3]");
}

TEST_CASE(
    "a batch queued behind the in-flight bound still holds back later batches with its keys") {
    Batcher b(2);
    upserts(b, 2, {7, 8, 9, 10});
    Batch* a = b.take_ready();
    Batch* c = b.take_ready();
    REQUIRE(show(a) == "U[7,8]");
    REQUIRE(show(c) == "U[9,10]");
    upserts(b, 2, {1, 2});  // ready, queued only because of the bound
    upserts(b, 2, {3, 1});  // shares key 1 with it
    CHECK_FALSE(b.has_ready());
    CHECK(b.take_ready() == nullptr);
    b.complete(*a);
    Batch* q = b.take_ready();
    CHECK(show(q) == "U[1,2]");
    b.complete(*c);
    CHECK_FALSE(b.has_ready());
    CHECK(b.take_ready() == nullptr);  // a slot is free, but [3,1] waits for [1,2]
    b.complete(*q);
    CHECK(b.has_ready());
    CHECK(show(b.take_ready()) == "U[3,1]");
}

TEST_CASE("a delete behind an upsert of the same key waits, and disjoint batches overtake it") {
    Batcher b(4);
    b.add("c", 100, OpKind::Upsert, "1", "{\"id\":1}");
    b.add("c", 100, OpKind::Upsert, "2", "{\"id\":2}");
    b.add("c", 100, OpKind::Delete, "1", "");  // closes [1,2]
    b.add("c", 100, OpKind::Delete, "9", "");
    b.add("c", 100, OpKind::Upsert, "5", "{\"id\":5}");  // closes D[1,9]
    b.add("c", 100, OpKind::Upsert, "1", "{\"id\":1}");  // [5,1] waits for D[1,9]
    Batch* up = b.take_ready();
    CHECK(show(up) == "U[1,2]");
    CHECK(b.take_ready() == nullptr);  // D[1,9] waits for U[1,2]; U[5,1] is open
    b.complete(*up);
    Batch* del = b.take_ready();
    CHECK(show(del) == "D[1,9]");
    b.seal_all();
    CHECK(b.take_ready() == nullptr);  // U[5,1] waits for the delete of 1
    b.complete(*del);
    CHECK(show(b.take_ready()) == "U[5,1]");

    // And an upsert behind a delete of the same key, with a disjoint delete overtaking it.
    Batcher d(4);
    d.add("c", 100, OpKind::Delete, "3", "");
    d.add("c", 100, OpKind::Upsert, "3", "{}");
    d.add("c", 100, OpKind::Delete, "4", "");
    d.seal_all();
    Batch* d3 = d.take_ready();
    CHECK(show(d3) == "D[3]");
    CHECK(show(d.take_ready()) == "D[4]");
    CHECK(d.take_ready() == nullptr);
    d.complete(*d3);
    CHECK(show(d.take_ready()) == "U[3]");
}

TEST_CASE("out-of-order completion leaves the right batches and counts") {
    Batcher b(4);
    upserts(b, 2, {1, 2, 3, 4, 5, 6, 7});
    CHECK(b.records() == 7);
    CHECK(b.batches() == 4);
    CHECK(b.ready_batches() == 3);
    Batch* b1 = b.take_ready();
    Batch* b2 = b.take_ready();
    Batch* b3 = b.take_ready();
    CHECK(b.ready_batches() == 0);
    CHECK(b.in_flight() == 3);

    b.complete(*b2);
    CHECK(b.records() == 5);
    CHECK(b.batches() == 3);
    CHECK(b.in_flight() == 2);
    CHECK_FALSE(b.empty());
    b.complete(*b3);
    CHECK(b.records() == 3);
    CHECK(b.batches() == 2);
    CHECK(show(b1) == "U[1,2]");  // still valid after the later ones went

    // Keys of completed batches are free again; the key of the batch still in flight is not.
    upserts(b, 2, {4});  // joins [7]: full, nothing to wait for
    Batch* b4 = b.take_ready();
    CHECK(show(b4) == "U[7,4]");
    upserts(b, 2, {1});
    b.seal_all();
    CHECK(b.take_ready() == nullptr);  // [1] waits for [1,2]
    CHECK(b.ready_batches() == 1);
    CHECK(b.records() == 5);

    Batch copy = *b4;  // same collection and keys, but not the batch handed out
    CHECK_THROWS_AS(b.complete(copy), std::logic_error);

    b.complete(*b1);
    Batch* b5 = b.take_ready();
    CHECK(show(b5) == "U[1]");
    b.complete(*b5);
    CHECK(b.records() == 2);
    b.complete(*b4);
    CHECK(b.empty());
    CHECK(b.records() == 0);
    CHECK(b.batches() == 0);
    CHECK(b.in_flight() == 0);
}

TEST_CASE("no more than max_in_flight batches are handed out") {
    Batcher b(2);
    upserts(b, 1, {1, 2, 3, 4});
    b.add("other", 1, OpKind::Upsert, "1", "{}");
    Batch* x = b.take_ready();
    Batch* y = b.take_ready();
    REQUIRE(x);
    REQUIRE(y);
    CHECK(b.in_flight() == 2);
    CHECK(b.take_ready() == nullptr);  // three more are ready
    CHECK(b.ready_batches() == 3);
    b.complete(*y);
    Batch* z = b.take_ready();
    REQUIRE(z);
    CHECK(b.take_ready() == nullptr);
    b.complete(*x);
    b.complete(*z);
    CHECK(b.take_ready() != nullptr);
    CHECK(b.take_ready() != nullptr);
    CHECK(b.take_ready() == nullptr);
    CHECK(b.in_flight() == 2);

    Batcher one(0);  // counts as 1
    upserts(one, 1, {1, 2});
    CHECK(one.take_ready() != nullptr);
    CHECK(one.take_ready() == nullptr);
}

TEST_CASE("random operations on few keys, completed in random order, end in the last write") {
    // Operations on 12 keys of 2 collections; up to 4 batches in flight, completed in random
    // order. A store applies each batch when it completes; no two batches in flight may share a
    // key, and each key's upserts must reach the store in the order they were written.
    for (std::uint32_t seed = 1; seed <= 40; ++seed) {
        std::mt19937 rng(seed);
        Batcher b(4);
        std::map<std::pair<std::string, std::string>, int> expected;  // -1: deleted
        std::map<std::pair<std::string, std::string>, int> store;
        std::map<std::pair<std::string, std::string>, int> last_sent;
        std::vector<Batch*> flying;
        int version = 0;
        auto finish_one = [&](std::size_t i) {
            Batch* x = flying[i];
            for (std::size_t k = 0; k < x->keys.size(); ++k) {
                auto id = std::pair{x->collection, x->keys[k]};
                if (x->kind == OpKind::Upsert)
                    store[id] = std::stoi(x->payloads[k]);
                else
                    store.erase(id);
            }
            b.complete(*x);
            flying.erase(flying.begin() + static_cast<std::ptrdiff_t>(i));
        };
        auto take_all = [&] {
            for (;;) {
                bool expected_ready = b.has_ready();
                Batch* x = b.take_ready();
                REQUIRE(expected_ready == (x != nullptr));
                if (x == nullptr) break;
                for (const Batch* other : flying)
                    if (other->collection == x->collection)
                        for (const auto& k : x->keys)
                            REQUIRE(std::find(other->keys.begin(), other->keys.end(), k) ==
                                    other->keys.end());
                if (x->kind == OpKind::Upsert)
                    for (std::size_t k = 0; k < x->keys.size(); ++k) {
                        auto id = std::pair{x->collection, x->keys[k]};
                        int v = std::stoi(x->payloads[k]);
                        REQUIRE(v > last_sent[id]);
                        last_sent[id] = v;
                    }
                flying.push_back(x);
            }
        };
        for (int step = 0; step < 600; ++step) {
            std::string coll = rng() % 3 == 0 ? "d" : "c";
            std::string key = std::to_string(rng() % 12 + 1);
            bool del = rng() % 4 == 0;
            ++version;
            b.add(coll, 5, del ? OpKind::Delete : OpKind::Upsert, key,
                  del ? std::string() : std::to_string(version));
            expected[{coll, key}] = del ? -1 : version;
            if (rng() % 7 == 0) b.seal_all();
            take_all();
            while (!flying.empty() && rng() % 2 == 0) finish_one(rng() % flying.size());
        }
        b.seal_all();
        for (take_all(); !flying.empty(); take_all()) finish_one(rng() % flying.size());
        REQUIRE(b.empty());
        REQUIRE(b.records() == 0);
        std::erase_if(expected, [](const auto& kv) { return kv.second < 0; });
        CHECK(store == expected);
    }
}
