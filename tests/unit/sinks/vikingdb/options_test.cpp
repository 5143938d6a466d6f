#include "sinks/vikingdb/options.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "config/secrets.h"
#include "tests/unit/config/options_block.h"

using namespace cdcd;
using namespace cdcd::vikingdb;

namespace {

config::ValidatedOptions validated(std::map<std::string, std::string> kv, config::Diagnostics& d) {
    return config::test::validate_block(vikingdb_sink_options(), kv, "sink `vikingdb`", d);
}

std::map<std::string, std::string> base() {
    return {{"region", "cn-beijing"},           {"control-plane.host", "http://127.0.0.1:1"},
            {"data-plane.host", "127.0.0.1:1"}, {"api-key", "key-1234"},
            {"access-key", "AK-1234"},          {"secret-key", "SK-1234"}};
}

std::optional<std::string> no_env(const std::string&) {
    return std::nullopt;
}

}  // namespace

TEST_CASE("the option spec is well-formed and has the spec's defaults") {
    CHECK(config::check_spec(vikingdb_sink_options()).empty());
    config::Diagnostics d;
    auto o = validated(base(), d);
    REQUIRE(d.ok());
    VikingdbSettings s = vikingdb_settings(o, no_env);
    CHECK(s.data_scheme == "https");
    CHECK(s.control_scheme == "http");
    CHECK(s.control_host == "127.0.0.1:1");
    CHECK(s.project_name == "default");
    CHECK(s.default_database == "default");
    CHECK(s.auto_create);
    CHECK_FALSE(s.async_upsert);
    CHECK_FALSE(s.ttl_seconds);
    CHECK(s.batch_size == 100);
    CHECK(s.flush_interval == std::chrono::seconds(1));
    CHECK(s.connect_timeout == std::chrono::seconds(10));
    CHECK(s.socket_timeout == std::chrono::seconds(120));
    CHECK(s.read_timeout == std::chrono::seconds(120));
    CHECK(s.max_retries == 3);
    CHECK(s.max_total_connections == 200);
    CHECK(s.max_per_route == 200);
    CHECK(s.connection_ttl == std::chrono::seconds(60));
    CHECK(s.validate_after_inactivity == std::chrono::seconds(10));
    CHECK(s.idle_evict == std::chrono::seconds(30));
    CHECK(s.credentials.api_key == "key-1234");
}

TEST_CASE("ranges: batch size 1..100, ttl > 0, timeouts > 0, retries >= 0") {
    for (auto [key, value] :
         std::vector<std::pair<std::string, std::string>>{{"sink.bulk-flush.batch-size", "0"},
                                                          {"sink.bulk-flush.batch-size", "101"},
                                                          {"ttl", "0"},
                                                          {"connection.timeout", "0s"},
                                                          {"socket.timeout", "0s"},
                                                          {"read.timeout", "0ms"},
                                                          {"max-retries", "-1"},
                                                          {"connection.max-total", "0"},
                                                          {"connection.max-per-route", "0"}}) {
        auto kv = base();
        kv[key] = value;
        config::Diagnostics d;
        validated(kv, d);
        INFO(key << " = " << value);
        CHECK_FALSE(d.ok());
    }
    auto kv = base();
    kv["sink.bulk-flush.interval"] = "0";
    kv["sink.bulk-flush.batch-size"] = "1";
    config::Diagnostics d;
    validated(kv, d);
    CHECK(d.ok());
}

TEST_CASE("credential pairs: one of x / x-env, AK/SK always, errors at the YAML line") {
    SECTION("both api-key and api-key-env") {
        auto kv = base();
        kv["api-key-env"] = "VDB_KEY";
        config::Diagnostics d;
        auto o = validated(kv, d);
        validate_vikingdb_sink(o, d, no_env);
        REQUIRE(d.size() == 1);
        CHECK(d.items()[0].message.find("only one of `api-key` and `api-key-env`") !=
              std::string::npos);
        CHECK(d.items()[0].where.line > 9);
    }
    SECTION("no access key at all") {
        auto kv = base();
        kv.erase("access-key");
        config::Diagnostics d;
        auto o = validated(kv, d);
        validate_vikingdb_sink(o, d, no_env);
        REQUIRE(d.size() == 1);
        CHECK(d.items()[0].message.find("one of `access-key` and `access-key-env` is required") !=
              std::string::npos);
    }
    SECTION("an env variable that is not set") {
        auto kv = base();
        kv.erase("secret-key");
        kv["secret-key-env"] = "VDB_SK_MISSING";
        config::Diagnostics d;
        auto o = validated(kv, d);
        validate_vikingdb_sink(o, d, no_env);
        REQUIRE(d.size() == 1);
        CHECK(d.items()[0].message.find("VDB_SK_MISSING") != std::string::npos);
        CHECK(d.items()[0].where.line == o.location("secret-key-env").line);
    }
    SECTION(
        "env variables are read and registered as secrets; no api key means AK/SK on the data "
        "plane") {
        auto kv = base();
        kv.erase("api-key");
        kv.erase("secret-key");
        kv["secret-key-env"] = "VDB_SK";
        config::Diagnostics d;
        auto o = validated(kv, d);
        auto env = [](const std::string& n) -> std::optional<std::string> {
            if (n == "VDB_SK") return std::string("sk-from-env-98765");
            return std::nullopt;
        };
        validate_vikingdb_sink(o, d, env);
        REQUIRE(d.ok());
        auto s = vikingdb_settings(o, env);
        CHECK(s.credentials.secret_key == "sk-from-env-98765");
        CHECK(s.credentials.api_key.empty());
        CHECK(config::SecretRegistry::instance().contains("sk-from-env-98765"));
        CHECK(o.dump().find("SK-1234") == std::string::npos);
    }
}

TEST_CASE("field overrides and vectorize keys are checked") {
    auto kv = base();
    kv["vikingdb.field.emb.type"] = "vector";
    kv["vikingdb.field.emb.dim"] = "8";
    kv["vikingdb.field.tags.type"] = "list_string";
    kv["vikingdb.vectorize.dense.model-name"] = "bge";
    config::Diagnostics d;
    auto o = validated(kv, d);
    validate_vikingdb_sink(o, d, no_env);
    REQUIRE(d.ok());
    auto s = vikingdb_settings(o, no_env);
    CHECK(s.fields.at("emb").type == "vector");
    CHECK(s.fields.at("emb").dim == 8);
    CHECK(s.fields.at("tags").type == "list_string");
    CHECK(s.vectorize.at("dense.model-name") == "bge");

    CHECK_THROWS_WITH(parse_field_overrides({{"x.type", "map"}}),
                      Catch::Contains("unknown type 'map'"));
    CHECK_THROWS_WITH(parse_field_overrides({{"x.dim", "6"}}), Catch::Contains("multiple of 4"));
    CHECK_THROWS_WITH(parse_field_overrides({{"x.size", "6"}}),
                      Catch::Contains("expected type or dim"));

    kv["async"] = "true";
    kv["vikingdb.vectorize.other.model"] = "x";
    config::Diagnostics d2;
    auto o2 = validated(kv, d2);
    validate_vikingdb_sink(o2, d2, no_env);
    CHECK(d2.size() == 2);
    CHECK(d2.to_string().find("async") != std::string::npos);
    CHECK(d2.to_string().find("vikingdb.vectorize.dense.<param>") != std::string::npos);
}

TEST_CASE("vectorize keys: the spec's flat <param>, <kind>.<param>, or <kind> as a JSON object") {
    auto kv = base();
    kv["vikingdb.vectorize.model-name"] = "doubao-embedding";  // spec: vikingdb.vectorize.<param>
    kv["vikingdb.vectorize.sparse"] = R"({"ModelName": "bge-m3"})";
    config::Diagnostics d;
    auto o = validated(kv, d);
    validate_vikingdb_sink(o, d, no_env);
    CHECK(d.ok());
    CHECK(vectorize_kind("model-name") == "Dense");
    CHECK(vectorize_kind("Sparse.ModelName") == "Sparse");
    CHECK(!vectorize_kind("other.x"));

    kv["vikingdb.vectorize.sparse.model-version"] = "1";  // Sparse given twice
    kv["vikingdb.vectorize.dense"] = "not json";          // and Dense (with model-name)
    config::Diagnostics d2;
    auto o2 = validated(kv, d2);
    validate_vikingdb_sink(o2, d2, no_env);
    CHECK(d2.size() == 3);
    CHECK(d2.to_string().find("Vectorize.Sparse is given both as") != std::string::npos);
    CHECK(d2.to_string().find("Vectorize.Dense is given both as") != std::string::npos);
    CHECK(d2.to_string().find("`vikingdb.vectorize.dense` must be a JSON object") !=
          std::string::npos);
}

TEST_CASE("every option of spec 002's tables is declared with the spec's default") {
    // {name, default ("" for none)}, row by row from the spec's 连接与鉴权, Collection 与写入 and
    // 连接参数 tables (`type` is the factory's). Required options: region and both hosts.
    const std::vector<std::pair<std::string, std::string>> spec_table = {
        {"region", ""},
        {"control-plane.host", ""},
        {"data-plane.host", ""},
        {"data-plane.scheme", "https"},
        {"api-key", ""},
        {"api-key-env", ""},
        {"access-key", ""},
        {"access-key-env", ""},
        {"secret-key", ""},
        {"secret-key-env", ""},
        {"collection-name-template", ""},
        {"resource-id", ""},
        {"project-name", "default"},
        {"default-database", "default"},
        {"auto-create-table", "true"},
        {"ttl", ""},
        {"async", "false"},
        {"sink.bulk-flush.batch-size", "100"},
        {"sink.bulk-flush.interval", "1s"},
        {"sink.ignore-update-before", "false"},
        {"sink.ignore-delete", "false"},
        {"connection.timeout", "10s"},
        {"socket.timeout", "120s"},
        {"read.timeout", "120s"},
        {"max-retries", "3"},
        {"connection.max-total", "200"},
        {"connection.max-per-route", "200"},
        {"connection.time-to-live", "60s"},
        {"connection.validate-after-inactivity", "10s"},
        {"connection.idle-evict", "30s"},
    };
    // cdcd's own additions, documented as extensions in docs/vikingdb.md.
    const std::set<std::string> extensions = {"retry.initial-backoff", "retry.max-backoff"};
    auto spec = vikingdb_sink_options();
    std::map<std::string, const config::OptionSpec*> declared;
    for (const auto& o : spec.options) declared[o.key] = &o;
    for (const auto& [name, dflt] : spec_table) {
        INFO(name);
        REQUIRE(declared.count(name));
        CHECK(declared[name]->default_value.value_or("") == dflt);
        CHECK(declared[name]->required ==
              (name == "region" || name == "control-plane.host" || name == "data-plane.host"));
    }
    for (const auto& [name, o] : declared) {
        INFO(name);
        bool in_spec =
            std::any_of(spec_table.begin(), spec_table.end(),
                        [&, &name = name](const auto& row) { return row.first == name; });
        CHECK((in_spec || extensions.count(name)));
    }
    std::vector<std::string> prefixes;
    for (const auto& p : spec.prefixes) prefixes.push_back(p.prefix);
    CHECK(prefixes == std::vector<std::string>{"vikingdb.field.", "vikingdb.vectorize."});
}
