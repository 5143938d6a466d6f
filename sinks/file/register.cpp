// Registers the `file` sink.
#include "config/option_binding.h"
#include "pipeline/connector/registry.h"
#include "sinks/file/file_sink.h"

namespace cdcd {

void register_file_sink(ConnectorRegistry& registry) {
    using config::OptionSpec;
    using Settings = file::FileSinkSettings;
    using json::DebeziumJsonOptions;
    using json::JsonFormatOptions;
    using output::IfExists;
    static const config::OptionBindings<Settings> bindings{{
        OptionSpec::string("path").required().desc("File to write.").to(&Settings::path),
        OptionSpec::enum_of<IfExists>("if-exists", {{"fail", IfExists::Fail},
                                                    {"append", IfExists::Append},
                                                    {"overwrite", IfExists::Overwrite}})
            .default_("fail")
            .desc("What a fresh start (no checkpoint, or --reset-state) does when the file exists "
                  "and is not empty: fail (refuse to start, the file untouched), append (keep its "
                  "content and write after it) or overwrite (empty it first). A restart from a "
                  "checkpoint continues its own file whatever this says.")
            .to(&Settings::if_exists),
        OptionSpec::enum_of<file::FileFormat>("format",
                                              {{"debezium-json", file::FileFormat::DebeziumJson},
                                               {"canal-json", file::FileFormat::CanalJson}})
            .default_("debezium-json")
            .desc("Line format.")
            .to(&Settings::format),
        OptionSpec::boolean("debezium-json.include-schema.enabled")
            .default_("false")
            .desc("Wrap debezium-json in {\"schema\":…,\"payload\":…}.")
            .to(&Settings::debezium, &DebeziumJsonOptions::include_schema),
        OptionSpec::enum_of<bool>("timestamp-format.standard", {{"SQL", false}, {"ISO-8601", true}})
            .default_("SQL")
            .desc("How timestamps are written.")
            .to(&Settings::debezium, &DebeziumJsonOptions::json,
                &JsonFormatOptions::iso8601_timestamps),
        OptionSpec::boolean("encode.ignore-null-fields")
            .default_("false")
            .desc("Omit NULL fields.")
            .to(&Settings::debezium, &DebeziumJsonOptions::json,
                &JsonFormatOptions::ignore_null_fields),
    }};
    SinkFactory f;
    f.name = "file";
    f.description =
        "Writes one JSON document per data change per line (debezium-json or canal-json, as the "
        "Kafka sink writes them); exactly-once across restarts. With parallelism N > 1, writer i "
        "writes `<path>.<i>`. Checkpoints record each file's identity (device, inode, committed "
        "length, checksum of the committed tail): a restart refuses, naming the file, a file that "
        "was deleted, replaced, shortened or rewritten, and never truncates or zero-fills a file "
        "it did not write; a fresh start onto a non-empty file obeys `if-exists`.";
    f.options = bindings.spec();
    f.create = [](const ConnectorContext& ctx) -> std::unique_ptr<Sink> {
        return std::make_unique<file::FileSink>(bindings.read(ctx.options).take(), *ctx.metrics);
    };
    registry.add(std::move(f));
}

}  // namespace cdcd
