#include "regex/replacement.h"

namespace cdcd::regex {

std::optional<Replacement> Replacement::parse_java(std::string_view text, const RE2& re,
                                                   std::string* error) {
    Replacement r;
    auto fail = [&](std::string msg) -> std::optional<Replacement> {
        if (error) *error = std::move(msg);
        return std::nullopt;
    };
    auto literal = [&]() -> std::string& {
        if (r.pieces_.empty() || r.pieces_.back().group >= 0) r.pieces_.push_back({});
        return r.pieces_.back().literal;
    };
    const int groups = re.NumberOfCapturingGroups();
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '\\') {
            if (++i >= text.size()) return fail("character to be escaped is missing");
            literal().push_back(text[i]);
        } else if (c == '$') {
            if (++i >= text.size()) return fail("Illegal group reference: group index is missing");
            int ref = -1;
            if (text[i] == '{') {
                std::size_t close = text.find('}', i);
                if (close == std::string_view::npos)
                    return fail("named capturing group is missing trailing '}'");
                std::string name(text.substr(i + 1, close - i - 1));
                auto it = re.NamedCapturingGroups().find(name);
                if (it == re.NamedCapturingGroups().end())
                    return fail("No group with name {" + name + "}");
                ref = it->second;
                i = close;
            } else {
                if (text[i] < '0' || text[i] > '9') return fail("Illegal group reference");
                ref = text[i] - '0';
                // Java takes more digits only while the number stays a valid group.
                while (i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9') {
                    int next = ref * 10 + (text[i + 1] - '0');
                    if (next > groups) break;
                    ref = next;
                    ++i;
                }
                if (ref > groups) return fail("No group " + std::to_string(ref));
            }
            r.pieces_.push_back({{}, ref});
        } else {
            literal().push_back(c);
        }
    }
    return r;
}

Replacement Replacement::literal(std::string_view text) {
    Replacement r;
    if (!text.empty()) r.pieces_.push_back({std::string(text), -1});
    return r;
}

bool Replacement::has_group_reference() const {
    for (const auto& piece : pieces_)
        if (piece.group >= 0) return true;
    return false;
}

std::string Replacement::literal_text() const {
    std::string out;
    for (const auto& piece : pieces_) out += piece.literal;
    return out;
}

void Replacement::replace_all(const RE2& re, std::string_view input, std::string& out) const {
    const int n = re.NumberOfCapturingGroups() + 1;
    std::vector<re2::StringPiece> groups(static_cast<std::size_t>(n));
    const re2::StringPiece whole(input.data(), input.size());
    std::size_t search_from = 0, append_from = 0;
    while (search_from <= input.size() &&
           re.Match(whole, search_from, input.size(), RE2::UNANCHORED, groups.data(), n)) {
        auto start = static_cast<std::size_t>(groups[0].data() - input.data());
        std::size_t end = start + groups[0].size();
        out.append(input.substr(append_from, start - append_from));
        for (const auto& piece : pieces_) {
            if (piece.group < 0)
                out += piece.literal;
            else if (const auto& g = groups[static_cast<std::size_t>(piece.group)]; g.data())
                out.append(g.data(), g.size());
        }
        append_from = search_from = end;
        if (end == start) {  // an empty match: the next search starts one code point on
            if (start >= input.size()) break;
            std::size_t len = 1;
            while (start + len < input.size() &&
                   (static_cast<unsigned char>(input[start + len]) & 0xC0) == 0x80)
                ++len;
            search_from = start + len;
        }
    }
    if (append_from < input.size()) out.append(input.substr(append_from));
}

}  // namespace cdcd::regex
