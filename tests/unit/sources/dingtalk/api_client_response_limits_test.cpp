// Designated initializers name only the fields a test cares about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
// DingTalk answers are bounded: a block page by scan.document.max-bytes (the document is then too
// large, read again on its own schedule), every other answer by a fixed 4 MiB (a fatal error,
// not retried at every poll).
#include <catch2/catch.hpp>
#include <string>

#include "metrics/connector_metrics.h"
#include "sources/dingtalk/api_client.h"
#include "sources/dingtalk/block_fetcher.h"
#include "tests/unit/net/loopback_server.h"

using namespace cdcd;
using namespace cdcd::dingtalk;
using net::test::LoopbackServer;
using net::test::Reply;
using net::test::SeenRequest;

namespace {

const std::string kNode = R"({"node":{"nodeId":"d1","workspaceId":"w1","name":"doc","type":"FILE",)"
                          R"("modifiedTimestamp":1700000000000}})";

// A DingTalk stand-in: tokens, one node, and `blocks` as the answer of every block page.
struct FakeDingTalk {
    explicit FakeDingTalk(boost::asio::io_context& io)
        : server(io, [this](const SeenRequest& r) { return answer(r); }) {}

    Reply answer(const SeenRequest& r) {
        if (r.target.starts_with("/v1.0/oauth2/accessToken"))
            return Reply{.body = token.empty() ? R"({"accessToken":"t","expireIn":7200})" : token};
        if (r.target.starts_with("/v2.0/wiki/nodes/")) return Reply{.body = node};
        if (r.target.find("/blocks") != std::string::npos) return Reply{.body = blocks};
        return Reply{.status = 404, .body = R"({"code":"nodeNotExist"})"};
    }

    std::string token, node = kNode, blocks = R"({"result":{"data":[]}})";
    LoopbackServer server;
};

DingTalkOptions options_for(const FakeDingTalk& fake) {
    DingTalkOptions o;
    o.app_key = "k-" + fake.server.url("");  // its own rate limiters
    o.app_secret = "s";
    o.operator_id = "op";
    o.endpoint = fake.server.url("");  // "http://127.0.0.1:port"
    o.request_max_retries = 3;
    o.document_max_bytes = 1 << 20;
    return o;
}

std::string big_block_page(std::size_t bytes) {
    return R"({"result":{"data":[{"blockType":"paragraph","text":")" + std::string(bytes, 'x') +
           R"("}]}})";
}

}  // namespace

TEST_CASE("a block page over scan.document.max-bytes makes the document too large") {
    boost::asio::io_context io;
    FakeDingTalk fake(io);
    fake.blocks = big_block_page(3 << 20);  // over 1 MiB of document + 1 MiB of envelope
    net::HttpClient http(io);
    metrics::ConnectorMetrics m(metrics::Registry::detached(), metrics::Role::Source, "dingtalk");
    DingTalkOptions options = options_for(fake);
    DingTalkApi api(
        http, options, [] { return false; }, m);
    FetchedDocument doc;
    net::test::run(io, [&]() -> boost::asio::awaitable<void> {
        doc = co_await fetch_document(api, "d1",
                                      FetchLimits{.max_bytes = options.document_max_bytes});
    });
    CHECK(doc.status == FetchStatus::TooLarge);
    CHECK_THAT(doc.detail, Catch::Matchers::Contains("DocBlocksQuery") &&
                               Catch::Matchers::Contains("/blocks") &&
                               Catch::Matchers::Contains("2097152 bytes (2 MiB)") &&
                               Catch::Matchers::Contains("scan.document.max-bytes"));
    CHECK_THAT(doc.detail, !Catch::Matchers::Contains("operatorId"));
    CHECK(fake.server.requests == 3);  // token, node, one block page: not retried
}

TEST_CASE("a block page within the limit is read") {
    boost::asio::io_context io;
    FakeDingTalk fake(io);
    fake.blocks = big_block_page(512 << 10);
    net::HttpClient http(io);
    metrics::ConnectorMetrics m(metrics::Registry::detached(), metrics::Role::Source, "dingtalk");
    DingTalkOptions options = options_for(fake);
    DingTalkApi api(
        http, options, [] { return false; }, m);
    std::vector<std::string> blocks;
    net::test::run(
        io, [&]() -> boost::asio::awaitable<void> { blocks = co_await api.blocks("d1", 0, 9); });
    CHECK(blocks.size() == 1);
}

TEST_CASE("any other answer over 4 MiB is a fatal error naming the limit, not retried") {
    boost::asio::io_context io;
    FakeDingTalk fake(io);
    fake.node = std::string(kApiResponseLimit + 1, ' ');
    net::HttpClient http(io);
    metrics::ConnectorMetrics m(metrics::Registry::detached(), metrics::Role::Source, "dingtalk");
    DingTalkOptions options = options_for(fake);
    DingTalkApi api(
        http, options, [] { return false; }, m);
    try {
        net::test::run(io, [&]() -> boost::asio::awaitable<void> { co_await api.get_node("d1"); });
        FAIL("no error");
    } catch (const ApiError& e) {
        CHECK(e.cls() == ErrorClass::Fatal);
        CHECK_THAT(e.what(),
                   Catch::Matchers::Contains("dingtalk-cdc: DingTalk GetNode") &&
                       Catch::Matchers::Contains("4194304 bytes (4 MiB)") &&
                       Catch::Matchers::Contains("the dingtalk-cdc source's fixed limit"));
    }
    CHECK(fake.server.requests == 2);  // the token, the node once
}

TEST_CASE("an access-token answer over 4 MiB is fatal") {
    boost::asio::io_context io;
    FakeDingTalk fake(io);
    fake.token = std::string(kApiResponseLimit + 1, ' ');
    net::HttpClient http(io);
    metrics::ConnectorMetrics m(metrics::Registry::detached(), metrics::Role::Source, "dingtalk");
    DingTalkOptions options = options_for(fake);
    DingTalkApi api(
        http, options, [] { return false; }, m);
    try {
        net::test::run(io, [&]() -> boost::asio::awaitable<void> { co_await api.get_node("d1"); });
        FAIL("no error");
    } catch (const ApiError& e) {
        CHECK(e.cls() == ErrorClass::Fatal);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("GetAccessToken"));
    }
    CHECK(fake.server.requests == 1);
}
