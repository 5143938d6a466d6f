#include "sources/dingtalk/api_responses.h"

#include <simdjson.h>

namespace cdcd::dingtalk {

ErrorBody parse_error(const std::string& body) {
    ErrorBody e;
    simdjson::dom::parser parser;
    simdjson::padded_string padded(body);
    auto doc = parser.parse(padded);
    if (doc.error()) return e;
    std::string_view v;
    if (!doc["code"].get(v) || !doc["Code"].get(v)) e.code = v;
    if (!doc["message"].get(v) || !doc["Message"].get(v)) e.message = v;
    if (!doc["requestid"].get(v) || !doc["RequestId"].get(v)) e.request_id = v;
    return e;
}

namespace {

std::string str(simdjson::dom::element e, const char* key) {
    std::string_view v;
    if (e[key].get(v)) return {};
    return std::string(v);
}

Workspace to_workspace(simdjson::dom::element e) {
    return Workspace{str(e, "workspaceId"), str(e, "rootNodeId"), str(e, "name")};
}

Node to_node(simdjson::dom::element e) {
    Node n;
    n.id = str(e, "nodeId");
    n.workspace_id = str(e, "workspaceId");
    n.name = str(e, "name");
    n.type = str(e, "type");
    n.category = str(e, "category");
    n.extension = str(e, "extension");
    n.url = str(e, "url");
    std::int64_t ms = 0;
    if (!e["modifiedTimestamp"].get(ms)) {
        n.modified_ms = ms;
    } else {
        n.modified_ms = parse_iso8601_ms(str(e, "modifiedTime"));
    }
    bool children = false;
    if (!e["hasChildren"].get(children)) n.has_children = children;
    return n;
}

simdjson::dom::element parse_ok(simdjson::dom::parser& parser, const std::string& body,
                                const char* what) {
    simdjson::dom::element doc;
    if (parser.parse(body).get(doc))
        throw ApiError(ErrorClass::Transient, 200, "", std::string("malformed JSON from ") + what);
    return doc;
}

// A list answer: the items under `key`, converted, and the next page's token.
template <typename T>
Page<T> page_of(const std::string& body, const char* what, const char* key,
                T (*convert)(simdjson::dom::element)) {
    simdjson::dom::parser parser;
    auto doc = parse_ok(parser, body, what);
    Page<T> page;
    simdjson::dom::array items;
    if (!doc[key].get(items))
        for (auto item : items) page.items.push_back(convert(item));
    page.next_token = str(doc, "nextToken");
    return page;
}

// A get answer: the object under `key`, converted.
template <typename T>
T object_of(const std::string& body, const char* what, const char* key,
            T (*convert)(simdjson::dom::element)) {
    simdjson::dom::parser parser;
    auto doc = parse_ok(parser, body, what);
    simdjson::dom::element object;
    if (doc[key].get(object))
        throw ApiError(ErrorClass::Transient, 200, "", std::string(what) + " answer has no " + key);
    return convert(object);
}

}  // namespace

Page<Workspace> parse_workspace_page(const std::string& body) {
    return page_of(body, "ListWorkspaces", "workspaces", to_workspace);
}

Workspace parse_workspace(const std::string& body) {
    return object_of(body, "GetWorkspace", "workspace", to_workspace);
}

Page<Node> parse_node_page(const std::string& body) {
    return page_of(body, "ListNodes", "nodes", to_node);
}

Node parse_node(const std::string& body) {
    return object_of(body, "GetNode", "node", to_node);
}

std::vector<std::string> parse_blocks(const std::string& body) {
    simdjson::dom::parser parser;
    auto doc = parse_ok(parser, body, "DocBlocksQuery");
    std::vector<std::string> out;
    simdjson::dom::array data;
    if (doc["result"]["data"].get(data))
        throw ApiError(ErrorClass::Transient, 200, "", "DocBlocksQuery answer has no result.data");
    for (auto b : data) out.push_back(simdjson::minify(b));
    return out;
}

}  // namespace cdcd::dingtalk
