// GET /tap's query string: defaults, every parameter, and refusals naming the parameter.
#include "pipeline/runtime/tap_request.h"

#include <catch2/catch.hpp>

using namespace cdcd;
using Catch::Contains;

TEST_CASE("a tap request defaults to the transform point at 100 events a second, no limit") {
    TapRequest r = parse_tap_request("");
    CHECK(r.point == TapPoint::Transform);
    CHECK(r.table.empty());
    CHECK(r.rate == kDefaultTapRate);
    CHECK(r.limit == 0);
}

TEST_CASE("a tap request reads point, a percent-encoded table selector, rate and limit") {
    TapRequest r = parse_tap_request("point=sink&table=app%5C.%2A.orders&rate=1000&limit=7");
    CHECK(r.point == TapPoint::Sink);
    CHECK(r.table == "app\\.*.orders");
    CHECK(r.rate == 1000);
    CHECK(r.limit == 7);
    CHECK(parse_tap_request("point=source&&").point == TapPoint::Source);
    CHECK(parse_tap_request("table=a.b,c+d.e").table == "a.b,c d.e");
}

TEST_CASE("a bad tap request names the parameter") {
    struct Bad {
        const char* query;
        const char* says;
    };
    for (auto [query, says] : {
             Bad{"point=middle", "parameter point must be source, transform or sink"},
             Bad{"rate=0", "parameter rate must be a whole number from 1 to 1000"},
             Bad{"rate=1001", "parameter rate"},
             Bad{"rate=-1", "parameter rate"},
             Bad{"rate=", "parameter rate"},
             Bad{"limit=ten", "parameter limit must be a whole number"},
             Bad{"table=a(", "parameter table"},
             Bad{"table=a.b.c.d", "parameter table"},
             Bad{"point=sink&point=source", "parameter point is given twice"},
             Bad{"colour=red", "unknown parameter 'colour' (known: point, table, rate, limit)"},
             Bad{"table=%zz", "bad percent-encoding in parameter table"},
             Bad{"table=%4", "bad percent-encoding"},
         }) {
        INFO(query);
        CHECK_THROWS_WITH(parse_tap_request(query), Contains(says));
    }
}
