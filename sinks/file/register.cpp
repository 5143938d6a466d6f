// Registers the `file` sink.
#include "pipeline/connector/registry.h"
#include "sinks/file/file_sink.h"

namespace cdcd {

void register_file_sink(ConnectorRegistry& registry) {
    using config::OptionSpec;
    SinkFactory f;
    f.name = "file";
    f.description =
        "Writes one JSON document per data change per line (debezium-json or canal-json, as the "
        "Kafka sink writes them); exactly-once across restarts. With parallelism N > 1, writer i "
        "writes `<path>.<i>`. Checkpoints record each file's identity (device, inode, committed "
        "length, checksum of the committed tail): a restart refuses, naming the file, a file that "
        "was deleted, replaced, shortened or rewritten, and never truncates or zero-fills a file "
        "it did not write; a fresh start onto a non-empty file obeys `if-exists`.";
    f.options.options = {
        OptionSpec::string("path").required().desc("File to write."),
        OptionSpec::enum_of("if-exists", {"fail", "append", "overwrite"})
            .default_("fail")
            .desc("What a fresh start (no checkpoint, or --reset-state) does when the file exists "
                  "and is not empty: fail (refuse to start, the file untouched), append (keep its "
                  "content and write after it) or overwrite (empty it first). A restart from a "
                  "checkpoint continues its own file whatever this says."),
        OptionSpec::enum_of("format", {"debezium-json", "canal-json"})
            .default_("debezium-json")
            .desc("Line format."),
        OptionSpec::boolean("debezium-json.include-schema.enabled")
            .default_("false")
            .desc("Wrap debezium-json in {\"schema\":…,\"payload\":…}."),
        OptionSpec::enum_of("timestamp-format.standard", {"SQL", "ISO-8601"})
            .default_("SQL")
            .desc("How timestamps are written."),
        OptionSpec::boolean("encode.ignore-null-fields")
            .default_("false")
            .desc("Omit NULL fields."),
    };
    f.create = [](const ConnectorContext& ctx) -> std::unique_ptr<Sink> {
        const auto& o = ctx.options;
        file::FileSinkSettings s;
        s.path = o.get_string("path");
        std::string if_exists = o.get_enum("if-exists");
        s.if_exists = if_exists == "append"      ? output::IfExists::Append
                      : if_exists == "overwrite" ? output::IfExists::Overwrite
                                                 : output::IfExists::Fail;
        s.format = o.get_enum("format") == "canal-json" ? file::FileFormat::CanalJson
                                                        : file::FileFormat::DebeziumJson;
        s.debezium.include_schema = o.get_bool("debezium-json.include-schema.enabled");
        s.debezium.json.iso8601_timestamps = o.get_enum("timestamp-format.standard") == "ISO-8601";
        s.debezium.json.ignore_null_fields = o.get_bool("encode.ignore-null-fields");
        return std::make_unique<file::FileSink>(std::move(s), *ctx.metrics);
    };
    registry.add(std::move(f));
}

}  // namespace cdcd
