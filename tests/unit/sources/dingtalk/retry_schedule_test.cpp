// Documents whose read failed (not readable, too large) are read again without waiting for an
// edit: at the next poll, then on a doubling back-off capped at an hour, kept in the checkpoint.
#include "sources/dingtalk/retry_schedule.h"

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

#include "sources/dingtalk/change_detector.h"
#include "sources/dingtalk/dingtalk_source.h"
#include "sources/dingtalk/state_codec.h"

using namespace cdcd;
using namespace cdcd::dingtalk;

namespace {

DocRef doc(std::string id, std::int64_t ms) {
    DocRef d;
    d.node.id = std::move(id);
    d.node.modified_ms = ms;
    d.node.name = "t";
    return d;
}

}  // namespace

TEST_CASE("retry back-off: the next poll, then doubling poll intervals up to an hour") {
    const std::int64_t poll = 10'000;
    CHECK(retry_delay_ms(1, poll) == 0);
    CHECK(retry_delay_ms(2, poll) == 20'000);
    CHECK(retry_delay_ms(3, poll) == 40'000);
    CHECK(retry_delay_ms(4, poll) == 80'000);
    CHECK(retry_delay_ms(10, poll) == 3'600'000);
    CHECK(retry_delay_ms(1'000'000, poll) == 3'600'000);  // no overflow
    CHECK(retry_delay_ms(3, 7'200'000) == 3'600'000);     // the cap even with slow polls
}

TEST_CASE("retry bookkeeping: failures counted, due times, done when read") {
    RetrySchedule schedule;
    const std::int64_t poll = 300;
    CHECK_FALSE(retry_due(schedule, "d", 0));
    const RetryEntry& first = schedule_retry(schedule, "d", 1'000, poll);
    CHECK(first.failures == 1);
    CHECK(first.next_ms == 1'000);
    CHECK(retry_due(schedule, "d", 1'000));  // the next poll
    const RetryEntry& second = schedule_retry(schedule, "d", 1'300, poll);
    CHECK(second.failures == 2);
    CHECK(second.next_ms == 1'900);
    CHECK_FALSE(retry_due(schedule, "d", 1'899));
    CHECK(retry_due(schedule, "d", 1'900));
    CHECK_FALSE(retry_due(schedule, "other", 1'900));
}

TEST_CASE("documents to read: the changed ones and the unchanged ones due for a retry") {
    Fingerprints seen;
    seen["denied"] = fingerprint_of(doc("denied", 100));
    seen["waiting"] = fingerprint_of(doc("waiting", 50));
    seen["same"] = fingerprint_of(doc("same", 10));
    RetrySchedule retries;
    schedule_retry(retries, "denied", 1'000, 300);  // due at the next poll
    schedule_retry(retries, "waiting", 1'000, 300);
    schedule_retry(retries, "waiting", 1'000, 300);  // second failure: due at 1 600
    std::vector<DocRef> now{doc("same", 10), doc("denied", 100), doc("waiting", 50),
                            doc("new", 200)};
    auto read_again = [&](const std::string& id) { return retry_due(retries, id, 1'100); };
    auto ids = [](const std::vector<const DocRef*>& docs) {
        std::vector<std::string> out;
        for (const auto* d : docs) out.push_back(d->node.id);
        return out;
    };
    CHECK(ids(documents_to_read(now, seen, read_again)) ==
          std::vector<std::string>{"denied", "new"});
    CHECK(ids(changed_documents(now, seen)) == std::vector<std::string>{"new"});
    auto later = [&](const std::string& id) { return retry_due(retries, id, 1'600); };
    CHECK(ids(documents_to_read(now, seen, later)) ==
          std::vector<std::string>{"waiting", "denied", "new"});
}

TEST_CASE("the retry schedule is kept in the checkpoint state") {
    SourceState s;
    s.excluded.emplace();  // as every state is written now
    SplitState& split = s.splits["w"];
    split.workspace_id = "w";
    split.docs["d\"1"] = Fingerprint{1, 2};
    split.retries["d\"1"] = RetryEntry{3, 1'783'996'860'000};
    std::string text = encode_state(s);
    CHECK(text.find(R"("retry":[["d\"1",3,1783996860000]])") != std::string::npos);
    SourceState back = decode_state(text);
    CHECK(back == s);
    // States written before the schedule existed have none.
    SourceState old = decode_state(
        R"({"v":1,"rawJson":false,"workspaces":[{"id":"w","root":"r","phase":"incremental",)"
        R"("cursor":[0,""],"docs":[["d",1,"0000000000000002"]]}]})");
    CHECK(old.splits.at("w").retries.empty());
    CHECK_THROWS_AS(
        decode_state(R"({"v":1,"rawJson":false,"workspaces":[{"id":"w","root":"r","phase":)"
                     R"("incremental","cursor":[0,""],"docs":[],"retry":[["d",0,5]]}]})"),
        std::invalid_argument);
    CHECK_THROWS_AS(
        decode_state(R"({"v":1,"rawJson":false,"workspaces":[{"id":"w","root":"r","phase":)"
                     R"("incremental","cursor":[0,""],"docs":[],"retry":{}}]})"),
        std::invalid_argument);

    boost::asio::io_context io;
    DingTalkOptions o;
    o.app_key = "k";
    DingTalkSource source(o, io);
    source.restore(text);
    CHECK(source.snapshot_state() == text);  // a restart keeps retrying
    CHECK(source.describe_state(text).find("\"retrying\":1") != std::string::npos);
}
