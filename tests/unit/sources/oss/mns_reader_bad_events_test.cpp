// What the MNS reader does with a message holding an undecodable event: its valid events are
// emitted, and the bad one goes to the source's single decision point (on_bad_event), which
// fails by default, naming the queue, the message and the event index.
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <variant>

#include "sources/oss/mns_reader.h"

using namespace cdcd;
using namespace cdcd::oss;

namespace {

const std::string kGood =
    R"({"eventName":"ObjectCreated:PutObject","eventTime":"2024-01-02T03:04:05.000Z",)"
    R"("oss":{"bucket":{"name":"b1"},"object":{"key":"good/1","size":3}}})";
const std::string kNoKey =
    R"({"eventName":"ObjectCreated:PutObject","oss":{"bucket":{"name":"b1"},"object":{}}})";

MnsMessage message(std::string body) {
    MnsMessage m;
    m.message_id = "MSG-42";
    m.receipt_handle = "1-h";
    m.body = std::move(body);
    m.enqueue_time_ms = 1'700'000'000'000;
    return m;
}

std::vector<std::string> keys_of(const EventBatch& batch) {
    std::vector<std::string> keys;
    for (const auto& e : batch)
        if (const auto* d = std::get_if<DataChangeEvent>(&e))
            keys.emplace_back(d->after->view().get_string(0));
    return keys;
}

struct Decision {
    BadEventPosition position;
    std::string error;
    std::string raw;
};

struct Fixture {
    boost::asio::io_context io;
    std::unique_ptr<SourceContext> ctx;
    MnsState state;
    HeldMessages held;
    std::unique_ptr<MnsReader> reader;
    std::vector<Decision> decisions;

    Fixture() {
        OssSettings s;
        s.mns_queue = "q1";
        ctx = std::make_unique<SourceContext>(io, s);
        reader = std::make_unique<MnsReader>(*ctx, state, held);
    }
    // A policy that drops the event (what `skip` will do), recording the decision.
    void skip_bad_events() {
        ctx->on_bad_event = [this](const BadEventPosition& p, const std::string& e,
                                   std::string_view raw) {
            decisions.push_back({p, e, std::string(raw)});
        };
    }
};

}  // namespace

TEST_CASE("MNS: by default an undecodable event stops the source, after its valid siblings") {
    Fixture f;
    EventBatch batch;
    std::string body = R"({"events":[)" + kGood + "," + kNoKey + "]}";
    CHECK_THROWS_WITH(f.reader->events_of(message(body), batch),
                      Catch::Contains("MNS queue q1, message MSG-42, event 1: "
                                      "oss.object.key is missing") &&
                          Catch::Contains("not deleted"));
    CHECK(keys_of(batch) == std::vector<std::string>{"good/1"});
    CHECK_THROWS_AS(f.reader->events_of(message(body), batch), BadEventError);
}

TEST_CASE("MNS: valid events after a bad one are emitted before the decision") {
    Fixture f;
    EventBatch batch;
    std::string body = R"({"events":[)" + kNoKey + "," + kGood + "]}";
    CHECK_THROWS_AS(f.reader->events_of(message(body), batch), BadEventError);
    CHECK(keys_of(batch) == std::vector<std::string>{"good/1"});
}

TEST_CASE("MNS: a policy that drops bad events keeps every valid one") {
    Fixture f;
    f.skip_bad_events();
    EventBatch batch;
    std::string body = R"({"events":[)" + kGood + "," + kNoKey + "," + kNoKey + "]}";
    CHECK(f.reader->events_of(message(body), batch));
    CHECK(keys_of(batch) == std::vector<std::string>{"good/1"});
    REQUIRE(f.decisions.size() == 2);
    CHECK(f.decisions[0].position.queue == "q1");
    CHECK(f.decisions[0].position.message_id == "MSG-42");
    CHECK(f.decisions[0].position.event_index == 1u);
    CHECK(f.decisions[1].position.event_index == 2u);
    CHECK(f.decisions[0].error == "oss.object.key is missing");
    CHECK(f.decisions[0].raw == kNoKey);
}

TEST_CASE("MNS: an undecodable body is one decision about the whole message") {
    Fixture f;
    f.skip_bad_events();
    EventBatch batch;
    CHECK_FALSE(f.reader->events_of(message("not an event"), batch));
    CHECK(batch.empty());
    REQUIRE(f.decisions.size() == 1);
    CHECK_FALSE(f.decisions[0].position.event_index);
    CHECK(f.decisions[0].position.str() == "MNS queue q1, message MSG-42, the whole body");
    CHECK(f.decisions[0].error == "the body is neither JSON, XML nor base64 of JSON or XML");
    CHECK(f.decisions[0].raw == "not an event");

    Fixture failing;
    CHECK_THROWS_WITH(failing.reader->events_of(message("not an event"), batch),
                      Catch::Contains("MNS queue q1, message MSG-42, the whole body: the body is "
                                      "neither JSON, XML nor base64 of JSON or XML"));
}

TEST_CASE("MNS: a message received after a checkpoint's state is deleted only with the next one") {
    // A message whose bad event was dropped is held like any other: it joins the group of the
    // checkpoint whose state is taken after the decision, and is deleted only when that
    // checkpoint completes.
    HeldMessages held;
    held.add("before", "1-a", 0);
    held.seal();  // checkpoint 1's state
    held.add("decided", "1-b", 0);
    CHECK(held.sealed() == 1);
    auto handles = [](std::vector<HeldMessages::Taken> taken) {
        std::vector<std::string> out;
        for (auto& t : taken) out.push_back(t.held.handle);
        return out;
    };
    CHECK(handles(held.take_oldest_sealed()) == std::vector<std::string>{"1-a"});  // checkpoint 1
    CHECK(held.released() == 1);
    CHECK(held.take_oldest_sealed().empty());  // nothing sealed yet: "decided" stays
    CHECK(held.find("decided"));
    held.seal();  // checkpoint 2's state
    CHECK(handles(held.take_oldest_sealed()) == std::vector<std::string>{"1-b"});
    CHECK(held.released() == 2);
}

TEST_CASE("MNS: messages whose delete failed are held again and taken with the next checkpoint") {
    HeldMessages held;
    held.add("m1", "h1", 100);
    held.add("m2", "h2", 200);
    held.seal();
    auto taken = held.take_oldest_sealed();
    REQUIRE(taken.size() == 2);
    CHECK(held.size() == 0);
    held.hold_again(taken);  // MNS was unreachable
    REQUIRE(held.find("m1"));
    CHECK(held.find("m1")->handle == "h1");
    CHECK(held.find("m2")->next_visible_ms == 200);
    CHECK(held.expiring(150) == std::vector<std::string>{"m1"});  // still kept invisible
    CHECK(held.take_oldest_sealed().empty());  // in the current group, not a sealed one
    held.seal();
    CHECK(held.take_oldest_sealed().size() == 2);
    CHECK(held.size() == 0);
}
