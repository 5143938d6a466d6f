#pragma once
// A small XML reader for the OSS and MNS response bodies: elements, text, entities, CDATA;
// attributes and namespaces are ignored (names lose any "ns:" prefix).
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cdcd::oss {

class XmlError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct XmlElement {
    std::string name;
    std::string text;  // concatenated character data directly inside this element (decoded)
    std::vector<XmlElement> children;

    /// The first child called `name`, or nullptr.
    const XmlElement* child(std::string_view name) const;
    /// The text of the first child called `name`, or `fallback`.
    std::string child_text(std::string_view name, const std::string& fallback = {}) const;
    std::vector<const XmlElement*> children_named(std::string_view name) const;
};

/// Parses a document; throws XmlError with the offset of the problem.
XmlElement parse_xml(std::string_view text);
/// Escapes &, <, >, " and ' for element text.
std::string xml_escape(std::string_view text);

}  // namespace cdcd::oss
