#include "config/pipeline_options.h"

namespace cdcd::config {

const OptionBindings<PipelineOptions>& pipeline_option_bindings() {
    static const OptionBindings<PipelineOptions> bindings{{
        OptionSpec::string("name")
            .default_(kDefaultPipelineName)
            .desc("Name of the pipeline, shown in logs and metrics")
            .to(&PipelineOptions::name),
        OptionSpec::integer("parallelism")
            .default_("1")
            .at_least(1)
            .desc("Number of parallel sink writers; records are partitioned by primary key. The "
                  "file sink's and the Kafka sink's writers (except under exactly-once) each run "
                  "on a thread of their own")
            .to(&PipelineOptions::parallelism),
        OptionSpec::enum_of("schema.change.behavior",
                            {"IGNORE", "LENIENT", "TRY_EVOLVE", "EVOLVE", "EXCEPTION"})
            .default_("LENIENT")
            .desc("How upstream schema changes are applied to the sink")
            .to(&PipelineOptions::schema_change_behavior),
        OptionSpec::enum_of("route-mode", {"ALL_MATCH", "FIRST_MATCH"})
            .default_("ALL_MATCH")
            .desc("Apply every matching route rule, or only the first one")
            .to(&PipelineOptions::route_mode),
        OptionSpec::string("local-time-zone")
            .default_("systemDefault")
            .desc("Session time zone, e.g. Asia/Shanghai or GMT+08:00; systemDefault is the "
                  "machine's (TZ as glibc reads it, else /etc/timezone, else /etc/localtime)")
            .to(&PipelineOptions::local_time_zone),
        OptionSpec::enum_of<bool>("execution.runtime-mode", {{"STREAMING", false}, {"BATCH", true}})
            .default_("STREAMING")
            .desc("STREAMING runs until stopped; BATCH runs until the source has read "
                  "everything and then exits 0, and refuses a source whose options make it "
                  "follow changes (e.g. scan.startup.mode initial: use snapshot)")
            .to(&PipelineOptions::batch),
        OptionSpec::duration("schema-operator.rpc-timeout")
            .default_("3min")
            .at_least(1)
            .desc("How long one schema change may take: the sink writers flushing the "
                  "events before it, then the sink applying it (creating a table, ...); "
                  "when it takes longer the pipeline fails, as in Flink CDC")
            .to(&PipelineOptions::schema_change_timeout),
        OptionSpec::duration("execution.checkpointing.interval")
            .default_("10s")
            .at_least(1)
            .desc("Interval between checkpoints")
            .to(&PipelineOptions::checkpoint_interval),
        OptionSpec::duration("execution.checkpointing.timeout")
            .default_("10min")
            .at_least(1)
            .desc("How long a checkpoint may take from its barrier to the last sink writer's "
                  "acknowledgement (Flink's default); one that takes longer (a sink whose "
                  "flush does not end) fails the pipeline, naming what it waits for, and a "
                  "restart resumes from the last checkpoint")
            .to(&PipelineOptions::checkpoint_timeout),
        OptionSpec::integer("execution.checkpointing.tolerable-failed-checkpoints")
            .default_("0")
            .at_least(0)
            .desc("Consecutive checkpoints that may fail to be written to the state store "
                  "(e.g. its disk is full) before the pipeline fails, as in Flink; 0 fails "
                  "at the first. A failed checkpoint is logged, counted in "
                  "cdcd_checkpoints_failed_total and written again at the next interval; "
                  "until it is, the sinks commit and the sources acknowledge upstream "
                  "nothing newer")
            .to(&PipelineOptions::tolerable_failed_checkpoints),
        OptionSpec::integer("state.checkpoints.num-retained")
            .default_("3")
            .at_least(1)
            .desc("Number of completed checkpoints kept")
            .to(&PipelineOptions::checkpoints_retained),
        OptionSpec::string("state.dir")
            .default_("./cdcd-state")
            .desc("Directory of the RocksDB checkpoint store")
            .to(&PipelineOptions::state_dir),
        OptionSpec::string("operator.uid.prefix")
            .desc("Prefix of operator ids (accepted for Flink compatibility)"),
        OptionSpec::duration("shutdown.timeout")
            .default_("30s")
            .desc("How long a graceful stop (final checkpoint) may take")
            .to(&PipelineOptions::shutdown_timeout),
        OptionSpec::string("admin.address")
            .desc("host:port of the admin HTTP endpoint (metrics, health); off if unset")
            .to(&PipelineOptions::admin_address),
        OptionSpec::enum_of("sink.partitioning.strategy",
                            {"SINK_DEFINED", "PRIMARY_KEY", "TABLE_ID"})
            .default_("SINK_DEFINED")
            .desc("How data changes are spread over the parallel sink writers: PRIMARY_KEY "
                  "by a hash of the primary key (every change of a key to one writer, in "
                  "order; a table without one by table id), TABLE_ID by table id (every "
                  "change of a table to one writer, in order); SINK_DEFINED is the sink's "
                  "own, which for every cdcd sink is PRIMARY_KEY")
            .to(&PipelineOptions::partitioning_strategy),
        OptionSpec::enum_of("bad-record.policy", {"fail", "skip", "dead-letter"})
            .default_("fail")
            .desc("What a record that a source cannot decode, a transform cannot evaluate or "
                  "a sink rejects does: fail stops the pipeline there (its checkpoint does "
                  "not advance past the record); skip logs it (at a bounded rate) and counts "
                  "it in cdcd_bad_records_total; dead-letter also writes it, with its "
                  "position and error, to bad-record.dead-letter.path, exactly once with the "
                  "checkpoints. A connector's own switch (ignore-parse-errors) still skips")
            .to(&PipelineOptions::bad_record_policy),
        OptionSpec::string("bad-record.dead-letter.path")
            .desc("The dead-letter file (JSON lines) of bad-record.policy dead-letter; "
                  "default <state.dir>/dead-letter/<pipeline name>.jsonl")
            .to(&PipelineOptions::dead_letter_path),
        OptionSpec::enum_of("transform.decimal.precision.mode", {"UP_TO_19", "UP_TO_38"})
            .default_("UP_TO_19")
            .desc("Largest DECIMAL precision in transform expressions: column types, CAST "
                  "targets "
                  "and results are capped at 19 or 38 digits (a value that needs more is "
                  "NULL), as Flink CDC's FlinkCdcTypeSystem")
            .to(&PipelineOptions::decimal_precision_mode),
        OptionSpec::integer("transform.lanes")
            .default_("0")
            .at_least(0)
            .at_most(64)
            .desc("Threads the transform runs on, each with its own copy of the rules: runs "
                  "of data changes go to the first with room, schema changes to all, and "
                  "every change comes out in the order it came in. 0 chooses: "
                  "pipeline.parallelism, at most one fewer than the CPUs the process may use "
                  "(the event loop keeps one busy), and 1 when the source adds functions to "
                  "expressions (FETCH_CONTENT). More lanes pay when the transform, not the "
                  "source or the sink, sets the pace. A source split into readers (parallelism "
                  "above 1, writers on threads of their own) transforms on the readers' "
                  "threads; the lanes then get only what goes through the event loop. When "
                  "every lane is busy, the event loop transforms a batch itself (with a copy "
                  "of its own) rather than wait, except for FETCH_CONTENT")
            .to(&PipelineOptions::transform_lanes),
        OptionSpec::boolean("tap.enabled")
            .default_("true")
            .desc("Whether `cdcd tap` may sample this pipeline's events through the admin "
                  "endpoint's /tap; false answers 403")
            .to(&PipelineOptions::tap_enabled),
        OptionSpec::list("tap.sensitive-columns")
            .desc("Columns whose values `cdcd tap` prints as \"***\": comma-separated "
                  "TABLE.COLUMN entries, the table a selector as in transform source-table (or "
                  "* for any table), the column a regex; e.g. *.password, app.users.email")
            .to(&PipelineOptions::tap_sensitive_columns),
    }};
    return bindings;
}

const ConnectorOptionsSpec& pipeline_options_spec() {
    return pipeline_option_bindings().spec();
}

ValidatedOptions validate_pipeline_options(const PipelineDef& def, Diagnostics& diags) {
    return validate_options(pipeline_options_spec(), def.pipeline, def.pipeline_where,
                            "`pipeline` block", diags);
}

}  // namespace cdcd::config
