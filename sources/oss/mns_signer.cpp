#include "sources/oss/mns_signer.h"

#include <ctime>

#include "net/digest.h"
#include "pipeline/util/base64.h"
#include "sources/oss/signer_v1.h"

namespace cdcd::oss {

std::string mns_string_to_sign(const MnsSignInput& in) {
    return v1_style_string_to_sign(in.method, in.content_md5, in.content_type, in.date, in.headers,
                                   "x-mns-", in.resource);
}

std::string mns_signature(const std::string& secret, const MnsSignInput& in) {
    return base64_encode(net::hmac_sha1(secret, mns_string_to_sign(in)));
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
