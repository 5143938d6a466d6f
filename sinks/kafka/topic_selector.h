#pragma once
// Which topic a table's records go to (PipelineKafkaRecordSerializationSchema#inferTopicName):
// `topic` if set; else the first `sink.tableId-to-topic.mapping` entry whose selector matches
// (`sel1:topic1;sel2:topic2`, split on ';' then ':', Flink Selectors syntax, case-insensitive);
// else the table id itself.
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/data/table_id.h"
#include "pipeline/route/selectors.h"

namespace cdcd::kafka {

class TopicSelector {
  public:
    /// Throws std::invalid_argument when the mapping is malformed or a selector does not parse.
    TopicSelector(std::optional<std::string> topic, const std::string& mapping);
    std::string topic_for(TableId table) const;

    /// The mapping's (selector, topic) pairs, for validation messages and tests.
    static std::vector<std::pair<std::string, std::string>> parse_mapping(
        const std::string& mapping);

  private:
    std::optional<std::string> topic_;
    std::vector<std::pair<std::unique_ptr<Selectors>, std::string>> rules_;
};

}  // namespace cdcd::kafka
