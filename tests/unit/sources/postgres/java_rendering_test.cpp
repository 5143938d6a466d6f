// Java's renderings that Flink CDC's values carry: Double.toString, String.hashCode, HashMap's
// iteration order and Jackson's string escaping. The expected texts are what a JDK prints.
#include "sources/postgres/java_rendering.h"

#include <catch2/catch.hpp>
#include <limits>

using namespace cdcd::postgres;

namespace {

std::string order(const std::vector<std::string>& keys) {
    std::string out;
    for (std::size_t i : java::hash_map_order(keys)) {
        if (!out.empty()) out += ',';
        out += keys[i];
    }
    return out;
}

std::string json(std::string_view text) {
    std::string out;
    java::append_json_string(out, text);
    return out;
}

}  // namespace

TEST_CASE("java rendering: Double.toString") {
    CHECK(java::double_string(3.456) == "3.456");
    CHECK(java::double_string(7.89) == "7.89");
    CHECK(java::double_string(1) == "1.0");
    CHECK(java::double_string(-2) == "-2.0");
    CHECK(java::double_string(100) == "100.0");
    CHECK(java::double_string(0.0) == "0.0");
    CHECK(java::double_string(-0.0) == "-0.0");
    CHECK(java::double_string(0.001) == "0.001");
    CHECK(java::double_string(0.0001) == "1.0E-4");
    CHECK(java::double_string(9999999.999) == "9999999.999");
    CHECK(java::double_string(1e7) == "1.0E7");
    CHECK(java::double_string(12345678) == "1.2345678E7");
    CHECK(java::double_string(123.456e-10) == "1.23456E-8");
    CHECK(java::double_string(0.30000000000000004) == "0.30000000000000004");
    CHECK(java::double_string(1e300) == "1.0E300");
    CHECK(java::double_string(-1.5e-300) == "-1.5E-300");
    CHECK(java::double_string(1.7976931348623157e308) == "1.7976931348623157E308");
    CHECK(java::double_string(std::numeric_limits<double>::infinity()) == "Infinity");
    CHECK(java::double_string(-std::numeric_limits<double>::infinity()) == "-Infinity");
    CHECK(java::double_string(std::numeric_limits<double>::quiet_NaN()) == "NaN");
}

TEST_CASE("java rendering: String.hashCode over UTF-16") {
    CHECK(java::string_hash("") == 0);
    CHECK(java::string_hash("hello") == 99162322);
    CHECK(java::string_hash("\xC3\xA9") == 233);                   // é
    CHECK(java::string_hash("\xF0\x9F\x98\x80") == 1772899);       // a surrogate pair
    CHECK(java::string_hash("\xFF") == 0xFFFD);                    // not UTF-8: the replacement
    CHECK(java::string_hash("\xE2\x82") == 31 * 0xFFFD + 0xFFFD);  // cut short
}

TEST_CASE("java rendering: HashMap iteration order") {
    CHECK(order({}).empty());
    CHECK(order({"b", "a", "aa"}) == "aa,a,b");
    CHECK(order({"size", "color"}) == "size,color");  // one bucket: insertion order
    CHECK(order({"color", "size"}) == "color,size");
    CHECK(order({"a", "b", "a"}) == "a,b");  // a key put again keeps its place
    // Grown past 12 and 24 keys: 64 buckets.
    std::vector<std::string> k;
    for (int i = 1; i <= 30; ++i) k.push_back("k" + std::to_string(i));
    CHECK(order(k) ==
          "k30,k11,k10,k13,k12,k15,k14,k17,k16,k19,k18,k1,k2,k3,k20,k4,k5,k22,k6,k21,k7,k24,k8,"
          "k23,k9,k26,k25,k28,k27,k29");
    CHECK(order({"Aa", "BB", "AaAa", "BBBB", "AaBB", "BBAa", "x", "y", "z", "size", "color"}) ==
          "Aa,BB,size,color,x,y,z,AaAa,BBBB,AaBB,BBAa");
    // Ten keys of one bucket of 16: the ninth doubles the table instead of making a tree.
    CHECK(order({"c3", "c20", "c31", "c42", "c53", "c64", "c75", "c86", "c97", "c110"}) ==
          "c31,c53,c75,c97,c20,c42,c64,c86,c110,c3");
}

TEST_CASE("java rendering: Jackson's JSON string escaping") {
    CHECK(json("plain") == "\"plain\"");
    CHECK(json("q\"b\\") == R"("q\"b\\")");
    CHECK(json("\b\t\n\f\r") == R"("\b\t\n\f\r")");
    CHECK(json(std::string_view("\x00\x1f", 2)) == R"("\u0000\u001F")");
    CHECK(json("/\x7f\xC3\xA9") == "\"/\x7f\xC3\xA9\"");  // not escaped
}
