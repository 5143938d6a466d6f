// OSS answers from hostile bytes: the XML parser, a ListObjectsV2 page (keys, ETags, sizes,
// ISO 8601 times), and an error body. A body may be refused (XmlError); nothing else may escape,
// and escaping a parsed text back to XML and parsing it again gives the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sources/oss/oss_client.h"
#include "sources/oss/xml.h"

using namespace cdcd::oss;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string body(reinterpret_cast<const char*>(data), size);
    try {
        XmlElement root = parse_xml(body);
        const std::string again = "<a>" + xml_escape(root.text) + "</a>";
        if (parse_xml(again).text != root.text) std::abort();
    } catch (const XmlError&) {
    }
    try {
        ListPage page = parse_list_page(body);
        for (const auto& object : page.objects) (void)object.key.size();
    } catch (const XmlError&) {
    }
    try {
        (void)parse_error_body(body);
    } catch (const XmlError&) {
    }
    (void)parse_iso8601_ms(body);
    return 0;
}
