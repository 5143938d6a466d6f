#include "sources/oss/table_id_mapper.h"

#include <re2/re2.h>

#include <stdexcept>

#include "regex/java_regex.h"

namespace cdcd::oss {

TableIdMapper::TableIdMapper(const std::string& pattern) {
    if (pattern.empty()) return;
    regex::Error error;
    re_ = regex::compile_java(pattern, &error);
    if (!re_)
        throw std::invalid_argument("`oss-key.to.table-id.matching.pattern`: " +
                                    regex::refusal(pattern, error));
    groups_ = re_->NumberOfCapturingGroups();
    if (groups_ < 1 || groups_ > 3)
        throw std::invalid_argument("table-id pattern needs 1 to 3 capture groups, has " +
                                    std::to_string(groups_));
}

TableIdMapper::~TableIdMapper() = default;
TableIdMapper::TableIdMapper(TableIdMapper&&) noexcept = default;

std::optional<TableId> TableIdMapper::map(const std::string& bucket, const std::string& key) const {
    if (!re_) return TableId::of(bucket);
    std::string path = "oss://" + bucket + "/" + key;
    std::string g[3];
    bool ok = false;
    switch (groups_) {
        case 1:
            ok = re2::RE2::FullMatch(path, *re_, &g[0]);
            break;
        case 2:
            ok = re2::RE2::FullMatch(path, *re_, &g[0], &g[1]);
            break;
        default:
            ok = re2::RE2::FullMatch(path, *re_, &g[0], &g[1], &g[2]);
            break;
    }
    if (!ok) return std::nullopt;
    for (int i = 0; i < groups_; ++i)
        if (g[i].empty()) return std::nullopt;
    if (groups_ == 1) return TableId::of(g[0]);
    if (groups_ == 2) return TableId::of(g[0], g[1]);
    return TableId::of(g[0], g[1], g[2]);
}

}  // namespace cdcd::oss
