#pragma once
// Runs a whole pipeline in a runtime test: its YAML planned against a test's registry of fake
// connectors, with its state in a directory of its own; and the table its fake sources create.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

#include "config/pipeline_def.h"
#include "config/secrets.h"
#include "pipeline/event/events.h"
#include "pipeline/runtime/pipeline_plan.h"
#include "pipeline/runtime/pipeline_runtime.h"
#include "pipeline/schema/schema.h"

namespace cdcd::testing {

/// What a runtime test's source emits first: the creation of `table`, whose one column
/// `id BIGINT NOT NULL` is its primary key.
inline EventBatch create_id_table(TableId table) {
    EventBatch create;
    create.push_back(Event(CreateTableEvent{
        table,
        SchemaBuilder().column("id", DataType::bigint().not_null()).primary_key({"id"}).build()}));
    return create;
}

/// Plans `yaml` against `registry` and runs it to its end with its state in `state_dir`, signals
/// left alone; returns PipelineRuntime::run()'s exit status.
inline int run_pipeline_yaml(const ConnectorRegistry& registry, const std::string& yaml,
                             const std::string& state_dir) {
    auto definition = config::load_pipeline_string(yaml, "pipeline.yaml", config::Secrets());
    RunOptions options;
    options.state_dir = state_dir;
    options.handle_signals = false;
    PipelineRuntime runtime(plan_pipeline(std::move(definition), registry), options);
    return runtime.run();
}

/// As run_pipeline_yaml, but a run that has not ended within `limit` aborts the test binary
/// with a message: a pipeline that never ends fails at once instead of hanging the suite.
inline int run_pipeline_yaml_within(const ConnectorRegistry& registry, const std::string& yaml,
                                    const std::string& state_dir, std::chrono::seconds limit) {
    std::mutex mutex;
    std::condition_variable ended;
    bool done = false;
    std::thread watchdog([&] {
        std::unique_lock lock(mutex);
        if (!ended.wait_for(lock, limit, [&] { return done; })) {
            std::fprintf(stderr, "the pipeline did not end within %lld s\n",
                         static_cast<long long>(limit.count()));
            std::abort();
        }
    });
    int status = run_pipeline_yaml(registry, yaml, state_dir);
    {
        std::lock_guard lock(mutex);
        done = true;
    }
    ended.notify_one();
    watchdog.join();
    return status;
}

/// A state directory under the temporary directory, named after the test and the process:
/// empty at the start, removed at the end.
struct TemporaryStateDir {
    explicit TemporaryStateDir(const std::string& name)
        : path((std::filesystem::temp_directory_path() /
                ("cdcd-" + name + "-" + std::to_string(::getpid())))
                   .string()) {
        std::filesystem::remove_all(path);
    }
    ~TemporaryStateDir() { std::filesystem::remove_all(path); }
    TemporaryStateDir(const TemporaryStateDir&) = delete;
    TemporaryStateDir& operator=(const TemporaryStateDir&) = delete;

    std::string path;
};

}  // namespace cdcd::testing
