#pragma once
// One stage's BadRecordSink in a pipeline run (see pipeline/connector/bad_records.h): applies
// the policy, logs at a bounded rate (BadRecordLog), counts cdcd_bad_records_total (by stage,
// reason and action), and under `dead-letter` keeps each record as a JSON line until the runtime
// takes them at the stage's checkpoint cut (take_pending) and commits them to the dead-letter
// file with that checkpoint.
#include <cstdint>
#include <memory>
#include <string>

#include "metrics/registry.h"
#include "pipeline/connector/bad_records.h"
#include "pipeline/runtime/bad_record_log.h"

namespace cdcd {

class BadRecordStage final : public BadRecordSink {
  public:
    /// `stage`: "source", "transform" or "sink"; `connector`: the connector's type (or
    /// "transform"); `max_pending_bytes`: dead-letter bytes this stage may hold between two
    /// checkpoints before it fails the pipeline rather than grow without bound; `log`: the log
    /// it shares with the stage's other threads (else one of its own).
    BadRecordStage(std::string stage, std::string connector, std::string pipeline,
                   BadRecordPolicy policy, metrics::Registry& registry,
                   std::size_t max_pending_bytes, std::shared_ptr<BadRecordLog> log = nullptr);

    void handle(BadRecord record) override;
    void skip(BadRecord record) override;
    BadRecordPolicy policy() const override { return policy_; }

    /// The dead-letter lines kept since the last call (each ends in '\n'); called by the runtime
    /// on the stage's own thread when a checkpoint barrier passes the stage.
    std::string take_pending();

  private:
    void count(const BadRecord& record, const char* action);          // cdcd_bad_records_total
    void count_and_log(const BadRecord& record, const char* action);  // and log_
    void keep_dead_letter(const BadRecord& record);

    std::string stage_;
    std::string connector_;
    std::string pipeline_;
    BadRecordPolicy policy_;
    metrics::Registry& registry_;
    std::size_t max_pending_bytes_;
    std::string pending_;
    std::shared_ptr<BadRecordLog> log_;
};

/// The JSON line of one dead-lettered record: time, pipeline, stage, connector, reason,
/// position, error and the raw record (as a string when it is valid UTF-8, else as base64 under
/// "record_base64").
std::string dead_letter_line(const BadRecord& record, std::string_view stage,
                             std::string_view connector, std::string_view pipeline,
                             std::int64_t time_ms);

}  // namespace cdcd
