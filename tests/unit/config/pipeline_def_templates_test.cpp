#include <catch2/catch.hpp>

#include "config/pipeline_def.h"

using namespace cdcd::config;

TEST_CASE("template options keep their ${...} placeholders for the connector") {
    const char* yaml = R"(source:
  type: values
sink:
  type: vikingdb
  collection-name-template: "${database}_${table}"
  api-key: ${API_KEY}
)";
    auto env = [](const std::string& name) -> std::optional<std::string> {
        if (name == "API_KEY") return std::string("k-123456");
        return std::nullopt;
    };
    auto templates = [](const std::string& block, const std::string& type, const std::string& key) {
        return block == "sink" && type == "vikingdb" && key == "collection-name-template";
    };
    PipelineDef def = load_pipeline_string(yaml, "p.yaml", Secrets(), env, templates);
    CHECK(def.sink.options.at("collection-name-template").value == "${database}_${table}");
    CHECK(def.sink.options.at("api-key").value == "k-123456");
}

TEST_CASE("without the template declaration the same placeholder is an undefined variable") {
    const char* yaml =
        "source:\n  type: values\nsink:\n  type: vikingdb\n  collection-name-template: ${table}\n";
    auto env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
    CHECK_THROWS_WITH(load_pipeline_string(yaml, "p.yaml", Secrets(), env),
                      Catch::Contains("p.yaml:5:29") && Catch::Contains("table"));
}
