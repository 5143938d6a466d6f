#include "config/interpolation.h"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "config/secrets.h"
#include "test_helpers.h"

using namespace cdcd::config;
using Catch::Contains;
using test::env_of;

namespace {

std::string interpolated(std::string_view text, const EnvLookup& env, const Secrets& secrets) {
    std::string errors;
    auto out = interpolate_string(text, env, secrets,
                                  [&](std::size_t at, std::size_t, const std::string& msg) {
                                      errors += std::to_string(at) + ": " + msg + "\n";
                                  });
    return out ? *out : "ERROR " + errors;
}

}  // namespace

TEST_CASE("${NAME} comes from the environment", "[config][interpolation]") {
    auto env = env_of({{"HOST", "kafka-1"}, {"PORT", "9092"}});
    auto secrets = test::no_secrets();
    CHECK(interpolated("${HOST}:${PORT}", env, secrets) == "kafka-1:9092");
    CHECK(interpolated("plain text", env, secrets) == "plain text");
    CHECK(interpolated("cost $5 and $ {x}", env, secrets) == "cost $5 and $ {x}");
}

TEST_CASE("$${ is a literal ${", "[config][interpolation]") {
    auto env = env_of({{"HOST", "h"}});
    auto secrets = test::no_secrets();
    CHECK(interpolated("$${HOST}", env, secrets) == "${HOST}");
    CHECK(interpolated("a $${not_defined} b ${HOST}", env, secrets) == "a ${not_defined} b h");
}

TEST_CASE("malformed references are errors", "[config][interpolation]") {
    auto env = env_of({});
    auto secrets = test::no_secrets();
    CHECK_THAT(interpolated("x ${HOST", env, secrets), Contains("2: unterminated `${`"));
    CHECK_THAT(interpolated("${}", env, secrets), Contains("invalid variable name"));
    CHECK_THAT(interpolated("${a b}", env, secrets), Contains("invalid variable name"));
    CHECK_THAT(interpolated("${secret_values.}", env, secrets), Contains("invalid secret name"));
}

TEST_CASE("the real process environment is the default", "[config][interpolation]") {
    ::setenv("CDCD_TEST_INTERPOLATION_VAR", "from-process", 1);
    CHECK(process_env("CDCD_TEST_INTERPOLATION_VAR") == std::optional<std::string>("from-process"));
    CHECK_FALSE(process_env("CDCD_TEST_SURELY_UNDEFINED_VAR").has_value());
    ::unsetenv("CDCD_TEST_INTERPOLATION_VAR");
}

TEST_CASE("secrets come from a YAML secrets file", "[config][interpolation][secrets]") {
    Secrets secrets = Secrets::from_file(test::fixture("secrets.yaml"));
    secrets.set_env_lookup(env_of({}));
    CHECK(secrets.lookup("kafka_password") == std::optional<std::string>("kafka-yaml-secret-123"));
    CHECK(interpolated("pw=${secret_values.dingtalk.app-secret}", env_of({}), secrets) ==
          "pw=dt app secret");
    CHECK(SecretRegistry::instance().contains("kafka-yaml-secret-123"));
}

TEST_CASE("secrets come from a KEY=VALUE secrets file", "[config][interpolation][secrets]") {
    Secrets secrets = Secrets::from_file(test::fixture("secrets.env"));
    secrets.set_env_lookup(env_of({}));
    CHECK(secrets.lookup("kafka_password") ==
          std::optional<std::string>("kafka-env-file-secret-456"));
    CHECK(secrets.lookup("quoted") == std::optional<std::string>("a quoted value"));
    CHECK_FALSE(secrets.lookup("other").has_value());
}

TEST_CASE("a broken KEY=VALUE secrets file reports the line", "[config][interpolation][secrets]") {
    try {
        Secrets::from_string("A=1\n# comment\nnot a pair\n", "s.env");
        FAIL("expected ConfigError");
    } catch (const ConfigError& e) {
        CHECK_THAT(e.what(), Contains("s.env:3:1: error: expected KEY=VALUE"));
    }
}

TEST_CASE("secrets come from CDCD_SECRET_<NAME>", "[config][interpolation][secrets]") {
    CHECK(Secrets::env_name("mysql.password-1") == "CDCD_SECRET_MYSQL_PASSWORD_1");
    Secrets secrets;
    secrets.set_env_lookup(env_of({{"CDCD_SECRET_MYSQL_PASSWORD", "from-env-var-789"}}));
    CHECK(interpolated("${secret_values.mysql.password}", env_of({}), secrets) ==
          "from-env-var-789");
    CHECK(SecretRegistry::instance().contains("from-env-var-789"));

    // The default lookup reads the process environment.
    ::setenv("CDCD_SECRET_PROCESS_LEVEL", "process-level-secret", 1);
    Secrets from_process;
    CHECK(from_process.lookup("process_level") ==
          std::optional<std::string>("process-level-secret"));
    ::unsetenv("CDCD_SECRET_PROCESS_LEVEL");
}

TEST_CASE("a secrets file wins over the environment", "[config][interpolation][secrets]") {
    Secrets secrets = Secrets::from_string("token: file-value\n", "s.yaml");
    secrets.set_env_lookup(env_of({{"CDCD_SECRET_TOKEN", "env-value"}}));
    CHECK(secrets.lookup("token") == std::optional<std::string>("file-value"));
}

TEST_CASE("interpolating a document points undefined references at their column",
          "[config][interpolation]") {
    Diagnostics diags;
    auto doc = load_yaml_string(
        "sink:\n"
        "  hosts: ${HOSTS}\n"
        "  url: \"http://${HOST}:${PORT}/x\"\n"
        "  password: ${secret_values.missing_pw}\n"
        "  list: [a, '${LISTED}']\n",
        "i.yaml", diags);
    REQUIRE(doc);
    interpolate(*doc, test::no_secrets(), diags, env_of({{"HOSTS", "h1,h2"}, {"HOST", "h"}}));
    const auto text = diags.to_string();
    CHECK_THAT(text, Contains("i.yaml:3:24: error: undefined environment variable `PORT`"));
    CHECK_THAT(text, Contains("i.yaml:4:13: error: undefined secret `missing_pw`"));
    CHECK_THAT(text, Contains("CDCD_SECRET_MISSING_PW"));
    CHECK_THAT(text, Contains("i.yaml:5:14: error: undefined environment variable `LISTED`"));
    CHECK(diags.size() == 3);
    CHECK(doc->root.find("sink")->find("hosts")->scalar == "h1,h2");
}
