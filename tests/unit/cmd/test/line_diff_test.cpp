// The diff `cdcd test` prints when a case's events differ from those expected.
#include "cmd/test/line_diff.h"

#include <catch2/catch.hpp>

using namespace cdcd::cmd_test;

namespace {

std::string render(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::string out;
    for (const auto& line : diff_lines(a, b)) out += std::string(1, line.mark) + line.text + "\n";
    return out;
}

}  // namespace

TEST_CASE("equal lists differ nowhere", "[cmd][test]") {
    CHECK(render({"a", "b"}, {"a", "b"}) == " a\n b\n");
    CHECK(render({}, {}).empty());
}

TEST_CASE("a changed line shows as removed then added, in place", "[cmd][test]") {
    CHECK(render({"a", "b", "c"}, {"a", "B", "c"}) == " a\n-b\n+B\n c\n");
}

TEST_CASE("missing and extra lines keep the common ones aligned", "[cmd][test]") {
    CHECK(render({"a", "b", "c"}, {"a", "c"}) == " a\n-b\n c\n");
    CHECK(render({"a", "c"}, {"x", "a", "c", "d"}) == "+x\n a\n c\n+d\n");
    CHECK(render({"a"}, {}) == "-a\n");
}
