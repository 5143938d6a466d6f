#pragma once
// The pipeline's bad-record policy, as connectors and operators see it (Kafka Connect's
// `errors.tolerance` with a dead-letter queue, in Flink CDC's option style): a record that a
// source cannot decode, a transform cannot evaluate or a sink rejects is handed to the stage's
// BadRecordSink, which fails the pipeline (`fail`, the default), logs and counts it (`skip`), or
// also keeps it for the dead-letter file (`dead-letter`), committed with the checkpoint whose
// barrier next passes that stage, so the file holds each bad record exactly once.
//
//   try { decode(message); }
//   catch (const std::exception& e) {
//       bad_records.handle({"parse-error", "topic t partition 3 offset 17", e.what(), raw});
//       continue;  // only reached under skip / dead-letter
//   }
#include <stdexcept>
#include <string>
#include <string_view>

namespace cdcd {

enum class BadRecordPolicy { Fail, Skip, DeadLetter };
BadRecordPolicy parse_bad_record_policy(std::string_view text);  // "fail", "skip", "dead-letter"
const char* to_string(BadRecordPolicy policy);

struct BadRecord {
    /// Why, as a short stable word: a metric label ("parse-error", "eval-error", "rejected").
    std::string reason;
    /// Where the record came from, for a person to find it: "topic orders partition 3 offset 17",
    /// "queue q message 4F2A event 1", "table db.t row with primary key {id=7}".
    std::string position;
    /// What went wrong.
    std::string error;
    /// The record as received (bytes), or its JSON rendering when there are no raw bytes.
    std::string raw;
};

/// Thrown under policy `fail`: names the stage, the record's position and the error.
struct BadRecordError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// One stage's handle on the policy. Not thread-safe: every stage (the source, the transform
/// thread, each sink writer) has its own.
class BadRecordSink {
  public:
    virtual ~BadRecordSink() = default;
    /// Applies the pipeline's policy: throws BadRecordError under `fail`; otherwise the record is
    /// logged (at a bounded rate), counted in cdcd_bad_records_total, and under `dead-letter`
    /// kept for the dead-letter file. The caller then drops the record and goes on.
    virtual void handle(BadRecord record) = 0;
    /// The connector's own switch said to skip such records (`ignore-parse-errors: true`):
    /// logged at a bounded rate and counted, whatever the policy; never fails, never dead-lettered.
    virtual void skip(BadRecord record) = 0;
    virtual BadRecordPolicy policy() const = 0;
};

/// The handles of one pipeline run, for connectors (ConnectorContext::bad_records).
class BadRecordHandlers {
  public:
    virtual ~BadRecordHandlers() = default;
    virtual BadRecordSink& source() = 0;
    virtual BadRecordSink& writer(int index) = 0;

    /// Handles outside a pipeline run (tests, validation): policy `fail`, and skip() does nothing.
    static BadRecordHandlers& detached();
};

/// The message of a BadRecordError, shared by every implementation.
std::string bad_record_message(std::string_view stage, const BadRecord& record);

}  // namespace cdcd
