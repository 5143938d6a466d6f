#include "sources/oss/xml.h"

#include <cstdint>

#include "text/utf8.h"

namespace cdcd::oss {
namespace {

// At most this much of a name read from the input goes into an error message.
constexpr std::size_t kShownName = 64;
// The longest entity reference (between '&' and ';') looked for: "#x10FFFF" with some zeros.
constexpr std::size_t kMaxEntity = 32;

std::string shown(std::string_view name) {
    if (name.size() <= kShownName) return std::string(name);
    return std::string(name.substr(0, kShownName)) + "...";
}

class Parser {
  public:
    Parser(std::string_view s, const XmlLimits& limits) : s_(s), limits_(limits) {}

    XmlElement document() {
        if (s_.size() > limits_.max_bytes)
            throw XmlError("XML: the document is " + std::to_string(s_.size()) +
                           " bytes, over the limit of " + std::to_string(limits_.max_bytes) +
                           " bytes");
        skip_misc();
        if (!peek('<')) fail("expected the root element");
        XmlElement root = element();
        skip_misc();
        if (pos_ != s_.size()) fail("content after the root element");
        return root;
    }

  private:
    [[noreturn]] void fail(const std::string& what) const {
        throw XmlError("XML: " + what + " at offset " + std::to_string(pos_));
    }
    bool peek(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
    bool starts(std::string_view t) const { return s_.substr(pos_, t.size()) == t; }
    void skip_ws() {
        while (pos_ < s_.size() &&
               (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t'))
            ++pos_;
    }
    void skip_until(std::string_view end) {
        auto p = s_.find(end, pos_);
        if (p == std::string_view::npos) fail("unterminated construct");
        pos_ = p + end.size();
    }
    // Whitespace, the XML declaration, processing instructions, comments, DOCTYPE.
    void skip_misc() {
        while (true) {
            skip_ws();
            if (starts("<?"))
                skip_until("?>");
            else if (starts("<!--"))
                skip_until("-->");
            else if (starts("<!DOCTYPE"))
                skip_until(">");
            else
                return;
        }
    }

    std::string name() {
        std::size_t b = pos_;
        while (pos_ < s_.size()) {
            char c = s_[pos_];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '>' || c == '/' || c == '=')
                break;
            ++pos_;
        }
        if (b == pos_) fail("expected a name");
        std::string_view n = s_.substr(b, pos_ - b);
        auto colon = n.find(':');
        if (colon != std::string_view::npos) n = n.substr(colon + 1);
        return std::string(n);
    }

    void decode_into(std::string_view raw, std::string& out) {
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] != '&') {
                out.push_back(raw[i]);
                continue;
            }
            // Only a short window: a stray '&' in a long text must not echo the text back.
            auto semi = raw.substr(0, i + 2 + kMaxEntity).find(';', i);
            if (semi == std::string_view::npos) fail("unterminated or overlong entity");
            std::string_view ent = raw.substr(i + 1, semi - i - 1);
            if (ent == "lt")
                out.push_back('<');
            else if (ent == "gt")
                out.push_back('>');
            else if (ent == "amp")
                out.push_back('&');
            else if (ent == "quot")
                out.push_back('"');
            else if (ent == "apos")
                out.push_back('\'');
            else if (!ent.empty() && ent[0] == '#') {
                std::uint32_t cp = 0;
                bool hex = ent.size() > 1 && (ent[1] == 'x' || ent[1] == 'X');
                std::string_view digits = ent.substr(hex ? 2 : 1);
                if (digits.empty()) fail("bad character reference");
                for (char c : digits) {
                    int v;
                    if (c >= '0' && c <= '9')
                        v = c - '0';
                    else if (hex && c >= 'a' && c <= 'f')
                        v = c - 'a' + 10;
                    else if (hex && c >= 'A' && c <= 'F')
                        v = c - 'A' + 10;
                    else
                        fail("bad character reference");
                    cp = cp * (hex ? 16 : 10) + static_cast<std::uint32_t>(v);
                    if (cp > 0x10FFFF) fail("bad character reference");
                }
                utf8::append(out, cp);
            } else {
                fail("unknown entity &" + shown(ent) + ";");
            }
            i = semi;
        }
    }

    XmlElement element() {
        if (++depth_ > limits_.max_depth)
            fail("elements nested deeper than " + std::to_string(limits_.max_depth));
        if (++elements_ > limits_.max_elements)
            fail("more than " + std::to_string(limits_.max_elements) + " elements");
        ++pos_;  // '<'
        XmlElement e;
        e.name = name();
        // Attributes: skipped (quoted values may hold '>').
        while (true) {
            skip_ws();
            if (pos_ >= s_.size()) fail("unterminated start tag");
            if (starts("/>")) {
                pos_ += 2;
                --depth_;
                return e;
            }
            if (peek('>')) {
                ++pos_;
                break;
            }
            name();
            skip_ws();
            if (!peek('=')) fail("expected '=' in attribute");
            ++pos_;
            skip_ws();
            if (!peek('"') && !peek('\'')) fail("expected a quoted attribute value");
            char q = s_[pos_++];
            auto end = s_.find(q, pos_);
            if (end == std::string_view::npos) fail("unterminated attribute value");
            pos_ = end + 1;
        }
        while (true) {
            if (pos_ >= s_.size()) fail("unterminated element <" + shown(e.name) + ">");
            if (starts("</")) {
                pos_ += 2;
                std::string closing = name();
                if (closing != e.name)
                    fail("</" + shown(closing) + "> closes <" + shown(e.name) + ">");
                skip_ws();
                if (!peek('>')) fail("expected '>'");
                ++pos_;
                --depth_;
                return e;
            }
            if (starts("<!--")) {
                skip_until("-->");
            } else if (starts("<![CDATA[")) {
                pos_ += 9;
                auto end = s_.find("]]>", pos_);
                if (end == std::string_view::npos) fail("unterminated CDATA");
                e.text.append(s_.substr(pos_, end - pos_));
                pos_ = end + 3;
            } else if (starts("<?")) {
                skip_until("?>");
            } else if (peek('<')) {
                e.children.push_back(element());
            } else {
                auto end = s_.find('<', pos_);
                if (end == std::string_view::npos) end = s_.size();
                decode_into(s_.substr(pos_, end - pos_), e.text);
                pos_ = end;
            }
        }
    }

    std::string_view s_;
    const XmlLimits& limits_;
    std::size_t pos_ = 0;
    int depth_ = 0;
    std::size_t elements_ = 0;
};

}  // namespace

const XmlElement* XmlElement::child(std::string_view n) const {
    for (const auto& c : children)
        if (c.name == n) return &c;
    return nullptr;
}

std::string XmlElement::child_text(std::string_view n, const std::string& fallback) const {
    const XmlElement* c = child(n);
    return c ? c->text : fallback;
}

std::vector<const XmlElement*> XmlElement::children_named(std::string_view n) const {
    std::vector<const XmlElement*> out;
    for (const auto& c : children)
        if (c.name == n) out.push_back(&c);
    return out;
}

XmlElement parse_xml(std::string_view text, const XmlLimits& limits) {
    return Parser(text, limits).document();
}

std::string xml_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                out.push_back(c);
        }
    }
    return out;
}

}  // namespace cdcd::oss
