// Which VikingDB answers are throttling (waited out), which are failures counted against
// max-retries, which are permanent; and the notes that error messages carry about attempts and
// causes VikingDB does not name.
#include <catch2/catch.hpp>

#include "sinks/vikingdb/control_plane_client.h"

using namespace cdcd;
using namespace cdcd::vikingdb;
using namespace std::chrono_literals;

namespace {
net::HttpResponse answer(int status, const std::string& code, bool control = false) {
    net::HttpResponse r;
    r.status = status;
    r.body = control ? R"({"ResponseMetadata":{"Error":{"Code":")" + code + R"(","Message":"m"}}})"
                     : R"({"code":")" + code + R"(","message":"m","request_id":"x"})";
    return r;
}
net::Outcome outcome(const net::HttpResponse& r) {
    return classify_response(r).outcome;
}
}  // namespace

TEST_CASE("429 and the throttling codes are throttled, 5xx retryable, other 4xx permanent") {
    CHECK(outcome(answer(200, "Success")) == net::Outcome::Success);
    CHECK(outcome(answer(429, "RequestLimitExceeded")) == net::Outcome::Throttled);
    CHECK(outcome(answer(429, "FlowLimitExceeded", true)) == net::Outcome::Throttled);
    CHECK(outcome(answer(429, "")) == net::Outcome::Throttled);
    // A throttling code is throttling whatever the status.
    CHECK(outcome(answer(503, "RequestLimitExceeded")) == net::Outcome::Throttled);
    CHECK(outcome(answer(400, "Throttling.User", true)) == net::Outcome::Throttled);
    CHECK(outcome(answer(503, "ServiceUnavailable")) == net::Outcome::Retryable);
    CHECK(outcome(answer(500, "InternalError")) == net::Outcome::Retryable);
    CHECK(outcome(answer(408, "")) == net::Outcome::Retryable);
    // A quota that is no rate limit is not waited out forever: a failure like a 5xx.
    CHECK(outcome(answer(400, "QuotaLimitExceeded")) == net::Outcome::Retryable);
    CHECK(outcome(answer(400, "InvalidParameter")) == net::Outcome::Permanent);
    CHECK(outcome(answer(404, "NotFound.VikingdbCollection")) == net::Outcome::Permanent);
}

TEST_CASE("error messages say when max-retries ran out, after how long") {
    net::RetryResult r;
    r.outcome = net::Outcome::Retryable;
    r.attempts = 4;
    r.elapsed = 21'340ms;
    CHECK(attempts_note(r, 3) == " (max-retries: 3 exhausted: 4 attempts over 21.3 s)");
    r.attempts = 6;
    r.throttled = 2;
    CHECK(attempts_note(r, 3) ==
          " (max-retries: 3 exhausted: 6 attempts over 21.3 s, 2 of them throttled)");
    r.attempts = 1;
    r.throttled = 0;
    r.elapsed = 30ms;
    CHECK(attempts_note(r, 0) == " (max-retries: 0 exhausted: 1 attempt over 0.0 s)");
    r.outcome = net::Outcome::Permanent;
    r.attempts = 2;
    r.throttled = 0;
    CHECK(attempts_note(r, 3) == " (after 2 attempts)");
    r.attempts = 1;
    CHECK(attempts_note(r, 3).empty());
}

TEST_CASE("a request refused for its time names the host's clock, other codes add nothing") {
    // InvalidTimestamp is permanent: retrying within seconds does not move a clock 15 minutes.
    CHECK(outcome(answer(400, "InvalidTimestamp")) == net::Outcome::Permanent);
    CHECK(cause_note("InvalidTimestamp")
              .find("this host's clock is more than 15 minutes from "
                    "VikingDB's; set it right (NTP)") != std::string::npos);
    CHECK(cause_note("InvalidParameter").empty());
    CHECK(cause_note("").empty());
}
