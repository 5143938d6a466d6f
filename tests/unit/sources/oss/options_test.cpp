#include "sources/oss/options.h"

#include <catch2/catch.hpp>

#include "config/option_spec.h"
#include "sources/oss/addressing.h"
#include "sources/oss/records.h"

using namespace cdcd::oss;

TEST_CASE("oss-cdc option declarations are well formed, secrets are secret") {
    auto spec = option_specs();
    CHECK(cdcd::config::check_spec(spec).empty());
    for (const char* key : {"access-key-secret", "security-token"}) {
        const auto* o = spec.find(key);
        REQUIRE(o);
        CHECK(o->secret);
    }
    CHECK(spec.find("mns.batch-size")->max == 16);
    CHECK(spec.find("mns.polling-wait-time")->max == 30'000);
    CHECK(spec.find("polling.prefix-size")->default_value == "100");
    CHECK(spec.find("oss-objects.pre-sign.ttl")->default_value == "1h");
    CHECK(metadata_keys().size() == 18);
    CHECK(metadata_type("eventTime") == "TIMESTAMP_LTZ(3)");
    CHECK(metadata_type("ossObjectReadTo") == "BIGINT");
    CHECK(metadata_type("ossRuleId") == "STRING");
}

TEST_CASE("endpoints: scheme default, VPC rewrite, addressing style") {
    CHECK(normalize_endpoint("oss-cn-hangzhou.aliyuncs.com") ==
          "https://oss-cn-hangzhou.aliyuncs.com");
    CHECK(normalize_endpoint("http://127.0.0.1:9000/") == "http://127.0.0.1:9000");
    // The scheme's "//" is no trailing slash: `http://` was reported as a URL without a scheme.
    CHECK(normalize_endpoint("http://") == "http://");
    CHECK(normalize_endpoint("https:///") == "https://");
    CHECK(mns_vpc_endpoint("http://123.mns.cn-hangzhou.aliyuncs.com") ==
          "http://123.mns.cn-hangzhou-vpc.aliyuncs.com");
    CHECK(mns_vpc_endpoint("https://123.mns.cn-hangzhou-internal.aliyuncs.com") ==
          "https://123.mns.cn-hangzhou-vpc.aliyuncs.com");
    CHECK(mns_vpc_endpoint("http://127.0.0.1:8000") == "http://127.0.0.1:8000");
    CHECK(path_style("http://127.0.0.1:9000"));
    CHECK(path_style("http://localhost:9000"));
    CHECK_FALSE(path_style("https://oss-cn-hangzhou.aliyuncs.com"));
    CHECK(object_url("https://oss-cn-hangzhou.aliyuncs.com", "b", "a b/c+d") ==
          "https://b.oss-cn-hangzhou.aliyuncs.com/a%20b/c%2Bd");
    CHECK(object_url("http://127.0.0.1:9000", "b", "", "list-type=2") ==
          "http://127.0.0.1:9000/b/?list-type=2");
}

TEST_CASE("fixed schema and file names") {
    auto s = object_schema();
    CHECK(s.columns().size() == 8);
    CHECK(s.to_string().find("`key` STRING NOT NULL") != std::string::npos);
    CHECK(s.to_string().find("`modificationTime` TIMESTAMP_LTZ(3)") != std::string::npos);
    CHECK(file_name_of("a/b/c.txt") == "c.txt");
    CHECK(file_name_of("top") == "top");
    CHECK(file_name_of("dir/") == "");
}
