// Each entry of an OSS notification's `events` decodes on its own: a malformed entry is reported
// with its index and what is wrong, and never hides its valid siblings.
#include <catch2/catch.hpp>

#include "pipeline/util/base64.h"
#include "sources/oss/encoding.h"
#include "sources/oss/event_decoder.h"

using namespace cdcd::oss;
using cdcd::base64_encode;

namespace {

std::string event(const std::string& key) {
    return R"({"eventName":"ObjectCreated:PutObject","eventTime":"2024-01-02T03:04:05.000Z",)"
           R"("region":"cn-hangzhou","oss":{"bucket":{"name":"b1"},"object":{"key":")" +
           key + R"(","size":3,"eTag":"\"E1\""}}})";
}

std::string body_of(const std::vector<std::string>& entries) {
    std::string out = R"({"events":[)";
    for (std::size_t i = 0; i < entries.size(); ++i) out += (i ? "," : "") + entries[i];
    return out + "]}";
}

// The error of the only entry of a body holding `entry`.
std::string entry_error(const std::string& entry) {
    auto entries = decode_message_entries(body_of({entry}));
    REQUIRE(entries.size() == 1);
    CHECK_FALSE(entries[0].event);
    CHECK_FALSE(entries[0].raw.empty());
    return entries[0].error;
}

std::string body_error(const std::string& body) {
    try {
        decode_message_entries(body);
    } catch (const EventDecodeError& e) {
        return e.what();
    }
    FAIL("no EventDecodeError for " << body);
    return {};
}

}  // namespace

TEST_CASE("a bad entry keeps its valid siblings and names its index") {
    std::string bad = R"({"eventName":"ObjectCreated:PutObject","oss":{"bucket":{"name":"b1"},)"
                      R"("object":{"size":1}}})";
    auto entries = decode_message_entries(body_of({event("a"), bad, event("c")}));
    REQUIRE(entries.size() == 3);
    REQUIRE(entries[0].event);
    CHECK(entries[0].event->key == "a");
    CHECK(entries[0].event->etag == "E1");
    CHECK(entries[1].index == 1);
    CHECK_FALSE(entries[1].event);
    CHECK(entries[1].error == "oss.object.key is missing");
    CHECK(
        entries[1].raw ==
        R"({"eventName":"ObjectCreated:PutObject","oss":{"bucket":{"name":"b1"},"object":{"size":1}}})");
    REQUIRE(entries[2].event);
    CHECK(entries[2].event->key == "c");
    CHECK(entries[2].index == 2);
    // The all-or-nothing form names the first bad entry.
    CHECK_THROWS_WITH(decode_message_body(body_of({event("a"), bad})),
                      "event 1: oss.object.key is missing");
}

TEST_CASE("the bad entry survives every delivery form") {
    std::string json = body_of({event("a"), R"({"eventName":"ObjectRemoved:DeleteObject"})"});
    for (const std::string& body :
         {base64_encode(json),
          "<Notification><TopicOwner>1</TopicOwner><Message>" + base64_encode(json) +
              "</Message></Notification>",
          R"({"TopicOwner":"1","Message":")" + base64_encode(json) + R"("})"}) {
        auto entries = decode_message_entries(body);
        REQUIRE(entries.size() == 2);
        CHECK(entries[0].event);
        CHECK(entries[1].error == "oss is missing");
    }
}

TEST_CASE("missing required fields") {
    CHECK(entry_error(R"({"oss":{"bucket":{"name":"b"},"object":{"key":"k"}}})") ==
          "eventName is missing");
    CHECK(entry_error(R"({"eventName":"","oss":{"bucket":{"name":"b"},"object":{"key":"k"}}})") ==
          "eventName is empty");
    CHECK(entry_error(R"({"eventName":"ObjectCreated:PutObject","oss":{"object":{"key":"k"}}})") ==
          "oss.bucket is missing");
    CHECK(entry_error(R"({"eventName":"ObjectCreated:PutObject","oss":{"bucket":{},)"
                      R"("object":{"key":"k"}}})") == "oss.bucket.name is missing");
    CHECK(entry_error(R"({"eventName":"ObjectCreated:PutObject","oss":{"bucket":{"name":"b"}}})") ==
          "oss.object is missing");
    CHECK(entry_error(R"({"eventName":"ObjectCreated:PutObject","oss":{"bucket":{"name":"b"},)"
                      R"("object":{"key":null}}})") == "oss.object.key is missing");
}

TEST_CASE("fields of the wrong type") {
    auto with_object = [](const std::string& object) {
        return R"({"eventName":"ObjectCreated:PutObject","oss":{"bucket":{"name":"b"},"object":)" +
               object + "}}";
    };
    CHECK(entry_error(R"("just a string")") == "the entry is not a JSON object");
    CHECK(entry_error(with_object(R"("k")")) == "oss.object is not an object");
    CHECK(entry_error(with_object(R"({"key":["k"]})")) == "oss.object.key is not a string");
    CHECK(entry_error(with_object(R"({"key":"k","size":"big"})")) ==
          "oss.object.size is not a number: 'big'");
    CHECK(entry_error(with_object(R"({"key":"k","deltaSize":{}})")) ==
          "oss.object.deltaSize is not a number");
    // Found by the mns_message fuzz target: a number past int64 was converted with undefined
    // behaviour (1e25 → whatever the CPU gives) instead of being refused.
    CHECK(entry_error(with_object(R"({"key":"k","size":1e25})"))
              .starts_with("oss.object.size is out of range"));
    CHECK(entry_error(with_object(R"({"key":"k","size":18446744073709551615})")) ==
          "oss.object.size is out of range: 18446744073709551615");
    CHECK(entry_error(with_object(R"({"key":"k","size":"99999999999999999999"})")) ==
          "oss.object.size is not a number: '99999999999999999999'");
    CHECK(entry_error(R"({"eventName":"ObjectCreated:PutObject","eventTime":"yesterday",)"
                      R"("oss":{"bucket":{"name":"b"},"object":{"key":"k"}}})") ==
          "eventTime is not an ISO 8601 time: 'yesterday'");
    CHECK(entry_error(R"({"eventName":true,"oss":{"bucket":{"name":"b"},"object":{"key":"k"}}})") ==
          "eventName is not a string");
    // Numbers where strings are expected are accepted (OSS sends some ids as numbers), and a
    // string of digits where a number is expected.
    auto ok = decode_message_entries(body_of({with_object(R"({"key":123,"size":"42"})")}));
    REQUIRE(ok[0].event);
    CHECK(ok[0].event->key == "123");
    CHECK(ok[0].event->size == 42);
}

TEST_CASE("bodies that are undecodable as a whole") {
    CHECK(body_error(R"({"events":[)").rfind("the body is not valid JSON (", 0) == 0);
    CHECK(body_error("!!! not base64 !!!") ==
          "the body is neither JSON, XML nor base64 of JSON or XML");
    CHECK(body_error(base64_encode("plain words")) ==
          "the body is neither JSON, XML nor base64 of JSON or XML");
    CHECK(body_error(base64_encode(R"({"events":)"))
              .rfind("the base64-decoded body is not valid JSON (", 0) == 0);
    CHECK(body_error("<Notification><Message>%%%</Message></Notification>") ==
          "the Message of its XML topic envelope is neither JSON, XML nor base64 of JSON or XML");
    CHECK(body_error("<Notification><Message>").rfind("the body is not valid XML (", 0) == 0);
    CHECK(body_error("<Other/>") == "the body has the XML root <Other>, expected <Notification>");
    CHECK(body_error(R"({"TopicOwner":"1","Message":5})") ==
          "`Message` of the body (a JSON topic envelope) is missing or not a string");
    CHECK(body_error(R"({"events":{"eventName":"x"}})") == "`events` of the body is not an array");
    CHECK(body_error(R"({"foo":1})") == "the body is JSON without `events` or `Message`");
    auto envelope = [](const std::string& inner) {
        return "<Notification><Message>" + base64_encode(inner) + "</Message></Notification>";
    };
    std::string nested = envelope(envelope(envelope(R"({"events":[]})")));
    CHECK(decode_message_entries(nested).empty());
    CHECK(body_error(envelope(nested)) ==
          "the body nests more than 3 encodings (base64, topic envelopes)");
}
