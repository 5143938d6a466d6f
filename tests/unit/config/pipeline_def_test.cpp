#include "config/pipeline_def.h"

#include <catch2/catch.hpp>

#include "config/pipeline_options.h"
#include "config/secrets.h"
#include "test_helpers.h"

using namespace cdcd::config;
using namespace std::chrono_literals;
using Catch::Contains;
using test::env_of;
using test::load_errors;

namespace {

// Loads yaml, then validates the pipeline block like the daemon does; returns all errors.
std::string pipeline_option_errors(std::string_view yaml) {
    auto def = load_pipeline_string(yaml, "p.yaml", test::no_secrets(), env_of({}));
    Diagnostics diags;
    validate_pipeline_options(def, diags);
    return diags.to_string();
}

constexpr const char* kMinimal =
    "source:\n"
    "  type: values\n"
    "sink:\n"
    "  type: values\n";

}  // namespace

TEST_CASE("a complete pipeline file is parsed into a PipelineDef", "[config][pipeline]") {
    Secrets secrets = Secrets::from_file(test::fixture("secrets.yaml"));
    secrets.set_env_lookup(env_of({}));
    const std::string file = test::fixture("full_pipeline.yaml");
    PipelineDef def = load_pipeline(file, secrets, env_of({{"KAFKA_HOSTS", "k1:9092,k2:9092"}}));

    CHECK(def.file == file);
    CHECK(def.source.type == "values");
    CHECK(def.source.name == "Values Source");
    CHECK(def.source.where == SourceLocation{file, 2, 1});
    CHECK(def.source.options.size() == 3);
    CHECK(def.source.options.at("port").value == "3306");  // numbers become strings
    CHECK(def.source.options.at("enabled").value == "true");
    CHECK(def.source.options.at("port").where == SourceLocation{file, 6, 3});

    CHECK(def.sink.type == "kafka");
    CHECK(def.sink.options.at("properties.bootstrap.servers").value == "k1:9092,k2:9092");
    CHECK(def.sink.options.at("password").value == "kafka-yaml-secret-123");
    CHECK(def.sink.include_schema_changes ==
          std::vector<std::string>{"add.column", "create.table"});
    CHECK(def.sink.exclude_schema_changes == std::vector<std::string>{"drop"});
    CHECK(def.sink.has_exclude_schema_changes);
    CHECK(def.sink.options.count("include.schema.changes") == 0);

    REQUIRE(def.routes.size() == 2);
    CHECK(def.routes[0].source_table == "app_db.orders_\\.*");
    CHECK(def.routes[0].sink_table == "ods_db.orders");
    CHECK(def.routes[0].description == "merge shards");
    CHECK(def.routes[0].where == SourceLocation{file, 18, 5});
    CHECK(def.routes[1].replace_symbol == "<>");

    REQUIRE(def.transforms.size() == 1);
    const TransformDef& t = def.transforms[0];
    CHECK(t.projection == "*, UPPER(name) AS upper_name");  // "\*" unescaped like Flink
    CHECK(t.projection_where == SourceLocation{file, 27, 17});
    CHECK(t.filter == "id > 10");
    CHECK(t.filter_where == SourceLocation{file, 28, 13});
    CHECK(t.primary_keys == "id");
    CHECK(t.partition_keys == "id");
    CHECK(t.table_options == "bucket=4;replication=1");
    CHECK(t.table_options_delimiter == ";");
    CHECK(t.converter_after_transform == "SOFT_DELETE");
    CHECK(t.description == "add a column");

    Diagnostics diags;
    ValidatedOptions p = validate_pipeline_options(def, diags);
    REQUIRE(diags.ok());
    CHECK(p.get_string("name") == "Sync orders");
    CHECK(p.get_int("parallelism") == 2);
    CHECK(p.get_enum("schema.change.behavior") == "EVOLVE");  // case-insensitive, canonical
    CHECK(p.get_duration("execution.checkpointing.interval") == 30s);
    CHECK(p.get_enum("route-mode") == "ALL_MATCH");
}

TEST_CASE("the smallest pipeline has defaults everywhere", "[config][pipeline]") {
    auto def = load_pipeline_string(kMinimal, "p.yaml", test::no_secrets(), env_of({}));
    CHECK(def.routes.empty());
    CHECK(def.transforms.empty());
    CHECK(def.pipeline.empty());
    CHECK_FALSE(def.sink.has_exclude_schema_changes);
    CHECK(pipeline_option_errors(kMinimal).empty());
}

// ---- The mistakes users make, each reported at its file:line:column. ----

TEST_CASE("mistake: unknown top-level key, with a suggestion", "[config][pipeline][errors]") {
    std::string e = load_errors(std::string(kMinimal) + "transfrom:\n  - source-table: a.b\n");
    CHECK_THAT(e, Contains("p.yaml:5:1: error: Unexpected key `transfrom` in YAML top-level "
                           "block; did you mean `transform`? Allowed keys in top-level block: "
                           "[source, sink, route, transform, pipeline]."));
}

TEST_CASE("mistake: unknown key in a route entry", "[config][pipeline][errors]") {
    std::string e = load_errors(std::string(kMinimal) +
                                "route:\n"
                                "  - source-table: a.b\n"
                                "    sink-tabel: c.d\n");
    CHECK_THAT(e, Contains("p.yaml:7:5: error: Unexpected key `sink-tabel` in route entry; did "
                           "you mean `sink-table`?"));
    CHECK_THAT(e, Contains("p.yaml:6:5: error: missing required field `sink-table` in route"));
}

TEST_CASE("mistake: unknown key in a transform entry", "[config][pipeline][errors]") {
    std::string e = load_errors(std::string(kMinimal) +
                                "transform:\n"
                                "  - source-table: a.b\n"
                                "    projection: id\n"
                                "    post-transform-converters: x\n");
    CHECK_THAT(e, Contains("p.yaml:8:5: error: Unexpected key `post-transform-converters` in "
                           "transform entry"));
}

TEST_CASE("mistake: route written as a map instead of a list", "[config][pipeline][errors]") {
    std::string e = load_errors(std::string(kMinimal) +
                                "route:\n"
                                "  source-table: a.b\n"
                                "  sink-table: c.d\n");
    CHECK_THAT(e, Contains("p.yaml:5:1: error: `route` block must be a list of route entries, "
                           "got a map. Perhaps you missed a dash prefix `-`?"));
}

TEST_CASE("mistake: missing source block", "[config][pipeline][errors]") {
    std::string e = load_errors("sink:\n  type: values\n");
    CHECK(e == "p.yaml:1:1: error: missing required `source` block in pipeline definition\n");
}

TEST_CASE("mistake: sink without a type", "[config][pipeline][errors]") {
    std::string e = load_errors("source:\n  type: values\n\nsink:\n  name: my sink\n");
    CHECK(e ==
          "p.yaml:4:1: error: missing required field `type` in `sink` block (the connector "
          "identifier, e.g. `kafka`)\n");
}

TEST_CASE("mistake: wrong type for an int option", "[config][pipeline][errors]") {
    std::string e = pipeline_option_errors(std::string(kMinimal) +
                                           "pipeline:\n"
                                           "  parallelism: four\n");
    CHECK(e ==
          "p.yaml:6:3: error: option `parallelism` (INT) in `pipeline` block: expected an "
          "integer (32-bit), got `four`\n");
}

TEST_CASE("mistake: bad duration", "[config][pipeline][errors]") {
    std::string e = pipeline_option_errors(std::string(kMinimal) +
                                           "pipeline:\n"
                                           "  schema-operator.rpc-timeout: 3 minutez\n");
    CHECK_THAT(e, Contains("p.yaml:6:3: error: option `schema-operator.rpc-timeout` (DURATION) "
                           "in `pipeline` block: invalid duration `3 minutez`: unknown unit"));
}

TEST_CASE("mistake: int out of range", "[config][pipeline][errors]") {
    std::string e = pipeline_option_errors(std::string(kMinimal) +
                                           "pipeline:\n"
                                           "  name: x\n"
                                           "  parallelism: 0\n");
    CHECK_THAT(e, Contains("p.yaml:7:3: error: option `parallelism` (INT) in `pipeline` block: "
                           "value `0` is out of range: must be at least 1"));
}

TEST_CASE("mistake: enum value not allowed", "[config][pipeline][errors]") {
    std::string e = pipeline_option_errors(std::string(kMinimal) +
                                           "pipeline:\n"
                                           "  schema.change.behavior: evolution\n");
    CHECK_THAT(e, Contains("p.yaml:6:3: error: option `schema.change.behavior` (ENUM) in "
                           "`pipeline` block: value `evolution` is not allowed; allowed values: "
                           "IGNORE, LENIENT, TRY_EVOLVE, EVOLVE, EXCEPTION"));
}

TEST_CASE("mistake: unknown pipeline option, with a suggestion", "[config][pipeline][errors]") {
    std::string e = pipeline_option_errors(std::string(kMinimal) +
                                           "pipeline:\n"
                                           "  paralelism: 2\n");
    CHECK_THAT(e, Contains("p.yaml:6:3: error: unsupported option `paralelism` in `pipeline` "
                           "block; did you mean `parallelism`?"));
}

TEST_CASE("mistake: missing required connector option", "[config][pipeline][errors]") {
    auto def = load_pipeline_string("source:\n  type: values\nsink:\n  type: kafka\n", "p.yaml",
                                    test::no_secrets(), env_of({}));
    ConnectorOptionsSpec kafka{{OptionSpec::string("topic").required()}, {}};
    Diagnostics diags;
    validate_options(kafka, def.sink.options, def.sink.where, "sink `kafka`", diags);
    CHECK(diags.to_string() ==
          "p.yaml:3:1: error: missing required option `topic` in sink "
          "`kafka`\n");
}

TEST_CASE("mistake: undefined ${VAR}", "[config][pipeline][errors]") {
    std::string e = load_errors(
        "source:\n"
        "  type: values\n"
        "sink:\n"
        "  type: kafka\n"
        "  properties.bootstrap.servers: ${KAFKA_HOSTS}\n");
    CHECK(e ==
          "p.yaml:5:33: error: undefined environment variable `KAFKA_HOSTS` in "
          "`${KAFKA_HOSTS}`\n");
}

TEST_CASE("mistake: undefined ${secret_values.x}", "[config][pipeline][errors]") {
    std::string e = load_errors(
        "source:\n"
        "  type: values\n"
        "  password: \"${secret_values.db_password}\"\n"
        "sink:\n"
        "  type: values\n");
    CHECK(e ==
          "p.yaml:3:14: error: undefined secret `db_password` in "
          "`${secret_values.db_password}` (not in the secrets file, and environment "
          "variable CDCD_SECRET_DB_PASSWORD is not set)\n");
}

TEST_CASE("mistake: tab indentation", "[config][pipeline][errors]") {
    const std::string file = test::fixture("tab_indent.yaml");
    try {
        load_pipeline(file, test::no_secrets(), env_of({}));
        FAIL("expected ConfigError");
    } catch (const ConfigError& e) {
        CHECK(std::string(e.what()) == file +
                                           ":4:1: error: tab character used for indentation; "
                                           "YAML allows only spaces\n");
    }
}

TEST_CASE("mistake: duplicate key", "[config][pipeline][errors]") {
    const std::string file = test::fixture("duplicate_key.yaml");
    try {
        load_pipeline(file, test::no_secrets(), env_of({}));
        FAIL("expected ConfigError");
    } catch (const ConfigError& e) {
        CHECK(std::string(e.what()) ==
              file + ":6:1: error: duplicate key `source` (first defined at " + file + ":1:1)\n");
    }
}

TEST_CASE("mistake: nested map in a connector option", "[config][pipeline][errors]") {
    std::string e = load_errors(
        "source:\n"
        "  type: values\n"
        "  properties:\n"
        "    acks: all\n"
        "sink:\n"
        "  type: values\n"
        "  hosts: [a, b]\n");
    CHECK_THAT(e, Contains("p.yaml:3:3: error: `properties` in `source` block must be a scalar "
                           "value, got a map"));
    CHECK_THAT(e, Contains("p.yaml:7:3: error: `hosts` in `sink` block must be a scalar value, "
                           "got a list"));
}

TEST_CASE("mistake: unsupported pipeline.user-defined-function and pipeline.model",
          "[config][pipeline][errors]") {
    std::string e = load_errors(std::string(kMinimal) +
                                "pipeline:\n"
                                "  user-defined-function:\n"
                                "    - name: addone\n"
                                "      classpath: com.example.AddOne\n"
                                "  model:\n"
                                "    name: m\n");
    CHECK_THAT(e, Contains("p.yaml:6:3: error: `pipeline.user-defined-function` is not "
                           "supported by cdcd"));
    CHECK_THAT(e, Contains("p.yaml:9:3: error: `pipeline.model` (AI models in transforms) is "
                           "not supported by cdcd"));
}

TEST_CASE("mistake: schema change lists in the sink", "[config][pipeline][errors]") {
    std::string e = load_errors(
        "source:\n"
        "  type: values\n"
        "sink:\n"
        "  type: values\n"
        "  include.schema.changes: add.column\n"
        "  exclude.schema.changes: [drop.tabel]\n");
    CHECK_THAT(e, Contains("p.yaml:5:3: error: `include.schema.changes` in `sink` block must be "
                           "a list of schema change types, got a scalar `add.column`"));
    CHECK_THAT(e, Contains("p.yaml:6:28: error: unknown schema change event type `drop.tabel` "
                           "in `exclude.schema.changes`; did you mean `drop.table`?"));
}

TEST_CASE("mistake: transform entry problems", "[config][pipeline][errors]") {
    std::string e = load_errors(std::string(kMinimal) +
                                "transform:\n"
                                "  - projection: id\n"
                                "  - source-table: a.b\n"
                                "    converter-after-transform: HARD\n"
                                "  - just a string\n");
    CHECK_THAT(e, Contains("p.yaml:6:5: error: missing required field `source-table` in "
                           "transform entry"));
    CHECK_THAT(e, Contains("p.yaml:8:32: error: unknown `converter-after-transform` `HARD`"));
    CHECK_THAT(e, Contains("p.yaml:9:5: error: each transform entry must be a map"));
}

TEST_CASE("mistake: a file that is not a map", "[config][pipeline][errors]") {
    CHECK(load_errors("- source\n- sink\n") ==
          "p.yaml:1:1: error: a pipeline definition must be a YAML map with `source` and `sink` "
          "blocks, got a list\n");
    CHECK_THAT(load_errors(""), Contains("p.yaml:1:1: error: a pipeline definition must be"));
}

TEST_CASE("several errors are reported together", "[config][pipeline][errors]") {
    const std::string file = test::fixture("several_errors.yaml");
    try {
        load_pipeline(file, test::no_secrets(), env_of({}));
        FAIL("expected ConfigError");
    } catch (const ConfigError& e) {
        const std::string text = e.what();
        INFO(text);
        CHECK_THAT(text, Contains(file + ":1:1: error: Unexpected key `sourse` in YAML top-level "
                                         "block; did you mean `source`?"));
        CHECK_THAT(text, Contains(file + ":3:1: error: missing required field `type` in `sink`"));
        CHECK_THAT(text, Contains(file + ":5:3: error: `nested` in `sink` block must be a scalar"));
        CHECK_THAT(text, Contains(file + ":7:1: error: `route` block must be a list"));
        CHECK_THAT(text, Contains(file + ":12:3: error: `pipeline.user-defined-function` is not "
                                         "supported by cdcd"));
        CHECK_THAT(text, Contains("error: missing required `source` block"));
        CHECK(e.diagnostics().size() == 6);
    }
}
