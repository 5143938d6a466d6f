#include "pipeline/runtime/bad_record_stage.h"

#include <chrono>

#include "config/secrets.h"
#include "pipeline/util/base64.h"
#include "pipeline/util/json_escape.h"
#include "text/utf8.h"

namespace cdcd {

namespace {

bool is_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        std::size_t len = 1;
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            ++i;
            continue;
        }
        if (utf8::decode(s, i, len) < 0) return false;
        i += len;
    }
    return true;
}

void field(std::string& out, std::string_view key, std::string_view value) {
    if (out.size() > 1) out += ',';
    json::append_quoted(out, key);
    out += ':';
    json::append_quoted(out, value);
}

}  // namespace

std::string dead_letter_line(const BadRecord& record, std::string_view stage,
                             std::string_view connector, std::string_view pipeline,
                             std::int64_t time_ms) {
    std::string line = "{";
    line += "\"time_ms\":" + std::to_string(time_ms);
    field(line, "pipeline", pipeline);
    field(line, "stage", stage);
    field(line, "connector", connector);
    field(line, "reason", record.reason);
    field(line, "position", record.position);
    // The error may quote a server's answer: secrets redacted, made valid UTF-8 for the JSON.
    field(line, "error", utf8::scrubbed(config::SecretRegistry::instance().redact(record.error)));
    if (is_utf8(record.raw)) {
        field(line, "record", record.raw);
    } else {
        field(line, "record_base64", base64_encode(record.raw));
    }
    line += "}\n";
    return line;
}

BadRecordStage::BadRecordStage(std::string stage, std::string connector, std::string pipeline,
                               BadRecordPolicy policy, metrics::Registry& registry,
                               std::size_t max_pending_bytes, std::shared_ptr<BadRecordLog> log)
    : stage_(std::move(stage)),
      connector_(std::move(connector)),
      pipeline_(std::move(pipeline)),
      policy_(policy),
      registry_(registry),
      max_pending_bytes_(max_pending_bytes),
      log_(log ? std::move(log) : std::make_shared<BadRecordLog>(stage_, connector_)) {}

void BadRecordStage::handle(BadRecord record) {
    if (policy_ == BadRecordPolicy::Fail) {
        count(record, "fail");
        throw BadRecordError(bad_record_message(stage_, record));
    }
    if (policy_ == BadRecordPolicy::DeadLetter) {
        keep_dead_letter(record);
        count_and_log(record, "dead-letter");
    } else {
        count_and_log(record, "skip");
    }
}

void BadRecordStage::skip(BadRecord record) {
    count_and_log(record, "skip");
}

std::string BadRecordStage::take_pending() {
    std::string out;
    out.swap(pending_);
    return out;
}

void BadRecordStage::keep_dead_letter(const BadRecord& record) {
    auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
    std::string line = dead_letter_line(record, stage_, connector_, pipeline_, now);
    if (pending_.size() + line.size() > max_pending_bytes_)
        throw BadRecordError("bad records: more than " + std::to_string(max_pending_bytes_) +
                             " bytes of dead-letter records wait for the next checkpoint in the " +
                             stage_ + " stage; stopping rather than holding more (the last one: " +
                             bad_record_message(stage_, record) + ")");
    pending_ += line;
}

void BadRecordStage::count(const BadRecord& record, const char* action) {
    registry_
        .counter("cdcd_bad_records_total",
                 "Records that could not be decoded, evaluated or written",
                 {{"stage", stage_}, {"reason", record.reason}, {"action", action}})
        .inc();
}

void BadRecordStage::count_and_log(const BadRecord& record, const char* action) {
    count(record, action);
    log_->log(record, action);
}

}  // namespace cdcd
