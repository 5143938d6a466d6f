#include "config/yaml_loader.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <fstream>
#include <map>
#include <sstream>

namespace cdcd::config {

std::string_view to_string(NodeKind kind) {
    switch (kind) {
        case NodeKind::Null:
            return "null";
        case NodeKind::Scalar:
            return "scalar";
        case NodeKind::Map:
            return "map";
        case NodeKind::List:
            return "list";
    }
    return "?";
}

const MapEntry* ConfigNode::find_entry(std::string_view key) const {
    if (kind != NodeKind::Map) {
        return nullptr;
    }
    for (const auto& e : entries) {
        if (e.key == key) {
            return &e;
        }
    }
    return nullptr;
}

const ConfigNode* ConfigNode::find(std::string_view key) const {
    const MapEntry* e = find_entry(key);
    return e ? &e->value : nullptr;
}

SourceLocation YamlDocument::location_at(std::size_t offset) const {
    int line = 1;
    int column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return SourceLocation{file, line, column};
}

namespace {

SourceLocation to_location(const std::string& file, const YAML::Mark& mark) {
    if (mark.is_null()) {
        return SourceLocation{file, 0, 0};
    }
    return SourceLocation{file, mark.line + 1, mark.column + 1};
}

// YAML forbids tabs in indentation; yaml-cpp sometimes accepts them and builds a surprising tree.
void check_tabs(std::string_view text, const std::string& file, Diagnostics& diags) {
    int line = 1;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        std::string_view l = text.substr(start, end - start);
        std::size_t first = l.find_first_not_of(" \t\r");
        if (first != std::string_view::npos && l[first] != '#') {
            std::size_t tab = l.substr(0, first).find('\t');
            if (tab != std::string_view::npos) {
                diags.error(SourceLocation{file, line, static_cast<int>(tab) + 1},
                            "tab character used for indentation; YAML allows only spaces");
            }
        }
        if (end == text.size()) {
            break;
        }
        start = end + 1;
        ++line;
    }
}

// Thrown out of the parser when the file exceeds a limit or is broken in a way yaml-cpp does not
// see: parsing stops at once.
struct Refused {
    SourceLocation where;
    std::string message;
};

// Where the quoted scalar starting at `start` (its opening quote) ends: the offset after the
// closing quote, or npos when the text ends first. yaml-cpp 0.7 silently ends an unclosed quoted
// scalar at the end of the file, swallowing every line after it.
std::size_t quoted_scalar_end(std::string_view text, std::size_t start) {
    const char quote = text[start];
    for (std::size_t i = start + 1; i < text.size(); ++i) {
        if (quote == '"' && text[i] == '\\') {
            ++i;  // an escape: the next character is never the closing quote
        } else if (text[i] == quote) {
            if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
                ++i;  // '' is a quote inside a single-quoted scalar
            } else {
                return i + 1;
            }
        }
    }
    return std::string_view::npos;
}

class TreeBuilder final : public YAML::EventHandler {
  public:
    TreeBuilder(std::string file, std::string_view text, Diagnostics& diags)
        : file_(std::move(file)), text_(text), diags_(diags) {}

    std::optional<ConfigNode> root;

    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        charge(1, mark, "");
        ConfigNode n;
        n.kind = NodeKind::Null;
        set_position(n, mark);
        complete(std::move(n), anchor);
    }

    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        auto it = anchors_.find(anchor);
        if (it == anchors_.end()) {
            diags_.error(to_location(file_, mark), "unknown alias");
            charge(1, mark, "");
            ConfigNode n;
            set_position(n, mark);
            complete(std::move(n), 0);
            return;
        }
        charge(anchor_nodes_[anchor], mark, "this alias");
        ConfigNode copy = it->second;
        set_position(copy, mark);
        complete(std::move(copy), 0);
    }

    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  const std::string& value) override {
        charge(1, mark, "");
        check_closing_quote(mark);
        ConfigNode n;
        n.kind = NodeKind::Scalar;
        n.scalar = value;
        set_position(n, mark);
        complete(std::move(n), anchor);
    }

    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        open(NodeKind::List, mark, anchor);
    }
    void OnSequenceEnd() override { close(); }

    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        open(NodeKind::Map, mark, anchor);
    }
    void OnMapEnd() override { close(); }

  private:
    struct Frame {
        ConfigNode node;
        YAML::anchor_t anchor = 0;
        std::size_t nodes_before = 0;  // nodes_ when the node opened: its size is the difference
        bool has_key = false;
        bool skip_value = false;  // value of a duplicate or invalid key: parsed, then dropped
        std::string key;
        SourceLocation key_where;
    };

    void set_position(ConfigNode& n, const YAML::Mark& mark) const {
        n.where = to_location(file_, mark);
        n.offset = mark.is_null() ? -1 : mark.pos;
    }

    // Counts `count` nodes about to be built at `mark` against kMaxYamlNodes; what_adds names
    // an alias for the message (an alias of a big anchor adds all its nodes again).
    void charge(std::size_t count, const YAML::Mark& mark, std::string_view what_adds) {
        nodes_ += count;
        check_node_limit(count, to_location(file_, mark), what_adds);
    }

    void check_node_limit(std::size_t count, SourceLocation where, std::string_view what_adds) {
        if (nodes_ + anchor_copies_ <= kMaxYamlNodes) {
            return;
        }
        std::string msg = "YAML document too large: more than " + std::to_string(kMaxYamlNodes) +
                          " nodes once aliases are expanded";
        if (!what_adds.empty()) {
            msg += " (" + std::string(what_adds) + " repeats the " + std::to_string(count) +
                   " nodes of its anchor)";
        }
        msg += "; a pipeline file never needs that many, so it is refused";
        throw Refused{std::move(where), std::move(msg)};
    }

    void check_closing_quote(const YAML::Mark& mark) {
        if (mark.is_null() || mark.pos < 0 || static_cast<std::size_t>(mark.pos) >= text_.size()) {
            return;
        }
        const auto start = static_cast<std::size_t>(mark.pos);
        const char c = text_[start];
        if ((c == '"' || c == '\'') && quoted_scalar_end(text_, start) == std::string_view::npos) {
            throw Refused{to_location(file_, mark), std::string("YAML syntax error: unclosed ") +
                                                        (c == '"' ? "double" : "single") +
                                                        " quote: the quoted scalar starting here " +
                                                        "has no closing " + c +
                                                        " before the end of the file"};
        }
    }

    void open(NodeKind kind, const YAML::Mark& mark, YAML::anchor_t anchor) {
        if (stack_.size() >= kMaxYamlDepth) {
            throw Refused{to_location(file_, mark),
                          "YAML too deep: more than " + std::to_string(kMaxYamlDepth) +
                              " levels of maps and lists inside one another; a pipeline " +
                              "file never needs that many, so it is refused"};
        }
        charge(1, mark, "");
        Frame f;
        f.nodes_before = nodes_ - 1;
        f.node.kind = kind;
        set_position(f.node, mark);
        f.anchor = anchor;
        stack_.push_back(std::move(f));
    }

    void close() {
        Frame f = std::move(stack_.back());
        stack_.pop_back();
        complete(std::move(f.node), f.anchor, nodes_ - f.nodes_before);
    }

    // size: the nodes n holds (itself included), what keeping a copy for its anchor costs.
    void complete(ConfigNode n, YAML::anchor_t anchor, std::size_t size = 1) {
        if (anchor != 0) {
            anchor_nodes_[anchor] = size;
            anchor_copies_ += size;  // the copy kept for the aliases
            check_node_limit(size, n.where, "");
            anchors_[anchor] = n;
        }
        if (stack_.empty()) {
            root = std::move(n);
            return;
        }
        Frame& parent = stack_.back();
        if (parent.node.kind == NodeKind::List) {
            parent.node.items.push_back(std::move(n));
            return;
        }
        if (!parent.has_key) {
            parent.has_key = true;
            parent.skip_value = false;
            parent.key_where = n.where;
            if (n.kind == NodeKind::Scalar) {
                parent.key = n.scalar;
                if (const MapEntry* first = parent.node.find_entry(parent.key)) {
                    diags_.error(n.where, "duplicate key `" + parent.key + "` (first defined at " +
                                              first->key_where.to_string() + ")");
                    parent.skip_value = true;
                }
            } else {
                diags_.error(n.where, std::string("map keys must be scalars, got a ") +
                                          std::string(to_string(n.kind)));
                parent.skip_value = true;
            }
            return;
        }
        parent.has_key = false;
        if (!parent.skip_value) {
            parent.node.entries.push_back(
                MapEntry{std::move(parent.key), parent.key_where, std::move(n)});
        }
        parent.key.clear();
    }

    std::string file_;
    std::string_view text_;
    Diagnostics& diags_;
    std::vector<Frame> stack_;
    std::map<YAML::anchor_t, ConfigNode> anchors_;
    std::map<YAML::anchor_t, std::size_t> anchor_nodes_;  // nodes of each anchor's subtree
    std::size_t nodes_ = 0;          // nodes of the tree built so far, alias copies included
    std::size_t anchor_copies_ = 0;  // nodes of the copies kept for aliases
};

}  // namespace

std::optional<YamlDocument> load_yaml_string(std::string_view text, const std::string& display_name,
                                             Diagnostics& diags) {
    Diagnostics local;
    if (text.size() > kMaxYamlBytes) {
        diags.error(SourceLocation{display_name, 0, 0},
                    "YAML file too large: " + std::to_string(text.size()) +
                        " bytes, the limit is " + std::to_string(kMaxYamlBytes) +
                        " bytes (16 MiB); a pipeline file never needs that much");
        return std::nullopt;
    }
    check_tabs(text, display_name, local);
    if (!local.ok()) {
        diags.merge(local);
        return std::nullopt;
    }
    YamlDocument doc;
    doc.file = display_name;
    doc.text = std::string(text);
    try {
        std::istringstream in(doc.text);
        YAML::Parser parser(in);
        TreeBuilder builder(display_name, doc.text, local);
        if (parser.HandleNextDocument(builder) && builder.root) {
            doc.root = std::move(*builder.root);
            TreeBuilder extra(display_name, doc.text, local);
            if (parser.HandleNextDocument(extra)) {
                SourceLocation where =
                    extra.root ? extra.root->where : SourceLocation{display_name};
                local.error(where, "only one YAML document is allowed in a pipeline file");
            }
        } else {
            doc.root.kind = NodeKind::Null;
            doc.root.where = SourceLocation{display_name, 1, 1};
        }
    } catch (const Refused& e) {
        local.error(e.where, e.message);
        diags.merge(local);
        return std::nullopt;
    } catch (const YAML::DeepRecursion& e) {
        // yaml-cpp's own guard (2000 levels) says only "bad file". kMaxYamlDepth stops every
        // nesting first (each level opens a map or list); this is the backstop.
        local.error(to_location(display_name, e.mark),
                    "YAML too deep: more than " + std::to_string(e.depth() - 1) +
                        " levels of nodes inside one another (yaml-cpp's limit)");
        diags.merge(local);
        return std::nullopt;
    } catch (const YAML::Exception& e) {
        local.error(to_location(display_name, e.mark), "YAML syntax error: " + e.msg);
        diags.merge(local);
        return std::nullopt;
    }
    diags.merge(local);
    return doc;
}

std::optional<YamlDocument> load_yaml_file(const std::string& path, Diagnostics& diags) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        diags.error(SourceLocation{path, 0, 0}, "cannot open file");
        return std::nullopt;
    }
    // Read at most one byte past the limit, so a huge file (or /dev/zero) is refused without
    // being read whole; load_yaml_string reports the size.
    std::string text;
    char chunk[65536];
    while (text.size() <= kMaxYamlBytes && in.read(chunk, sizeof chunk).gcount() > 0) {
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad()) {
        diags.error(SourceLocation{path, 0, 0}, "cannot read file");
        return std::nullopt;
    }
    if (text.size() > kMaxYamlBytes) {
        diags.error(SourceLocation{path, 0, 0},
                    "YAML file too large: more than " + std::to_string(kMaxYamlBytes) +
                        " bytes (16 MiB); a pipeline file never needs that much");
        return std::nullopt;
    }
    return load_yaml_string(text, path, diags);
}

}  // namespace cdcd::config
