#include "config/yaml_loader.h"

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

class TreeBuilder final : public YAML::EventHandler {
  public:
    TreeBuilder(std::string file, Diagnostics& diags) : file_(std::move(file)), diags_(diags) {}

    std::optional<ConfigNode> root;

    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        ConfigNode n;
        n.kind = NodeKind::Null;
        set_position(n, mark);
        complete(std::move(n), anchor);
    }

    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        auto it = anchors_.find(anchor);
        if (it == anchors_.end()) {
            diags_.error(to_location(file_, mark), "unknown alias");
            ConfigNode n;
            set_position(n, mark);
            complete(std::move(n), 0);
            return;
        }
        ConfigNode copy = it->second;
        set_position(copy, mark);
        complete(std::move(copy), 0);
    }

    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  const std::string& value) override {
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
        bool has_key = false;
        bool skip_value = false;  // value of a duplicate or invalid key: parsed, then dropped
        std::string key;
        SourceLocation key_where;
    };

    void set_position(ConfigNode& n, const YAML::Mark& mark) const {
        n.where = to_location(file_, mark);
        n.offset = mark.is_null() ? -1 : mark.pos;
    }

    void open(NodeKind kind, const YAML::Mark& mark, YAML::anchor_t anchor) {
        Frame f;
        f.node.kind = kind;
        set_position(f.node, mark);
        f.anchor = anchor;
        stack_.push_back(std::move(f));
    }

    void close() {
        Frame f = std::move(stack_.back());
        stack_.pop_back();
        complete(std::move(f.node), f.anchor);
    }

    void complete(ConfigNode n, YAML::anchor_t anchor) {
        if (anchor != 0) {
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
    Diagnostics& diags_;
    std::vector<Frame> stack_;
    std::map<YAML::anchor_t, ConfigNode> anchors_;
};

}  // namespace

std::optional<YamlDocument> load_yaml_string(std::string_view text, const std::string& display_name,
                                             Diagnostics& diags) {
    Diagnostics local;
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
        TreeBuilder builder(display_name, local);
        if (parser.HandleNextDocument(builder) && builder.root) {
            doc.root = std::move(*builder.root);
            TreeBuilder extra(display_name, local);
            if (parser.HandleNextDocument(extra)) {
                SourceLocation where =
                    extra.root ? extra.root->where : SourceLocation{display_name};
                local.error(where, "only one YAML document is allowed in a pipeline file");
            }
        } else {
            doc.root.kind = NodeKind::Null;
            doc.root.where = SourceLocation{display_name, 1, 1};
        }
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
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) {
        diags.error(SourceLocation{path, 0, 0}, "cannot read file");
        return std::nullopt;
    }
    return load_yaml_string(buf.str(), path, diags);
}

}  // namespace cdcd::config
