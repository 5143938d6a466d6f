#pragma once
// The difference of two lists of lines, as a unified diff shows it: lines both have (' '), lines
// only the first has ('-'), lines only the second has ('+'), in order (a longest common
// subsequence; the lists of a test case are short).
#include <string>
#include <vector>

namespace cdcd::cmd_test {

struct DiffLine {
    char mark = ' ';
    std::string text;
};

std::vector<DiffLine> diff_lines(const std::vector<std::string>& first,
                                 const std::vector<std::string>& second);

}  // namespace cdcd::cmd_test
