// Taps attached to the runtime's points: sampling bounded by rate and limit, table filters,
// schemas followed through a batch, the switch, the bound on taps, and drops when not read.
#include "pipeline/runtime/tap_hub.h"

#include <catch2/catch.hpp>

using namespace cdcd;
using namespace std::chrono_literals;
using Catch::Contains;

namespace {

const TableId kOrders = TableId::of("db", "orders");
const TableId kUsers = TableId::of("db", "users");

Schema two_columns() {
    return SchemaBuilder().column("id", DataType::bigint()).column("v", DataType::string()).build();
}

Row row(std::int64_t id, const std::string& v) {
    RowBuilder b(2);
    b.set_long(0, id).set_string(1, v);
    return std::move(b).build();
}

EventBatch inserts(TableId table, std::int64_t from, std::int64_t to) {
    EventBatch batch;
    for (std::int64_t id = from; id < to; ++id)
        batch.push_back(Event(DataChangeEvent::insert(table, row(id, "v" + std::to_string(id)))));
    return batch;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

struct Fixture {
    metrics::Registry registry;
    Schema schema = two_columns();
    std::function<const Schema*(TableId)> lookup = [this](TableId) { return &schema; };
};

}  // namespace

TEST_CASE("without a tap an offer copies nothing and never asks for a schema") {
    metrics::Registry registry;
    TapHub hub({}, registry);
    int asked = 0;
    auto batch = inserts(kOrders, 0, 100);
    hub.offer(TapPoint::Transform, batch, [&](TableId) -> const Schema* {
        ++asked;
        return nullptr;
    });
    CHECK(asked == 0);
}

TEST_CASE("a tap samples its point only, up to its limit, and then is complete") {
    Fixture f;
    TapHub hub({}, f.registry);
    auto opened = hub.open("point=source&limit=5&rate=1000");
    REQUIRE(opened.status == 200);
    auto batch = inserts(kOrders, 0, 1000);
    hub.offer(TapPoint::Transform, batch, f.lookup);
    std::string out;
    CHECK(hub.take(*opened.tap, out) == 0);
    hub.offer(TapPoint::Source, batch, f.lookup);
    CHECK(hub.take(*opened.tap, out) == 5);
    CHECK(opened.tap->complete());
    for (const auto& line : lines_of(out))
        CHECK_THAT(
            line,
            Contains(R"({"point":"source","table":"db.orders","op":"insert","after":{"id":)"));
    hub.offer(TapPoint::Source, batch, f.lookup);
    CHECK(hub.take(*opened.tap, out) == 0);
    CHECK(f.registry.expose().find(R"(cdcd_tap_lines_sent_total{point="source"} 5)") !=
          std::string::npos);
    CHECK(f.registry.expose().find(R"(cdcd_taps_attached{point="source"} 1)") != std::string::npos);
    // Sampling took some time, well under a second; nothing was sampled at the sink point.
    auto sampling_seconds = [&](const char* point) {
        std::string key = std::string("cdcd_tap_sampling_seconds_total{point=\"") + point + "\"} ";
        std::string text = f.registry.expose();
        auto at = text.find(key);
        REQUIRE(at != std::string::npos);
        return std::stod(text.substr(at + key.size()));
    };
    CHECK(sampling_seconds("source") > 0);
    CHECK(sampling_seconds("source") < 1);
    CHECK(sampling_seconds("sink") == 0);
    hub.close(opened.tap);
    CHECK(f.registry.expose().find(R"(cdcd_taps_attached{point="source"} 0)") != std::string::npos);
}

TEST_CASE("a tap's samples spread over the batch rather than its first events") {
    Fixture f;
    TapRequest request;
    request.rate = 1000;  // 100 at most per batch
    metrics::Counter dropped;
    SensitiveColumns none;
    Tap tap(request, none, dropped);
    auto batch = inserts(kOrders, 0, 1000);
    tap.offer(batch, f.lookup, -1, TapTokenBucket::Clock::now());
    std::string out;
    auto lines = lines_of((tap.take(out), out));
    REQUIRE(lines.size() == 100);
    CHECK_THAT(lines.back(), Contains(R"("id":99)"));  // the last tenth of the batch
}

TEST_CASE("a tap takes at most its rate a second and drops what its client does not read") {
    Fixture f;
    TapRequest request;
    request.rate = 1000;
    metrics::Counter dropped;
    SensitiveColumns none;
    Tap tap(request, none, dropped);
    auto t = TapTokenBucket::Clock::now();
    auto batch = inserts(kOrders, 0, 1000);
    for (int i = 0; i < 3000; ++i) {  // three seconds of batches, nobody reading
        t += 1ms;
        tap.offer(batch, f.lookup, -1, t);
    }
    std::string out;
    std::size_t queued = tap.take(out);
    CHECK(queued == Tap::kMaxQueuedLines);
    CHECK(dropped.value() >= 2000);           // 3 s at 1000/s (plus a burst of 100), 1000 kept
    CHECK(queued + dropped.value() <= 3100);  // never more than the rate
}

TEST_CASE("a tap's table filter keeps only the tables it selects") {
    Fixture f;
    TapHub hub({}, f.registry);
    auto opened = hub.open("table=db.us%5C.*&rate=1000");
    REQUIRE(opened.status == 200);
    EventBatch batch = inserts(kOrders, 0, 500);
    EventBatch more = inserts(kUsers, 1000, 1500);
    batch.insert(batch.end(), more.begin(), more.end());
    hub.offer(TapPoint::Transform, batch, f.lookup);
    std::string out;
    REQUIRE(hub.take(*opened.tap, out) > 0);
    for (const auto& line : lines_of(out)) CHECK_THAT(line, Contains(R"("table":"db.users")"));
}

TEST_CASE("a tap follows schema changes within a batch and hides sensitive columns") {
    Fixture f;
    TapSettings settings;
    settings.sensitive = *SensitiveColumns::parse({"db.orders.v"}, nullptr);
    TapHub hub(std::move(settings), f.registry);
    auto opened = hub.open("point=source&rate=1000");
    REQUIRE(opened.status == 200);
    Schema wider = SchemaBuilder()
                       .column("id", DataType::bigint())
                       .column("v", DataType::string())
                       .column("w", DataType::int_())
                       .build();
    EventBatch batch;
    batch.push_back(Event(CreateTableEvent{kUsers, wider}));
    RowBuilder b(3);
    b.set_long(0, 7).set_string(1, "x").set_long(2, 9);
    batch.push_back(Event(DataChangeEvent::insert(kUsers, std::move(b).build())));
    batch.push_back(Event(DataChangeEvent::insert(kOrders, row(8, "secret"))));
    // Users: its schema comes from the batch (the lookup would give the 2-column one).
    hub.offer(TapPoint::Source, batch, f.lookup);
    std::string out;
    REQUIRE(hub.take(*opened.tap, out) == 3);
    auto lines = lines_of(out);
    CHECK_THAT(lines[0], Contains(R"("op":"schema-change")"));
    CHECK_THAT(lines[1], Contains(R"("after":{"id":7,"v":"x","w":9})"));
    CHECK_THAT(lines[2], Contains(R"("after":{"id":8,"v":"***"})"));
    CHECK(out.find("secret") == std::string::npos);
}

TEST_CASE("rows of a table whose schema is not known are not shown") {
    Fixture f;
    TapHub hub({}, f.registry);
    auto opened = hub.open("rate=1000");
    auto batch = inserts(kOrders, 0, 10);
    hub.offer(TapPoint::Transform, batch, [](TableId) -> const Schema* { return nullptr; });
    Schema other = SchemaBuilder().column("id", DataType::bigint()).build();  // wrong arity
    hub.offer(TapPoint::Transform, batch, [&](TableId) { return &other; });
    std::string out;
    CHECK(hub.take(*opened.tap, out) == 0);
}

TEST_CASE("tapping switched off answers 403, a bad query 400, too many taps 503") {
    metrics::Registry registry;
    TapSettings off;
    off.enabled = false;
    TapHub closed(std::move(off), registry);
    auto refused = closed.open("");
    CHECK(refused.status == 403);
    CHECK_THAT(refused.message, Contains("pipeline.tap.enabled: false"));

    metrics::Registry registry2;
    TapSettings two;
    two.max_taps = 2;
    TapHub hub(std::move(two), registry2);
    auto bad = hub.open("rate=fast");
    CHECK(bad.status == 400);
    CHECK_THAT(bad.message, Contains("parameter rate"));
    auto first = hub.open("");
    auto second = hub.open("point=sink");
    REQUIRE(first.status == 200);
    REQUIRE(second.status == 200);
    auto third = hub.open("");
    CHECK(third.status == 503);
    CHECK_THAT(third.message, Contains("too many taps"));
    hub.close(first.tap);
    CHECK(hub.open("").status == 200);
}
