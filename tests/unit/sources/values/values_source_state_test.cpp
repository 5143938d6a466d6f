// The values source's checkpoint state: its position in the event set. What earlier releases wrote
// (a bare decimal, testdata/) still restores.
#include <catch2/catch.hpp>

#include "sources/values/values_source.h"
#include "tests/unit/testdata.h"

using namespace cdcd;

namespace {

values::ValuesSource fixed_source() {
    values::ValuesSourceSettings settings;
    settings.event_set = "SINGLE_SPLIT_SINGLE_TABLE";
    return values::ValuesSource(settings);
}

const std::string kLegacy = "sources/values/testdata/checkpoint-state-position.txt";

}  // namespace

TEST_CASE("values source: a position written before the state envelope restores") {
    auto source = fixed_source();
    source.restore(testing::testdata(kLegacy));
    CHECK(source.describe_state(source.snapshot_state()).find("\"position\":1234") !=
          std::string::npos);
}

TEST_CASE("values source: the golden sample is what that release's encoder wrote") {
    auto source = fixed_source();
    source.restore(testing::testdata(kLegacy));
    CHECK(source.snapshot_state() == testing::testdata(kLegacy));
}

TEST_CASE("values source: an unreadable state is refused with the state quoted") {
    auto source = fixed_source();
    CHECK_THROWS_WITH(source.restore("12x"), Catch::Matchers::Contains("'12x'"));
}
