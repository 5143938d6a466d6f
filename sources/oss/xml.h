#pragma once
// A small XML reader for the OSS and MNS response bodies: elements, text, entities, CDATA;
// attributes and namespaces are ignored (names lose any "ns:" prefix). No DTD: no entity but the
// five predefined ones and character references, so no entity expansion. Bounded (XmlLimits):
// the input's size, the nesting depth (recursion) and the number of elements (the tree's memory,
// ~100 bytes each); the time is linear in the input.
#include <cstddef>
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

/// What parse_xml accepts, beyond which it throws XmlError naming the limit. The defaults hold
/// every OSS and MNS answer with room to spare: a ListObjectsV2 page of 1000 keys is ~10,000
/// elements and at most ~4 MiB; an MNS batch of 16 messages ~200 elements and ~1.5 MiB.
struct XmlLimits {
    std::size_t max_bytes = 16u << 20;
    int max_depth = 64;
    std::size_t max_elements = 100'000;
};

/// Parses a document; throws XmlError with the offset of the problem (and the limit exceeded).
XmlElement parse_xml(std::string_view text, const XmlLimits& limits = {});
/// Escapes &, <, >, " and ' for element text.
std::string xml_escape(std::string_view text);

}  // namespace cdcd::oss
