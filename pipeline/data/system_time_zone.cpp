#include "pipeline/data/system_time_zone.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <vector>

#include "pipeline/data/time_zone.h"

namespace cdcd {

namespace {

namespace fs = std::filesystem;

constexpr const char* kZoneinfo = "/usr/share/zoneinfo";

bool known(const std::string& id) {
    return !id.empty() && TimeZone::of(id).has_value();
}

// "posix/Asia/Shanghai" is the same zone as "Asia/Shanghai" (glibc and Java drop the prefix).
std::string without_posix_prefix(std::string id) {
    if (id.rfind("posix/", 0) == 0) id.erase(0, 6);
    return id;
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The zone under `dir` whose file has these bytes, by id in sorted order (aliases such as PRC and
// Asia/Shanghai have the same bytes and the same rules); the copies under posix/ and right/ (leap
// seconds) are not ids of their own.
std::string zone_with_bytes(const std::string& bytes, const fs::path& dir) {
    std::error_code ec;
    std::vector<std::string> ids;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const fs::path rel = it->path().lexically_relative(dir);
        const std::string id = rel.generic_string();
        if (it->is_directory(ec)) {
            if (id == "posix" || id == "right") it.disable_recursion_pending();
            continue;
        }
        if (id == "localtime" || id == "posixrules" || !it->is_regular_file(ec)) continue;
        if (it->file_size(ec) != bytes.size() || ec) continue;
        ids.push_back(id);
    }
    std::sort(ids.begin(), ids.end());
    for (const auto& id : ids)
        if (read_file(dir / id) == bytes && known(id)) return id;
    return {};
}

}  // namespace

std::string zone_id_of_file(const std::string& path, const std::string& zoneinfo_dir) {
    std::error_code ec;
    const std::string resolved = fs::canonical(path, ec).generic_string();
    if (ec) return {};
    if (auto at = resolved.rfind("zoneinfo/"); at != std::string::npos) {
        std::string id = without_posix_prefix(resolved.substr(at + 9));
        if (known(id)) return id;
    }
    const std::string bytes = read_file(resolved);
    if (bytes.rfind("TZif", 0) != 0) return {};
    return zone_with_bytes(bytes, zoneinfo_dir);
}

SystemTimeZone system_time_zone() {
    if (const char* tz = std::getenv("TZ"); tz != nullptr && *tz != '\0') {
        std::string value = tz[0] == ':' ? tz + 1 : tz;
        std::string id = value.rfind('/', 0) == 0 ? zone_id_of_file(value, kZoneinfo)
                                                  : without_posix_prefix(value);
        if (known(id)) return {id, {}};
        return {"UTC", "pipeline.local-time-zone is systemDefault, and TZ='" + std::string(tz) +
                           "' names no time zone cdcd knows (an IANA id such as Asia/Shanghai, or "
                           "a zoneinfo file): UTC stands in; set pipeline.local-time-zone"};
    }
    std::ifstream timezone_file("/etc/timezone");
    std::string line;
    if (timezone_file && std::getline(timezone_file, line)) {
        line.erase(line.find_last_not_of(" \t\r") + 1);
        if (known(line)) return {line, {}};
    }
    std::error_code ec;
    if (!fs::exists("/etc/localtime", ec)) return {"UTC", {}};  // no zone set: UTC, as for glibc
    if (std::string id = zone_id_of_file("/etc/localtime", kZoneinfo); !id.empty()) return {id, {}};
    return {"UTC", "pipeline.local-time-zone is systemDefault, and /etc/localtime is no zone of " +
                       std::string(kZoneinfo) + ": UTC stands in; set pipeline.local-time-zone"};
}

}  // namespace cdcd
