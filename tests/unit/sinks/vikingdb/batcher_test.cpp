#include "sinks/vikingdb/batcher.h"

#include <catch2/catch.hpp>

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
        b.complete(x->collection);
    }
    return out;
}

std::string keys_only(Batcher& b) {
    std::string out;
    while (Batch* x = b.take_ready()) {
        if (!out.empty()) out += " ";
        std::string keys = "[";
        for (std::size_t i = 0; i < x->keys.size(); ++i) keys += (i ? "," : "") + x->keys[i];
        out += (x->kind == OpKind::Upsert ? "U" : "D") + keys + "]";
        b.complete(x->collection);
    }
    return out;
}

}  // namespace

TEST_CASE("full batches are ready at once, partial ones when sealed") {
    Batcher b;
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
    Batcher b;
    b.add("c", 100, OpKind::Upsert, "1", "{\"id\":1,\"v\":1}");
    b.add("c", 100, OpKind::Upsert, "2", "{\"id\":2}");
    b.add("c", 100, OpKind::Delete, "1", "");
    b.add("c", 100, OpKind::Upsert, "1", "{\"id\":1,\"v\":2}");
    b.seal_all();
    CHECK(keys_only(b) == "U[1,2] D[1] U[1]");
}

TEST_CASE("a later operation on the same key in the open batch replaces the earlier one") {
    Batcher b;
    b.add("c", 100, OpKind::Upsert, "1", "{\"v\":1}");
    b.add("c", 100, OpKind::Upsert, "1", "{\"v\":2}");
    b.add("c", 100, OpKind::Upsert, "3", "{\"v\":3}");
    b.seal_all();
    Batch* x = b.take_ready();
    REQUIRE(x);
    CHECK(x->items_json() == "[{\"v\":2},{\"v\":3}]");
    b.complete("c");
    b.add("c", 100, OpKind::Delete, "\"a\"", "");
    b.add("c", 100, OpKind::Delete, "\"a\"", "");
    b.seal_all();
    x = b.take_ready();
    REQUIRE(x);
    CHECK(x->items_json() == "[\"a\"]");
}

TEST_CASE(
    "nothing is appended to a batch in flight, order per collection, collections independent") {
    Batcher b;
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
    b.complete("b");
    b.complete("a");
    b.seal_all();
    Batch* del = b.take_ready();
    REQUIRE(del);
    CHECK(del->kind == OpKind::Delete);
    CHECK(del->keys == std::vector<std::string>{"1"});
}

TEST_CASE("the flush interval seals batches opened before the deadline only") {
    Batcher b;
    auto t0 = Batcher::Clock::now();
    b.add("old", 100, OpKind::Upsert, "1", "{}", t0);
    b.add("new", 100, OpKind::Upsert, "2", "{}", t0 + std::chrono::seconds(5));
    b.seal_opened_before(t0 + std::chrono::seconds(1));
    Batch* x = b.take_ready();
    REQUIRE(x);
    CHECK(x->collection == "old");
    b.complete("old");
    CHECK(b.take_ready() == nullptr);
    CHECK_THROWS(b.complete("new"));
    CHECK(drain(b).empty());
}
