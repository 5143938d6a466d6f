#include "sources/dingtalk/markdown_renderer.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <vector>

#include "text/ascii.h"

namespace cdcd::dingtalk {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;

// Empty cells a document's tables may add to reach their declared colSize (docs/dingtalk-cdc.md).
constexpr std::uint64_t kMaxPaddingCells = 100'000;

// simdjson's default-constructed element and array belong to no document, and reading one
// dereferences null: missing properties and children are read as these empty values instead.
element empty_values() {
    static simdjson::dom::parser parser;
    static const element values = parser.parse(std::string_view("[{},[]]")).value();
    return values;
}

element empty_object() {
    return empty_values().at(0).value();
}

array empty_array() {
    return empty_values().at(1).get_array().value();
}

std::string_view get_str(element e, std::string_view key) {
    std::string_view v;
    if (e.is_object() && !e[key].get(v)) return v;
    return {};
}

bool get_bool(element e, std::string_view key) {
    bool v = false;
    if (e.is_object() && !e[key].get(v)) return v;
    return false;
}

std::int64_t get_int(element e, std::string_view key, std::int64_t fallback) {
    if (!e.is_object()) return fallback;
    element v;
    if (e[key].get(v)) return fallback;
    std::int64_t i = 0;
    double d = 0;
    std::string_view s;
    if (!v.get(i)) return i;
    if (!v.get(d)) {
        // A number past the 64-bit range (or NaN) has no integer value: converting it is
        // undefined behaviour, so it counts as absent.
        constexpr double kLimit = 9223372036854775808.0;  // 2^63
        if (d >= -kLimit && d < kLimit) return static_cast<std::int64_t>(d);
        return fallback;
    }
    if (!v.get(s)) {
        std::string digits;
        for (char c : s)
            if (c >= '0' && c <= '9') digits.push_back(c);
        std::int64_t parsed = 0;
        const char* end = digits.data() + digits.size();
        // (std::atoll's result past the range is undefined; from_chars reports it.)
        if (!digits.empty() && std::from_chars(digits.data(), end, parsed).ec == std::errc{})
            return parsed;
    }
    return fallback;
}

array children_of(element e) {
    array a;
    if (e.is_object() && !e["children"].get(a)) return a;
    return empty_array();
}

bool has_children(element e) {
    array a;
    return e.is_object() && !e["children"].get(a) && a.size() > 0;
}

/// Markdown-significant characters get a backslash.
std::string escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '\\':
            case '`':
            case '*':
            case '_':
            case '[':
            case ']':
            case '<':
                out.push_back('\\');
                [[fallthrough]];
            default:
                out.push_back(c);
        }
    }
    return out;
}

/// Wraps the non-blank core of `text` in the style markers, whitespace kept outside (Markdown
/// does not close `**word **`).
std::string styled(const std::string& text, bool bold, bool italic, bool strike, bool underline) {
    auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos || !(bold || italic || strike || underline)) return text;
    auto last = text.find_last_not_of(" \t");
    std::string open, close;
    if (bold) open += "**";
    if (italic) open += "*";
    if (strike) open += "~~";
    if (underline) open += "<u>";
    if (underline) close += "</u>";
    if (strike) close += "~~";
    if (italic) close += "*";
    if (bold) close += "**";
    return text.substr(0, first) + open + text.substr(first, last - first + 1) + close +
           text.substr(last + 1);
}

class Renderer {
  public:
    std::string document(array blocks) {
        std::vector<std::pair<std::string, bool>> chunks;  // text, is a list item
        for (element b : blocks) {
            bool list = is_list(b);
            if (!list) last_level_ = -1;  // the next list item starts at the left margin
            std::string text = block(b);
            if (text.empty()) continue;
            chunks.emplace_back(std::move(text), list);
        }
        std::string out;
        for (std::size_t i = 0; i < chunks.size(); ++i) {
            if (i > 0) out += chunks[i - 1].second && chunks[i].second ? "\n" : "\n\n";
            out += chunks[i].first;
        }
        if (!out.empty()) out.push_back('\n');
        return out;
    }

  private:
    static bool is_list(element b) {
        auto t = get_str(b, "blockType");
        return t == "orderedList" || t == "unorderedList";
    }

    static element props(element b) {
        element p;
        auto t = get_str(b, "blockType");
        if (!t.empty() && !b[t].get(p)) return p;
        return empty_object();
    }

    std::string inline_text(element b) {
        if (has_children(b)) return inlines(children_of(b));
        return escape(get_str(props(b), "text"));
    }

    std::string inlines(array items) {
        std::string out;
        for (element item : items) {
            auto type = get_str(item, "elementType");
            element p;
            bool has_props = item.is_object() && !item["properties"].get(p);
            if (type == "link") {
                std::string label = inlines(children_of(item));
                auto href = has_props ? get_str(p, "href") : std::string_view{};
                if (label.empty()) label = escape(href);
                out += "[" + label + "](" + std::string(href) + ")";
            } else if (type == "image") {
                out += "![](" + std::string(has_props ? get_str(p, "src") : "") + ")";
            } else if (type == "sticker") {
                auto code = has_props ? get_str(p, "code") : std::string_view{};
                if (!code.empty()) out += ":" + std::string(code) + ":";
            } else if (!get_str(item, "blockType").empty()) {
                out += inline_text(item);  // a block nested where text was expected
            } else if (item.is_object()) {
                std::string text = escape(get_str(item, "text"));
                if (text.empty() && has_children(item)) text = inlines(children_of(item));
                out += styled(text, get_bool(item, "bold"), get_bool(item, "italic"),
                              get_bool(item, "stike") || get_bool(item, "strike"),
                              get_bool(item, "underline"));
            }
        }
        return out;
    }

    /// Nested blocks (callout, columns, cells) render as a document of their own.
    std::string nested(element b) {
        Renderer inner;
        std::string text = inner.document(children_of(b));
        while (!text.empty() && text.back() == '\n') text.pop_back();
        return text;
    }

    static std::string prefix_lines(const std::string& text, const std::string& prefix) {
        std::string out = prefix;
        for (char c : text) {
            out.push_back(c);
            if (c == '\n') out += prefix;
        }
        // "> " on an empty line is just ">"
        std::string cleaned;
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (out[i] == ' ' && (i + 1 == out.size() || out[i + 1] == '\n') && i > 0 &&
                out[i - 1] == '>')
                continue;
            cleaned.push_back(out[i]);
        }
        return cleaned;
    }

    static std::string cell_text(std::string text) {
        std::string out;
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '|')
                out += "\\|";
            else if (text[i] == '\n') {
                if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
                out += "<br>";
            } else
                out.push_back(text[i]);
        }
        return out;
    }

    static std::string table_rows(const std::vector<std::vector<std::string>>& rows,
                                  std::size_t cols) {
        if (rows.empty()) return {};
        for (const auto& r : rows) cols = std::max(cols, r.size());
        if (cols == 0) return {};
        std::string out;
        auto line = [&](const std::vector<std::string>& cells) {
            out += "|";
            for (std::size_t c = 0; c < cols; ++c)
                out += " " + (c < cells.size() ? cell_text(cells[c]) : std::string()) + " |";
        };
        line(rows[0]);
        out += "\n|";
        for (std::size_t c = 0; c < cols; ++c) out += " --- |";
        for (std::size_t r = 1; r < rows.size(); ++r) {
            out += "\n";
            line(rows[r]);
        }
        return out;
    }

    std::string cell_content(element cell) {
        // A cell is a plain string, a tableCell block, or a text-like object.
        std::string_view s;
        if (!cell.get(s)) return escape(s);
        if (get_str(cell, "blockType") == "tableCell") {
            bool blocks = false;
            for (element c : children_of(cell))
                if (!get_str(c, "blockType").empty()) blocks = true;
            if (blocks) return nested(cell);
            return inline_text(cell);
        }
        return inline_text(cell);
    }

    std::vector<std::string> row_cells(element row) {
        std::vector<std::string> cells;
        for (element c : children_of(row)) cells.push_back(cell_content(c));
        return cells;
    }

    std::string table(element b) {
        element p = props(b);
        std::vector<std::vector<std::string>> rows;
        array cells;
        if (p.is_object() && !p["cells"].get(cells)) {
            for (element row : cells) {
                std::vector<std::string> r;
                array items;
                if (!row.get(items))
                    for (element c : items) r.push_back(cell_content(c));
                rows.push_back(std::move(r));
            }
        } else {
            for (element row : children_of(b)) rows.push_back(row_cells(row));
        }
        std::string out = table_rows(rows, padded_width(rows, get_int(p, "colSize", 0)));
        return out.empty() ? "<!-- empty table -->" : out;
    }

    // colSize pads rows that leave trailing cells out. A width far beyond the cells (a corrupt
    // or hostile document's colSize 888888888888888883) would render billions of empty cells,
    // so the padding of one document is bounded; past the bound a table is as wide as its cells.
    std::size_t padded_width(const std::vector<std::vector<std::string>>& rows,
                             std::int64_t declared) {
        std::size_t widest = 0;
        for (const auto& r : rows) widest = std::max(widest, r.size());
        if (declared <= static_cast<std::int64_t>(widest)) return widest;
        const auto extra = static_cast<std::uint64_t>(declared) - widest;
        if (extra > padding_left_ || rows.size() * extra > padding_left_) return widest;
        padding_left_ -= rows.size() * extra;
        return static_cast<std::size_t>(declared);
    }

    std::string list_item(element b, bool ordered) {
        element p = props(b);
        element list;
        std::string list_id;
        std::int64_t level = 0;
        if (p.is_object() && !p["list"].get(list)) {
            list_id = std::string(get_str(list, "listId"));
            level = std::clamp<std::int64_t>(get_int(list, "level", 0), 0, 20);
        }
        // Markdown nests one level at a time: deeper jumps would turn into code blocks.
        level = std::min<std::int64_t>(level, last_level_ + 1);
        last_level_ = static_cast<int>(level);
        std::string marker = "- ";
        if (ordered) {
            auto& counts = counters_[list_id];
            counts.resize(static_cast<std::size_t>(level) + 1, 0);
            ++counts[static_cast<std::size_t>(level)];
            marker = std::to_string(counts[static_cast<std::size_t>(level)]) + ". ";
        } else {
            auto it = counters_.find(list_id);
            if (it != counters_.end() && it->second.size() > static_cast<std::size_t>(level) + 1)
                it->second.resize(static_cast<std::size_t>(level) + 1);
        }
        // A shallower item restarts the numbering of deeper levels of its list.
        auto& counts = counters_[list_id];
        if (counts.size() > static_cast<std::size_t>(level) + 1)
            counts.resize(static_cast<std::size_t>(level) + 1);
        return std::string(static_cast<std::size_t>(level) * 4, ' ') + marker + inline_text(b);
    }

    std::string block(element b) {
        auto type = get_str(b, "blockType");
        element p = props(b);
        if (type == "heading") {
            auto level = std::clamp<std::int64_t>(get_int(p, "level", 1), 1, 6);
            std::string text(ascii::trim(inline_text(b), " "));
            return std::string(static_cast<std::size_t>(level), '#') +
                   (text.empty() ? "" : " " + text);
        }
        if (type == "paragraph") return std::string(ascii::trim(inline_text(b), " "));
        if (type == "blockquote") {
            std::string text(ascii::trim(inline_text(b), " "));
            return text.empty() ? std::string() : prefix_lines(text, "> ");
        }
        if (type == "callout") {
            std::string body = nested(b);
            auto sticker = get_str(p, "sticker");
            bool show = true;
            if (p.is_object()) {
                bool v = true;
                if (!p["showstk"].get(v)) show = v;
            }
            if (show && !sticker.empty())
                body = ":" + std::string(sticker) + ":" + (body.empty() ? "" : " " + body);
            return body.empty() ? std::string() : prefix_lines(body, "> ");
        }
        if (type == "columns") return nested(b);
        if (type == "orderedList") return list_item(b, true);
        if (type == "unorderedList") return list_item(b, false);
        if (type == "table") return table(b);
        if (type == "tableRow") return table_rows({row_cells(b)}, 0);
        if (type == "tableCell") return cell_content(b);
        std::string name(type.empty() ? "missing blockType" : type);
        std::string safe;
        for (char c : name) {
            if (c == '-' && !safe.empty() && safe.back() == '-') continue;
            if (c == '>') continue;
            safe.push_back(c);
        }
        return "<!-- unsupported block: " + safe + " -->";
    }

    std::map<std::string, std::vector<int>> counters_;  // per listId, per level
    int last_level_ = -1;                               // of the previous list item, -1: none
    std::uint64_t padding_left_ = kMaxPaddingCells;     // empty cells colSize may still add
};

}  // namespace

std::string render_markdown(std::string_view blocks_json) {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(blocks_json);
    element doc;
    if (auto error = parser.parse(padded).get(doc); error)
        throw std::invalid_argument(std::string("blocks are not valid JSON: ") +
                                    simdjson::error_message(error));
    array blocks;
    if (doc.get(blocks)) throw std::invalid_argument("blocks JSON is not an array");
    return Renderer().document(blocks);
}

}  // namespace cdcd::dingtalk
