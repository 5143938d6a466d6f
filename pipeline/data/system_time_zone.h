#pragma once
// The machine's time zone, for `pipeline.local-time-zone: systemDefault`: read where glibc reads
// it (TZ, else /etc/localtime) and named as Java names it, by an IANA id (TimeZone_md.c: TZ, then
// /etc/timezone, then the zoneinfo file /etc/localtime links to or has the bytes of).
#include <string>

namespace cdcd {

struct SystemTimeZone {
    std::string id;  // an id TimeZone::of accepts
    /// Set when the machine's zone could not be told (a TZ that names no zone, an /etc/localtime
    /// that is none of the zoneinfo files): UTC stands in,
    /// as it does for glibc and Java, and this says why, for the log.
    std::string warning;
};

SystemTimeZone system_time_zone();

/// The IANA id of a TZif file: from the path it resolves to (`.../zoneinfo/Asia/Shanghai`), else
/// the zoneinfo file with the same bytes (an /etc/localtime copied, not linked). Empty when
/// neither.
std::string zone_id_of_file(const std::string& path, const std::string& zoneinfo_dir);

}  // namespace cdcd
