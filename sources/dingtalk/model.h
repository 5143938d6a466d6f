#pragma once
// DingTalk wiki objects as the reader needs them (vendor-apis.md §1.2, §1.3).
#include <cstdint>
#include <string>
#include <vector>

namespace cdcd::dingtalk {

struct Workspace {
    std::string id;
    std::string root_node_id;
    std::string name;
};

struct Node {
    std::string id;
    std::string workspace_id;
    std::string name;
    std::string type;       // FILE | FOLDER
    std::string category;   // ALIDOC, DOCUMENT, ... (FILE only)
    std::string extension;  // adoc for online documents
    std::string url;
    std::int64_t modified_ms = 0;
    bool has_children = false;

    /// A DingTalk online document: type FILE, category ALIDOC (and not a sheet or other
    /// online type, which carry another extension and have no document blocks).
    bool is_document() const {
        return type == "FILE" && category == "ALIDOC" && (extension.empty() || extension == "adoc");
    }
};

/// A document found by a tree walk: its node and where it hangs.
struct DocRef {
    Node node;
    std::string parent_node_id;
};

template <class T>
struct Page {
    std::vector<T> items;
    std::string next_token;  // empty: last page
};

/// Epoch milliseconds of "2023-05-15T11:29Z" / "2024-01-02T00:00:00Z" / with fraction or
/// offset; -1 when unparsable.
std::int64_t parse_iso8601_ms(std::string_view text);

}  // namespace cdcd::dingtalk
