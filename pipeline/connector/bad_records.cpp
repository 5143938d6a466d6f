#include "pipeline/connector/bad_records.h"

namespace cdcd {

BadRecordPolicy parse_bad_record_policy(std::string_view text) {
    if (text == "fail") return BadRecordPolicy::Fail;
    if (text == "skip") return BadRecordPolicy::Skip;
    if (text == "dead-letter") return BadRecordPolicy::DeadLetter;
    throw std::invalid_argument("unknown bad-record policy '" + std::string(text) +
                                "' (fail, skip or dead-letter)");
}

const char* to_string(BadRecordPolicy policy) {
    switch (policy) {
        case BadRecordPolicy::Fail:
            return "fail";
        case BadRecordPolicy::Skip:
            return "skip";
        case BadRecordPolicy::DeadLetter:
            return "dead-letter";
    }
    return "fail";
}

std::string bad_record_message(std::string_view stage, const BadRecord& record) {
    std::string m = "bad record";
    if (!record.position.empty()) m += " at " + record.position;
    m += " (" + std::string(stage) + ", " + record.reason + "): " + record.error;
    m += "; bad-record.policy is fail, so the pipeline stops here and its checkpoint does not "
         "advance past this record (bad-record.policy: skip or dead-letter lets it go on)";
    return m;
}

namespace {

class FailingSink final : public BadRecordSink {
  public:
    explicit FailingSink(std::string stage) : stage_(std::move(stage)) {}
    void handle(BadRecord record) override {
        throw BadRecordError(bad_record_message(stage_, record));
    }
    void skip(BadRecord) override {}
    BadRecordPolicy policy() const override { return BadRecordPolicy::Fail; }

  private:
    std::string stage_;
};

class DetachedHandlers final : public BadRecordHandlers {
  public:
    BadRecordSink& source() override { return source_; }
    BadRecordSink& writer(int) override { return writer_; }

  private:
    FailingSink source_{"source"};
    FailingSink writer_{"sink"};
};

}  // namespace

BadRecordHandlers& BadRecordHandlers::detached() {
    static DetachedHandlers handlers;
    return handlers;
}

}  // namespace cdcd
