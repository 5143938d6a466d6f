#pragma once
// Which documents changed since they were last emitted: per document a fingerprint (modified
// time and a 64-bit hash of title, parent and url); changed documents ordered by modification
// time, then id.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sources/dingtalk/model.h"

namespace cdcd::dingtalk {

struct Fingerprint {
    std::int64_t modified_ms = 0;
    std::uint64_t meta_hash = 0;
    friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
};

using Fingerprints = std::unordered_map<std::string, Fingerprint>;

/// FNV-1a over the fields with separators, so ("ab","c") and ("a","bc") differ.
std::uint64_t meta_hash(std::string_view title, std::string_view parent, std::string_view url);
Fingerprint fingerprint_of(const DocRef& doc);

/// Documents whose fingerprint differs from `seen` (or are not in it), by (modified time, id).
/// Pointers into `documents` (a snapshot of a large workspace is not copied).
std::vector<const DocRef*> changed_documents(const std::vector<DocRef>& documents,
                                             const Fingerprints& seen);
/// changed_documents, plus the unchanged documents `read_again` names (those whose last read
/// failed and whose retry is due), in the same order.
std::vector<const DocRef*> documents_to_read(
    const std::vector<DocRef>& documents, const Fingerprints& seen,
    const std::function<bool(const std::string& doc_id)>& read_again);
/// Ids in `seen` that neither `documents` nor `also_present` holds, sorted.
std::vector<std::string> vanished_documents(const std::vector<DocRef>& documents,
                                            const Fingerprints& seen,
                                            const std::vector<std::string>& also_present = {});

}  // namespace cdcd::dingtalk
