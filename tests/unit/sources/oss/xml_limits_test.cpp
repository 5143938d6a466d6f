// The XML reader is bounded: size, depth, element count; its time is linear and its errors stay
// short whatever the input holds.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "sources/oss/oss_client.h"
#include "sources/oss/xml.h"

using namespace cdcd::oss;
using Catch::Matchers::Contains;

namespace {

std::string nested(int depth) {
    std::string s;
    for (int i = 0; i < depth; ++i) s += "<a>";
    for (int i = 0; i < depth; ++i) s += "</a>";
    return s;
}

std::string error_of(std::string_view text, const XmlLimits& limits = {}) {
    try {
        parse_xml(text, limits);
    } catch (const XmlError& e) {
        return e.what();
    }
    return "(parsed)";
}

template <class F>
double seconds_of(F f) {
    auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("XML limits: 64 levels of nesting parse, the 65th fails at its offset") {
    CHECK_NOTHROW(parse_xml(nested(64)));
    CHECK(error_of(nested(65)) == "XML: elements nested deeper than 64 at offset 192");
    // A million levels fail at the 65th, without recursing further (no stack overflow).
    CHECK_THAT(error_of(nested(1'000'000)), Contains("nested deeper than 64"));
    CHECK_THAT(error_of(nested(10), XmlLimits{.max_depth = 5}),
               Contains("nested deeper than 5 at offset 15"));
}

TEST_CASE("XML limits: a document over the size limit is refused before it is parsed") {
    const std::string big = "<a>" + std::string(16u << 20, 'x') + "</a>";
    CHECK(error_of(big) == "XML: the document is 16777223 bytes, over the limit of 16777216 bytes");
    CHECK_THAT(error_of("<a>0123456789</a>", XmlLimits{.max_bytes = 10}),
               Contains("over the limit of 10 bytes"));
}

TEST_CASE("XML limits: the number of elements is bounded (each costs ~100 bytes of tree)") {
    std::string many = "<r>";
    for (int i = 0; i < 100'000; ++i) many += "<a/>";
    CHECK_THAT(error_of(many + "</r>"), Contains("more than 100000 elements at offset 399999"));
    std::string fewer = "<r>";
    for (int i = 0; i < 99'999; ++i) fewer += "<a/>";
    CHECK(parse_xml(fewer + "</r>").children.size() == 99'999);
}

TEST_CASE("XML limits: a ListObjectsV2 page of 1000 longest keys fits the defaults") {
    // 1023-byte keys of 3-byte characters, URL-encoded: 3069 characters each.
    std::string key;
    for (int i = 0; i < 341; ++i) key += "%E4%B8%AD";
    std::string body = R"(<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name>)"
                       R"(<EncodingType>url</EncodingType><IsTruncated>false</IsTruncated>)";
    for (int i = 0; i < 1000; ++i)
        body += "<Contents><Key>" + key + "</Key><LastModified>2024-01-01T00:00:00.000Z" +
                "</LastModified><ETag>\"5B3C1A2E053D763E1B002CC607C5A0FE\"</ETag><Type>Normal" +
                "</Type><Size>344606</Size><StorageClass>Standard</StorageClass><Owner><ID>" +
                "0022012****</ID><DisplayName>user-example</DisplayName></Owner></Contents>";
    body += "</ListBucketResult>";
    CHECK(body.size() < kListResponseLimit / 4);
    ListPage page = parse_list_page(body);
    REQUIRE(page.objects.size() == 1000);
    CHECK(page.objects[0].key.size() == 1023);
}

TEST_CASE("XML errors never echo a long name or entity from the input") {
    const std::string long_name(1 << 20, 'n');
    const std::string mismatch = error_of("<a></" + long_name + ">");
    CHECK(mismatch.size() < 200);
    CHECK_THAT(mismatch, Contains("</nnnn") && Contains("...> closes <a>"));
    const std::string entity = error_of("<a>&" + long_name + ";</a>");
    CHECK(entity == "XML: unterminated or overlong entity at offset 3");
    CHECK(error_of("<a>&bogus;</a>") == "XML: unknown entity &bogus; at offset 3");
    CHECK(error_of("<" + long_name).size() < 200);
}

TEST_CASE("XML parsing time is linear on hostile input") {
    // Each document is ~8 MiB; linear parsing takes milliseconds, quadratic would take hours.
    std::string attributes = "<a";
    while (attributes.size() < (8u << 20)) attributes += " x='1>2'";
    attributes += "/>";
    CHECK(seconds_of([&] { parse_xml(attributes); }) < 5.0);

    std::string entities = "<a>";
    while (entities.size() < (8u << 20)) entities += "&amp;&#x41;";
    entities += "</a>";
    CHECK(seconds_of([&] { CHECK(parse_xml(entities).text.size() == 1'525'202); }) < 5.0);

    std::string ampersands = "<a>" + std::string(8u << 20, '&') + "</a>";
    CHECK(seconds_of([&] { CHECK_THROWS_AS(parse_xml(ampersands), XmlError); }) < 5.0);

    std::string comments = "<a>";
    while (comments.size() < (8u << 20)) comments += "x<!---->";
    comments += "</a>";
    CHECK(seconds_of([&] { parse_xml(comments); }) < 5.0);
}
