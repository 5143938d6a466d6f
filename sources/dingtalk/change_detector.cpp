#include "sources/dingtalk/change_detector.h"

#include <algorithm>
#include <unordered_set>

namespace cdcd::dingtalk {

std::uint64_t meta_hash(std::string_view title, std::string_view parent, std::string_view url) {
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&](std::string_view s) {
        for (unsigned char c : s) {
            h ^= c;
            h *= 1099511628211ULL;
        }
        h ^= 0xff;  // separator: never a UTF-8 byte
        h *= 1099511628211ULL;
    };
    mix(title);
    mix(parent);
    mix(url);
    return h;
}

Fingerprint fingerprint_of(const DocRef& doc) {
    return Fingerprint{doc.node.modified_ms,
                       meta_hash(doc.node.name, doc.parent_node_id, doc.node.url)};
}

std::vector<const DocRef*> changed_documents(const std::vector<DocRef>& documents,
                                             const Fingerprints& seen) {
    return documents_to_read(documents, seen, {});
}

std::vector<const DocRef*> documents_to_read(
    const std::vector<DocRef>& documents, const Fingerprints& seen,
    const std::function<bool(const std::string& doc_id)>& read_again) {
    std::vector<const DocRef*> out;
    for (const auto& doc : documents) {
        auto it = seen.find(doc.node.id);
        if (it == seen.end() || !(it->second == fingerprint_of(doc)) ||
            (read_again && read_again(doc.node.id)))
            out.push_back(&doc);
    }
    std::stable_sort(out.begin(), out.end(), [](const DocRef* a, const DocRef* b) {
        if (a->node.modified_ms != b->node.modified_ms)
            return a->node.modified_ms < b->node.modified_ms;
        return a->node.id < b->node.id;
    });
    return out;
}

std::vector<std::string> vanished_documents(const std::vector<DocRef>& documents,
                                            const Fingerprints& seen,
                                            const std::vector<std::string>& also_present) {
    std::unordered_set<std::string_view> present;
    present.reserve(documents.size() + also_present.size());
    for (const auto& doc : documents) present.insert(doc.node.id);
    for (const auto& id : also_present) present.insert(id);
    std::vector<std::string> out;
    for (const auto& [id, fp] : seen)
        if (!present.contains(id)) out.push_back(id);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace cdcd::dingtalk
