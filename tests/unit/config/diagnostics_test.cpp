#include "config/diagnostics.h"

#include <catch2/catch.hpp>

using namespace cdcd::config;

TEST_CASE("diagnostics render as file:line:column: error: message", "[config][diagnostics]") {
    Diagnostics d;
    CHECK(d.ok());
    d.error({"a.yaml", 3, 7}, "first problem");
    d.error({"a.yaml", 10, 1}, "second problem");
    d.error({"b.yaml", 0, 0}, "cannot open file");
    CHECK_FALSE(d.ok());
    CHECK(d.size() == 3);
    CHECK(d.to_string() ==
          "a.yaml:3:7: error: first problem\n"
          "a.yaml:10:1: error: second problem\n"
          "b.yaml: error: cannot open file\n");
}

TEST_CASE("ConfigError carries every diagnostic", "[config][diagnostics]") {
    Diagnostics d;
    d.error({"p.yaml", 1, 2}, "one");
    d.error({"p.yaml", 4, 5}, "two");
    try {
        throw ConfigError(d);
    } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()) == "p.yaml:1:2: error: one\np.yaml:4:5: error: two\n");
        const auto* ce = dynamic_cast<const ConfigError*>(&e);
        REQUIRE(ce != nullptr);
        CHECK(ce->diagnostics().size() == 2);
        CHECK(ce->diagnostics().items()[1].where == SourceLocation{"p.yaml", 4, 5});
    }
}
