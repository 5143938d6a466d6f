#pragma once
// The `values` source: Flink CDC's fixed event sets for trying pipelines, and GENERATED, a
// deterministic high-volume stream for demos, crash tests and benchmarks.
#include <cstdint>
#include <optional>
#include <vector>

#include "metrics/registry.h"
#include "pipeline/connector/source.h"
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
    std::string describe_state(std::string_view state) const override;

  private:
    boost::asio::awaitable<void> run_fixed(SourceOutput& output);
    boost::asio::awaitable<void> run_generated(SourceOutput& output);
    void check_failure_injection(std::int64_t ordinal) const;

    ValuesSourceSettings settings_;
    metrics::Registry& metrics_;
    std::optional<std::vector<Event>> fixed_;
    std::optional<Generator> generator_;
    std::int64_t position_ = 0;  // ordinal of the next event to emit
};

}  // namespace cdcd::values
