#include "kafka_client/topic_name.h"

namespace cdcd::kafka {

namespace {

constexpr std::size_t kMaxLength = 249;

bool legal(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

}  // namespace

std::optional<std::string> topic_name_problem(std::string_view name) {
    const std::string shown = "`" + std::string(name) + "` is not a Kafka topic name: ";
    if (name.empty()) return "an empty name is not a Kafka topic name";
    if (name == "." || name == "..") return shown + "'.' and '..' are not allowed";
    if (name.size() > kMaxLength)
        return "a name of " + std::to_string(name.size()) +
               " characters is not a Kafka topic name: at most 249";
    for (char c : name)
        if (!legal(c)) return shown + "it may hold only ASCII letters, digits, '.', '_' and '-'";
    return std::nullopt;
}

}  // namespace cdcd::kafka
