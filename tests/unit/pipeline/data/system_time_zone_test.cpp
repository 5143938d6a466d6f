#include "pipeline/data/system_time_zone.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "pipeline/data/time_zone.h"

using namespace cdcd;
namespace fs = std::filesystem;

namespace {

constexpr const char* kZoneinfo = "/usr/share/zoneinfo";

struct TempDir {
    fs::path path;
    TempDir() {
        char tmpl[] = "/tmp/cdcd-system-zone-XXXXXX";
        path = ::mkdtemp(tmpl);
    }
    ~TempDir() { fs::remove_all(path); }
};

// TZ set for the life of this object, then as it was.
class ScopedTz {
  public:
    explicit ScopedTz(const std::string& value) {
        if (const char* old = std::getenv("TZ")) old_ = old;
        ::setenv("TZ", value.c_str(), 1);
    }
    ~ScopedTz() {
        if (old_)
            ::setenv("TZ", old_->c_str(), 1);
        else
            ::unsetenv("TZ");
    }
    ScopedTz(const ScopedTz&) = delete;
    ScopedTz& operator=(const ScopedTz&) = delete;

  private:
    std::optional<std::string> old_;
};

int offset_in_january(const std::string& id) {
    auto zone = TimeZone::of(id);
    REQUIRE(zone.has_value());
    return zone->offset_at(1767225600);  // 2026-01-01T00:00:00Z
}

}  // namespace

TEST_CASE("a zoneinfo file is named by the id its path ends in, through symlinks", "[time_zone]") {
    CHECK(zone_id_of_file(std::string(kZoneinfo) + "/Asia/Shanghai", kZoneinfo) == "Asia/Shanghai");
    TempDir dir;
    fs::create_symlink(std::string(kZoneinfo) + "/Asia/Kolkata", dir.path / "localtime");
    CHECK(zone_id_of_file((dir.path / "localtime").string(), kZoneinfo) == "Asia/Kolkata");
}

TEST_CASE("a zoneinfo file copied elsewhere is named by the zone with the same bytes",
          "[time_zone]") {
    TempDir dir;
    fs::copy_file(std::string(kZoneinfo) + "/Asia/Kolkata", dir.path / "localtime");
    const std::string id = zone_id_of_file((dir.path / "localtime").string(), kZoneinfo);
    INFO(id);
    REQUIRE(!id.empty());
    CHECK(offset_in_january(id) == 5 * 3600 + 1800);
}

TEST_CASE("a file that is no zone names none", "[time_zone]") {
    TempDir dir;
    std::FILE* f = std::fopen((dir.path / "localtime").c_str(), "w");
    REQUIRE(f);
    std::fputs("not a zone\n", f);
    std::fclose(f);
    CHECK(zone_id_of_file((dir.path / "localtime").string(), kZoneinfo).empty());
    CHECK(zone_id_of_file((dir.path / "missing").string(), kZoneinfo).empty());
}

TEST_CASE("TZ names the system zone as glibc reads it: an id, or a file with or without ':'",
          "[time_zone]") {
    {
        ScopedTz tz("Asia/Tokyo");
        CHECK(system_time_zone().id == "Asia/Tokyo");
    }
    {
        ScopedTz tz(":Asia/Tokyo");
        CHECK(system_time_zone().id == "Asia/Tokyo");
    }
    {
        ScopedTz tz("posix/Asia/Tokyo");
        CHECK(system_time_zone().id == "Asia/Tokyo");
    }
    {
        ScopedTz tz(std::string(kZoneinfo) + "/Asia/Shanghai");
        CHECK(system_time_zone().id == "Asia/Shanghai");
    }
    TempDir dir;
    fs::create_symlink(std::string(kZoneinfo) + "/America/New_York", dir.path / "localtime");
    {
        // The form systemd and Red Hat recommend: the zone of the file the path links to.
        ScopedTz tz(":" + (dir.path / "localtime").string());
        const SystemTimeZone zone = system_time_zone();
        CHECK(zone.id == "America/New_York");
        CHECK(zone.warning.empty());
    }
    {
        ScopedTz tz(":/etc/localtime");
        const SystemTimeZone zone = system_time_zone();
        INFO(zone.warning);
        CHECK(TimeZone::of(zone.id).has_value());
        if (fs::exists("/etc/localtime")) {
            CHECK(zone.warning.empty());
        }
    }
}

TEST_CASE("a TZ that names no zone leaves UTC, with a warning naming it", "[time_zone]") {
    for (const char* value : {"Nowhere/Land", "CET-1CEST,M3.5.0,M10.5.0/3", ":/nonexistent/zone"}) {
        ScopedTz tz(value);
        const SystemTimeZone zone = system_time_zone();
        CHECK(zone.id == "UTC");
        CHECK(zone.warning.find(std::string("TZ='") + value + "'") != std::string::npos);
    }
}

TEST_CASE("systemDefault is the system zone", "[time_zone]") {
    ScopedTz tz(":" + std::string(kZoneinfo) + "/Asia/Kolkata");
    auto zone = TimeZone::of("systemDefault");
    REQUIRE(zone.has_value());
    CHECK(zone->id() == "Asia/Kolkata");
}
