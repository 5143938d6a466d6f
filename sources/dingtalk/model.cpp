#include "sources/dingtalk/model.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace cdcd::dingtalk {

std::int64_t parse_iso8601_ms(std::string_view text) {
    std::string s(text);
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, consumed = 0;
    if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d%n", &y, &mo, &d, &h, &mi, &consumed) != 5)
        return -1;
    std::size_t pos = static_cast<std::size_t>(consumed);
    double seconds = 0;
    if (pos < s.size() && s[pos] == ':') {
        int n = 0;
        if (std::sscanf(s.c_str() + pos + 1, "%lf%n", &seconds, &n) != 1) return -1;
        pos += 1 + static_cast<std::size_t>(n);
    }
    long offset_s = 0;
    if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
        int oh = 0, om = 0;
        if (std::sscanf(s.c_str() + pos + 1, "%2d:%2d", &oh, &om) < 1) return -1;
        offset_s = (oh * 3600L + om * 60L) * (s[pos] == '-' ? -1 : 1);
    } else if (pos < s.size() && s[pos] != 'Z') {
        return -1;
    }
    std::tm tm{};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    std::int64_t epoch = timegm(&tm);
    return (epoch - offset_s) * 1000 + std::llround(seconds * 1000);
}

}  // namespace cdcd::dingtalk
