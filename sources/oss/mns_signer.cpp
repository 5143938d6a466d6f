#include "sources/oss/mns_signer.h"

#include <algorithm>
#include <ctime>

#include "sources/oss/crypto.h"
#include "text/ascii.h"

namespace cdcd::oss {

std::string mns_string_to_sign(const MnsSignInput& in) {
    std::vector<std::pair<std::string, std::string>> mns;
    for (const auto& [k, v] : in.headers) {
        std::string n = ascii::to_lower(k);
        if (n.rfind("x-mns-", 0) == 0) mns.emplace_back(n, v);
    }
    std::sort(mns.begin(), mns.end());
    std::string s =
        in.method + "\n" + in.content_md5 + "\n" + in.content_type + "\n" + in.date + "\n";
    for (const auto& [k, v] : mns) s += k + ":" + v + "\n";
    return s + in.resource;
}

std::string mns_signature(const std::string& secret, const MnsSignInput& in) {
    return base64_encode(hmac_sha1(secret, mns_string_to_sign(in)));
}

std::string mns_authorization(const std::string& access_key_id, const std::string& secret,
                              const MnsSignInput& in) {
    return "MNS " + access_key_id + ":" + mns_signature(secret, in);
}

std::string http_date(long long unix_seconds) {
    std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    static const char* days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday],
                  tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                  tm.tm_sec);
    return buf;
}

}  // namespace cdcd::oss
