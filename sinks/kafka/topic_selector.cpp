#include "sinks/kafka/topic_selector.h"

#include "kafka_client/topic_name.h"

namespace cdcd::kafka {

namespace {

// Java's String#split: empty trailing pieces are dropped.
std::vector<std::string> java_split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        std::size_t pos = s.find(sep, start);
        parts.push_back(
            s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
        if (pos == std::string::npos) break;
        start = pos + 1;
    }
    while (!parts.empty() && parts.back().empty()) parts.pop_back();
    return parts;
}

std::string trim(const std::string& s) {
    auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> TopicSelector::parse_mapping(
    const std::string& mapping) {
    std::vector<std::pair<std::string, std::string>> out;
    if (trim(mapping).empty()) return out;
    for (const auto& entry : java_split(mapping, ';')) {
        auto kv = java_split(entry, ':');
        if (kv.size() != 2 || trim(kv[0]).empty() || trim(kv[1]).empty())
            throw std::invalid_argument(
                "sink.tableId-to-topic.mapping: entry '" + entry +
                "' is malformed; expected <selector>:<topic>, entries separated by ';'");
        out.emplace_back(trim(kv[0]), trim(kv[1]));
    }
    return out;
}

TopicSelector::TopicSelector(std::optional<std::string> topic, const std::string& mapping)
    : topic_(std::move(topic)) {
    for (auto& [selector, target] : parse_mapping(mapping)) {
        std::string error;
        auto parsed = Selectors::parse(selector, &error);
        if (!parsed)
            throw std::invalid_argument("sink.tableId-to-topic.mapping: selector '" + selector +
                                        "': " + error);
        if (auto problem = topic_name_problem(target))
            throw std::invalid_argument("sink.tableId-to-topic.mapping: entry '" + selector + ":" +
                                        target + "': " + *problem);
        rules_.emplace_back(std::move(parsed), target);
    }
}

std::string TopicSelector::topic_for(TableId table) const {
    if (topic_) return *topic_;
    for (const auto& [selectors, target] : rules_)
        if (selectors->matches(table)) return target;
    return table.str();
}

}  // namespace cdcd::kafka
