#include "config/secrets.h"

#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "config/option_validator.h"
#include "test_helpers.h"

using namespace cdcd::config;
using Catch::Contains;

TEST_CASE("registered secrets are redacted, short ones are ignored", "[config][secrets]") {
    auto& reg = SecretRegistry::instance();
    reg.add("hunter2-redact-test");
    reg.add("abc");  // too short to be redacted safely
    reg.add("");
    CHECK(reg.contains("hunter2-redact-test"));
    CHECK_FALSE(reg.contains("abc"));
    CHECK(reg.redact("pw=hunter2-redact-test, again hunter2-redact-test; abc") ==
          "pw=******, again ******; abc");
}

TEST_CASE("a secret containing another one is hidden completely", "[config][secrets]") {
    auto& reg = SecretRegistry::instance();
    reg.add("nest");
    reg.add("a-nested-secret-value");
    CHECK(reg.redact("[a-nested-secret-value]") == "[******]");
}

namespace {

// A pipeline whose sink password comes from ${secret_values.sink_pw}.
constexpr const char* kSecretPipeline =
    "source:\n"
    "  type: values\n"
    "sink:\n"
    "  type: kafka\n"
    "  password: ${secret_values.sink_pw}\n"
    "  topic: ${UNDEFINED_TOPIC}-${secret_values.sink_pw}\n";

constexpr const char* kSecretValue = "s3cr3t-from-secret-values";

Secrets secrets_with_pw() {
    Secrets s = test::no_secrets();
    s.set("sink_pw", kSecretValue);
    return s;
}

}  // namespace

TEST_CASE("a secret never appears in diagnostics", "[config][secrets]") {
    // The topic line fails (undefined variable), and the secret was resolved on the same line.
    std::string errors = test::load_errors(kSecretPipeline, test::env_of({}), secrets_with_pw());
    REQUIRE_THAT(errors, Contains("p.yaml:6:10: error: undefined environment variable"));
    CHECK_THAT(errors, !Contains(kSecretValue));

    // A diagnostic whose message quotes the secret directly is redacted too.
    Diagnostics d;
    d.error({"p.yaml", 1, 1}, std::string("bad value `") + kSecretValue + "`");
    CHECK(d.to_string() == "p.yaml:1:1: error: bad value `******`\n");
}

TEST_CASE("a secret never appears in a ValidatedOptions dump", "[config][secrets]") {
    auto def = load_pipeline_string(kSecretPipeline, "p.yaml", secrets_with_pw(),
                                    test::env_of({{"UNDEFINED_TOPIC", "orders"}}));
    ConnectorOptionsSpec spec{
        {OptionSpec::string("password").secret(), OptionSpec::string("topic")}, {}};
    Diagnostics diags;
    auto opts = validate_options(spec, def.sink.options, def.sink.where, "sink", diags);
    REQUIRE(diags.ok());
    CHECK(opts.get_string("password") == kSecretValue);  // the program still sees the value
    const std::string dump = opts.dump();
    CHECK(dump == "password = ******\ntopic = orders-******\n");
}

TEST_CASE("options declared secret are registered on validation", "[config][secrets]") {
    ConnectorOptionsSpec spec{{OptionSpec::string("token").secret()}, {}};
    RawOptions raw{{"token", RawValue{"literal-token-in-yaml", {"p.yaml", 3, 3}}}};
    Diagnostics diags;
    validate_options(spec, raw, {"p.yaml", 2, 1}, "sink", diags);
    CHECK(SecretRegistry::instance().contains("literal-token-in-yaml"));
}

TEST_CASE("a secret never appears in a log line through the redacting sink", "[config][secrets]") {
    auto def = load_pipeline_string(kSecretPipeline, "p.yaml", secrets_with_pw(),
                                    test::env_of({{"UNDEFINED_TOPIC", "orders"}}));
    std::ostringstream out;
    auto inner = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
    spdlog::logger logger("redaction-test", make_redacting_sink(inner));
    logger.set_pattern("%l %v");
    logger.info("connecting with password {}", def.sink.options.at("password").value);
    logger.warn("topic is {}", def.sink.options.at("topic").value);
    logger.flush();
    CHECK(out.str() == "info connecting with password ******\nwarning topic is orders-******\n");
}

TEST_CASE("the registry can be used from several threads at once", "[config][secrets]") {
    auto& reg = SecretRegistry::instance();
    std::atomic<int> wrong{0};  // Catch2 v2 assertions are not thread-safe: count, check after
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([t, &reg, &wrong] {
            for (int i = 0; i < 200; ++i) {
                const std::string secret =
                    "thread-" + std::to_string(t) + "-secret-" + std::to_string(i) + "-xyz";
                reg.add(secret);
                if (reg.redact("<" + secret + ">") != "<******>") {
                    ++wrong;
                }
            }
        });
    }
    for (auto& th : threads) {
        th.join();
    }
    CHECK(wrong == 0);
    CHECK(reg.contains("thread-3-secret-199-xyz"));
}

TEST_CASE("values of a secrets file are registered even before use", "[config][secrets]") {
    Secrets::from_string("unused_secret: never-referenced-secret\n", "s.yaml");
    CHECK(SecretRegistry::instance().redact("x never-referenced-secret y") == "x ****** y");
}

TEST_CASE("a secrets file must be flat", "[config][secrets]") {
    try {
        Secrets::from_string("db:\n  password: nested\n", "s.yaml");
        FAIL("expected ConfigError");
    } catch (const ConfigError& e) {
        CHECK(std::string(e.what()) ==
              "s.yaml:1:1: error: secret `db` must be a scalar value, got a map\n");
    }
    CHECK_THROWS_WITH(Secrets::from_file("/nonexistent/secrets.env"),
                      "/nonexistent/secrets.env: error: cannot open secrets file\n");
    // A directory opened, read as nothing, and so passed as a file without secrets.
    CHECK_THROWS_WITH(Secrets::from_file("/tmp"),
                      "/tmp: error: cannot read secrets file: it is a directory\n");
}

TEST_CASE("pass-through options whose key names a credential are registered", "[config][secrets]") {
    CHECK(names_a_credential("properties.sasl.password"));
    CHECK(names_a_credential("properties.sasl.jaas.config"));
    CHECK(names_a_credential("properties.ssl.key.pem"));
    CHECK(names_a_credential("properties.sasl.oauthbearer.client.secret"));
    CHECK_FALSE(names_a_credential("properties.bootstrap.servers"));
    CHECK_FALSE(names_a_credential("properties.ssl.key.location"));

    ConnectorOptionsSpec spec{{}, {PrefixSpec{"properties.", "client properties"}}};
    const std::string env_password = "pw-from-the-environment-17";
    auto def = load_pipeline_string(
        "source:\n  type: values\nsink:\n  type: kafka\n"
        "  properties.sasl.password: ${KAFKA_PASSWORD}\n"
        "  properties.bootstrap.servers: broker-not-a-secret:9092\n",
        "p.yaml", test::no_secrets(), test::env_of({{"KAFKA_PASSWORD", env_password}}));
    Diagnostics diags;
    auto opts = validate_options(spec, def.sink.options, def.sink.where, "sink", diags);
    REQUIRE(diags.ok());
    CHECK(opts.with_prefix("properties.").at("sasl.password") == env_password);
    CHECK(SecretRegistry::instance().redact("auth failed for " + env_password) ==
          "auth failed for ******");
    CHECK_FALSE(SecretRegistry::instance().contains("broker-not-a-secret:9092"));
}
