// The CPUs a process may use, as a container's CPU quota states them.
#include "pipeline/runtime/available_cpus.h"

#include <catch2/catch.hpp>

using namespace cdcd;

TEST_CASE("a cgroup v2 cpu.max quota gives its CPUs, rounded up") {
    CHECK(cpus_of_cgroup2_max("200000 100000\n") == 2U);
    CHECK(cpus_of_cgroup2_max("150000 100000") == 2U);  // 1.5 CPUs: two threads progress
    CHECK(cpus_of_cgroup2_max("50000 100000") == 1U);
    CHECK_FALSE(cpus_of_cgroup2_max("max 100000\n"));  // no limit
    CHECK_FALSE(cpus_of_cgroup2_max(""));
    CHECK_FALSE(cpus_of_cgroup2_max("0 100000"));
}

TEST_CASE("a cgroup v1 CFS quota gives its CPUs, and -1 is no limit") {
    CHECK(cpus_of_cgroup1_quota("400000\n", "100000\n") == 4U);
    CHECK(cpus_of_cgroup1_quota("100001", "100000") == 2U);
    CHECK_FALSE(cpus_of_cgroup1_quota("-1\n", "100000\n"));
    CHECK_FALSE(cpus_of_cgroup1_quota("abc", "100000"));
}

TEST_CASE("this process may use at least one CPU") {
    CHECK(available_cpus() >= 1);
}
