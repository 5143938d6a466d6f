#pragma once
// The `values` source: Flink CDC's fixed event sets for trying pipelines, and GENERATED, a
// deterministic high-volume stream for demos, crash tests and benchmarks. GENERATED splits into
// readers (one share of the ids each) when the pipeline offers several threads.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "metrics/registry.h"
#include "pipeline/connector/source.h"
#include "sources/values/emitted_ordinals.h"
#include "sources/values/generated_reader.h"
#include "sources/values/generator.h"

namespace cdcd::values {

struct ValuesSourceSettings {
    std::string event_set;                      // canonical event-set.id
    std::int64_t failure_injection_index = -1;  // -1: never
    GeneratorSpec generator;
    std::int64_t rate = 0;  // events per second, 0 = unlimited (GENERATED only)
    bool bounded = true;    // GENERATED only: false stays idle after the last event
};

class ValuesSource final : public Source {
  public:
    /// `metrics` receives the GENERATED run's progress (cdcd_progress_items_*).
    explicit ValuesSource(ValuesSourceSettings settings,
                          metrics::Registry& metrics = metrics::Registry::detached());

    void restore(std::string_view state) override;
    boost::asio::awaitable<void> run(SourceOutput& output) override;
    std::string snapshot_state() override;
    /// GENERATED splits by id (a rate is shared out); a fixed event set does not.
    std::vector<std::unique_ptr<SourceReader>> split_readers(std::size_t count) override;
    std::string merge_reader_states(const std::vector<std::string>& states) override;
    std::string describe_state(std::string_view state) const override;

  private:
    boost::asio::awaitable<void> run_fixed(SourceOutput& output);
    std::unique_ptr<GeneratedReader> make_reader(std::size_t index, std::size_t count,
                                                 std::shared_ptr<SharedProgress> progress) const;

    ValuesSourceSettings settings_;
    metrics::Registry& metrics_;
    std::optional<std::vector<Event>> fixed_;
    std::optional<Generator> generator_;
    std::int64_t position_ = 0;  // fixed sets: ordinal of the next event to emit
    EmittedOrdinals emitted_;    // GENERATED: what the restored state says was emitted
    std::unique_ptr<GeneratedReader> reader_;  // GENERATED read by run()
};

}  // namespace cdcd::values
