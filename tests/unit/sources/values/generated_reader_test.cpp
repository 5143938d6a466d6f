// GENERATED split into readers: reader i of N emits the ids equal to i modulo N, each id's events
// in order, and a checkpoint of the readers' positions, restored with any number of readers,
// neither repeats nor skips an event.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "sources/values/emitted_ordinals.h"
#include "sources/values/values_source.h"

using namespace cdcd;
using values::EmittedOrdinals;

namespace {

/// Collects what a reader emits; stops it once `budget` events have come (it ends its batch).
class CollectingOutput final : public SourceOutput {
  public:
    explicit CollectingOutput(std::size_t budget) : budget_(budget) {}
    boost::asio::awaitable<void> emit(EventBatch events) override {
        for (Event& e : events) events_.push_back(std::move(e));
        co_return;
    }
    bool stopping() const override { return data_events() >= budget_; }
    boost::asio::awaitable<void> sleep(std::int64_t) override { co_return; }

    std::size_t data_events() const {
        std::size_t n = 0;
        for (const Event& e : events_) n += std::holds_alternative<DataChangeEvent>(e);
        return n;
    }
    std::vector<Event> events_;

  private:
    std::size_t budget_;
};

void run(SourceReader& reader, CollectingOutput& output) {
    boost::asio::io_context io;
    boost::asio::co_spawn(io, reader.run(output), boost::asio::detached);
    io.run();
}

values::ValuesSourceSettings generated(std::int64_t rows, std::int64_t updates,
                                       std::int64_t delete_every) {
    values::ValuesSourceSettings s;
    s.event_set = "GENERATED";
    s.generator.rows = rows;
    s.generator.updates_per_row = updates;
    s.generator.delete_every = delete_every;
    s.generator.payload_bytes = 8;
    return s;
}

/// (op, id, version) of a data event: unique in the GENERATED stream.
using EventKey = std::tuple<int, std::int64_t, std::int64_t>;
EventKey key_of(const DataChangeEvent& e) {
    RowView row = e.after ? e.after->view() : e.before->view();
    return {static_cast<int>(e.op), row.get_long(0), row.get_long(1)};
}

}  // namespace

TEST_CASE("values GENERATED: next_in_share finds the next ordinal of a share") {
    for (auto [rows, updates, del] :
         {std::tuple{7, 2, 3}, {1, 3, 1}, {10, 0, 0}, {4, 1, 2}, {0, 2, 1}, {5, 2, 0}}) {
        values::Generator g({rows, updates, del, 8});
        for (std::int64_t count = 1; count <= 4; ++count)
            for (std::int64_t index = 0; index < count; ++index)
                for (std::int64_t k = 0; k <= g.total(); ++k) {
                    std::int64_t expected = k;
                    while (expected < g.total() && g.id_at(expected) % count != index) ++expected;
                    INFO("rows " << rows << " updates " << updates << " delete-every " << del
                                 << " share " << index << "/" << count << " from " << k);
                    CHECK(g.next_in_share(k, index, count) == expected);
                }
    }
}

TEST_CASE("values GENERATED: readers emit every event once, each id's events in order") {
    values::ValuesSource source(generated(100, 2, 7));
    auto readers = source.split_readers(3);
    REQUIRE(readers.size() == 3);
    std::set<EventKey> seen;
    for (std::size_t i = 0; i < readers.size(); ++i) {
        CollectingOutput out(1'000'000);
        run(*readers[i], out);
        REQUIRE(std::holds_alternative<CreateTableEvent>(out.events_.front()));
        std::map<std::int64_t, std::int64_t> last_version;
        for (const Event& e : out.events_) {
            const auto* data = std::get_if<DataChangeEvent>(&e);
            if (!data) continue;
            auto [op, id, version] = key_of(*data);
            CHECK(static_cast<std::size_t>(id) % 3 == i);
            auto [it, first] = last_version.emplace(id, version);
            if (!first) {
                CHECK(version >= it->second);  // an id's changes keep their order
                it->second = version;
            }
            CHECK(seen.insert(key_of(*data)).second);
        }
    }
    CHECK(static_cast<std::int64_t>(seen.size()) == values::Generator({100, 2, 7, 8}).total());
}

TEST_CASE("values GENERATED: a fixed set, or one thread, does not split") {
    values::ValuesSourceSettings fixed;
    fixed.event_set = "SINGLE_SPLIT_SINGLE_TABLE";
    CHECK(values::ValuesSource(fixed).split_readers(2).empty());
    CHECK(values::ValuesSource(generated(10, 0, 0)).split_readers(1).empty());
    auto paced = generated(10, 0, 0);
    paced.rate = 100;
    CHECK(values::ValuesSource(paced).split_readers(2).size() == 2);
}

TEST_CASE("values GENERATED: merged positions keep what both the old state and the readers say") {
    CHECK(EmittedOrdinals::merge(EmittedOrdinals{{5}}, {7, 9}).below ==
          std::vector<std::int64_t>{7, 9});
    CHECK(EmittedOrdinals::merge(EmittedOrdinals{{8, 8}}, {8, 8, 8}).below ==
          std::vector<std::int64_t>{8});
    // Three readers restored from two: until they pass 20, the old entries stay (period 6).
    CHECK(EmittedOrdinals::merge(EmittedOrdinals{{20, 10}}, {12, 15, 12}).below ==
          std::vector<std::int64_t>{20, 15, 20, 12, 20, 12});
    CHECK(EmittedOrdinals::merge(EmittedOrdinals{{20, 10}}, {12, 12, 12}).below ==
          std::vector<std::int64_t>{20, 12});
}

TEST_CASE("values GENERATED: checkpoints restored with other numbers of readers lose nothing") {
    const auto settings = generated(50, 3, 4);
    const std::int64_t total = values::Generator(settings.generator).total();
    std::mt19937 random(42);
    for (int trial = 0; trial < 30; ++trial) {
        std::multiset<EventKey> seen;
        std::string state = values::ValuesSource(settings).snapshot_state();
        // Each run takes some events in every reader, then checkpoints; the last runs to the end.
        for (int run_no = 0; run_no < 6; ++run_no) {
            values::ValuesSource source(settings);
            source.restore(state);
            const std::size_t count = 1 + random() % 4;
            const bool last = run_no == 5;
            std::vector<std::string> states;
            auto readers = source.split_readers(count);
            if (readers.empty()) {  // one reader: the source reads on its own
                CollectingOutput out(last ? 1'000'000 : random() % 60);
                boost::asio::io_context io;
                boost::asio::co_spawn(io, source.run(out), boost::asio::detached);
                io.run();
                for (const Event& e : out.events_)
                    if (const auto* d = std::get_if<DataChangeEvent>(&e)) seen.insert(key_of(*d));
                state = source.snapshot_state();
                continue;
            }
            for (auto& reader : readers) {
                CollectingOutput out(last ? 1'000'000 : random() % 60);
                run(*reader, out);
                for (const Event& e : out.events_)
                    if (const auto* d = std::get_if<DataChangeEvent>(&e)) seen.insert(key_of(*d));
                states.push_back(reader->snapshot_state());
            }
            state = source.merge_reader_states(states);
        }
        INFO("trial " << trial << ", final state " << state);
        CHECK(static_cast<std::int64_t>(seen.size()) == total);
        CHECK(std::set<EventKey>(seen.begin(), seen.end()).size() == seen.size());
        CHECK(state.find("\"position\":" + std::to_string(total)) != std::string::npos);
    }
}

TEST_CASE("values GENERATED: the state of split readers is a list of positions, read back") {
    values::ValuesSource source(generated(10, 0, 0));
    auto readers = source.split_readers(2);
    const std::string state = source.merge_reader_states({"4", "7"});
    CHECK(state == R"({"connector":"values-source","version":2,"state":{"positions":[4,7]}})");
    values::ValuesSource restored(generated(10, 0, 0));
    restored.restore(state);
    CHECK(restored.describe_state(state).find("\"positions\":[4,7]") != std::string::npos);
    CHECK_THROWS_WITH(restored.restore(R"({"connector":"values-source","version":2,)"
                                       R"("state":{"positions":[]}})"),
                      Catch::Matchers::Contains("positions is empty"));
    CHECK_THROWS_WITH(restored.restore(R"({"connector":"values-source","version":2,)"
                                       R"("state":{"positions":[1,"x"]}})"),
                      Catch::Matchers::Contains("not an integer"));
    values::ValuesSourceSettings fixed;
    fixed.event_set = "SINGLE_SPLIT_SINGLE_TABLE";
    CHECK_THROWS_WITH(values::ValuesSource(fixed).restore(state),
                      Catch::Matchers::Contains("split GENERATED stream"));
}
