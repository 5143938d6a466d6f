#include "cmd/test/line_diff.h"

namespace cdcd::cmd_test {

std::vector<DiffLine> diff_lines(const std::vector<std::string>& first,
                                 const std::vector<std::string>& second) {
    const std::size_t n = first.size(), m = second.size();
    // common[i][j]: the longest common subsequence of first[i..] and second[j..].
    std::vector<std::vector<std::size_t>> common(n + 1, std::vector<std::size_t>(m + 1, 0));
    for (std::size_t i = n; i-- > 0;)
        for (std::size_t j = m; j-- > 0;)
            common[i][j] = first[i] == second[j] ? common[i + 1][j + 1] + 1
                                                 : std::max(common[i + 1][j], common[i][j + 1]);
    std::vector<DiffLine> out;
    std::size_t i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && first[i] == second[j]) {
            out.push_back({' ', first[i]});
            ++i, ++j;
        } else if (j == m || (i < n && common[i + 1][j] >= common[i][j + 1])) {
            out.push_back({'-', first[i++]});
        } else {
            out.push_back({'+', second[j++]});
        }
    }
    return out;
}

}  // namespace cdcd::cmd_test
