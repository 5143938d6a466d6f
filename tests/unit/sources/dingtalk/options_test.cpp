#include "sources/dingtalk/options.h"

#include <catch2/catch.hpp>

#include "config/option_validator.h"
#include "config/secrets.h"
#include "pipeline/connector/registry.h"

using namespace cdcd;
using namespace cdcd::dingtalk;

namespace {

struct Checked {
    config::ValidatedOptions options;
    config::Diagnostics diags;
};

Checked check(std::map<std::string, std::string> values) {
    config::RawOptions raw;
    int line = 1;
    for (auto& [k, v] : values)
        raw[k] = config::RawValue{v, config::SourceLocation{"p.yaml", ++line, 3}};
    Checked c;
    c.options = config::validate_options(option_spec(), raw, config::SourceLocation{"p.yaml", 1, 1},
                                         "source `dingtalk-cdc`", c.diags);
    if (c.diags.ok()) validate(c.options, c.diags);
    return c;
}

std::map<std::string, std::string> minimal() {
    return {{"object-type", "document"},
            {"app-key", "dingkey"},
            {"app-secret", "topsecret-value-42"},
            {"operator-id", "union1"}};
}

}  // namespace

TEST_CASE("the option declaration is well formed and holds the spec's table") {
    auto spec = option_spec();
    CHECK(config::check_spec(spec).empty());
    for (const char* key : {"object-type",
                            "app-key",
                            "app-secret",
                            "operator-id",
                            "endpoint",
                            "workspace-id",
                            "scan.document.exclude-node-ids",
                            "scan.discovery.max-depth",
                            "scan.discovery.max-nodes",
                            "scan.startup.mode",
                            "scan.discovery.interval",
                            "scan.poll-interval",
                            "scan.prefix-size",
                            "scan.document.consistency.max-retries",
                            "scan.document.fetch.max-duration",
                            "scan.document.max-bytes",
                            "scan.block.fetch-size",
                            "scan.block.max-pages",
                            "scan.block.include-raw-json",
                            "request.timeout",
                            "request.max-retries",
                            "request.retry-after.max-delay",
                            "scan.discovery.rate-limit.requests-per-second",
                            "scan.metadata.rate-limit.requests-per-second",
                            "scan.content.rate-limit.requests-per-second",
                            "scan.fetch.rate-limit.requests-per-second",
                            "scan.document.emit-deletes"}) {
        INFO(key);
        CHECK(spec.find(key) != nullptr);
    }
    CHECK(spec.find("app-secret")->secret);
}

TEST_CASE("defaults follow the spec") {
    auto c = check(minimal());
    REQUIRE(c.diags.ok());
    DingTalkOptions o = read_options(c.options);
    CHECK(o.endpoint == "https://api.dingtalk.com");
    CHECK(o.workspace_ids.empty());
    CHECK(o.max_depth == 100);
    CHECK(o.max_nodes == 100000);
    CHECK(o.startup_mode == StartupMode::Initial);
    CHECK(o.discovery_interval == std::chrono::minutes(1));
    CHECK(o.poll_interval == std::chrono::seconds(10));
    CHECK(o.prefix_size == 100);
    CHECK(o.consistency_max_retries == 3);
    CHECK(o.fetch_max_duration == std::chrono::minutes(10));
    CHECK(o.document_max_bytes == 52428800);
    CHECK(o.block_fetch_size == 10);
    CHECK(o.block_max_pages == 1000);
    CHECK(!o.include_raw_json);
    CHECK(!o.emit_deletes);
    CHECK(o.request_timeout == std::chrono::seconds(30));
    CHECK(o.request_max_retries == 3);
    CHECK(o.retry_after_max_delay == std::chrono::seconds(60));
    CHECK(o.discovery_rps == 5);
    CHECK(o.metadata_rps == 20);
    CHECK(o.content_rps == 10);
    CHECK(o.fetch_rps == 10);
}

TEST_CASE("values are parsed and lists split") {
    auto v = minimal();
    v["workspace-id"] = "ws1, ws2";
    v["scan.document.exclude-node-ids"] = "n1,n2";
    v["scan.startup.mode"] = "latest-offset";
    v["scan.poll-interval"] = "500ms";
    v["endpoint"] = "http://127.0.0.1:8080/";
    v["scan.block.include-raw-json"] = "true";
    auto c = check(v);
    REQUIRE(c.diags.ok());
    auto o = read_options(c.options);
    CHECK(o.workspace_ids == std::vector<std::string>{"ws1", "ws2"});
    CHECK(o.exclude_node_ids == std::vector<std::string>{"n1", "n2"});
    CHECK(o.startup_mode == StartupMode::LatestOffset);
    CHECK(o.poll_interval == std::chrono::milliseconds(500));
    CHECK(o.endpoint == "http://127.0.0.1:8080");
    CHECK(o.include_raw_json);
}

TEST_CASE("endpoint may be the domain name alone, as the spec describes it") {
    auto v = minimal();
    v["endpoint"] = "api.dingtalk.com";
    auto c = check(v);
    REQUIRE(c.diags.ok());
    CHECK(read_options(c.options).endpoint == "https://api.dingtalk.com");
}

TEST_CASE("mistakes are reported") {
    SECTION("missing required options") {
        auto c = check({{"object-type", "document"}});
        CHECK(c.diags.size() == 3);
        CHECK(c.diags.to_string().find("app-secret") != std::string::npos);
    }
    SECTION("timestamp startup mode is refused with the reason") {
        auto v = minimal();
        v["scan.startup.mode"] = "timestamp";
        auto c = check(v);
        REQUIRE(c.diags.size() == 1);
        CHECK(c.diags.to_string().find("cannot read a document's historical content") !=
              std::string::npos);
    }
    SECTION("unknown object type, bad numbers, bad endpoint") {
        auto v = minimal();
        v["object-type"] = "sheet";
        v["scan.prefix-size"] = "0";
        v["scan.block.fetch-size"] = "ten";
        v["scan.discovery.rate-limit.requests-per-second"] = "0";
        auto c = check(v);
        CHECK(c.diags.size() == 4);
        auto w = minimal();
        w["endpoint"] = "ftp://x";
        CHECK(check(w).diags.to_string().find("endpoint") != std::string::npos);
    }
    SECTION("the secret never appears in messages or dumps") {
        auto v = minimal();
        v["scan.prefix-size"] = "-1";
        auto c = check(v);
        CHECK(c.options.dump().find("topsecret-value-42") == std::string::npos);
        CHECK(config::SecretRegistry::instance().contains("topsecret-value-42"));
    }
}

namespace cdcd {
void register_dingtalk_source(ConnectorRegistry& registry);
}

TEST_CASE("the source is registered under dingtalk-cdc") {
    ConnectorRegistry registry;
    register_dingtalk_source(registry);
    const SourceFactory* f = registry.source("dingtalk-cdc");
    REQUIRE(f != nullptr);
    CHECK(f->options.find("app-secret")->secret);
}
