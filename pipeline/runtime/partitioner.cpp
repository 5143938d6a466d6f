#include "pipeline/runtime/partitioner.h"

#include <string_view>

#include "pipeline/data/field_format.h"

namespace cdcd {

std::optional<PartitioningStrategy> parse_partitioning_strategy(std::string_view text) {
    if (text == "SINK_DEFINED") return PartitioningStrategy::SinkDefined;
    if (text == "PRIMARY_KEY") return PartitioningStrategy::PrimaryKey;
    if (text == "TABLE_ID") return PartitioningStrategy::TableId;
    return std::nullopt;
}

PartitionKey::PartitionKey(const Schema* schema, PartitioningStrategy strategy) {
    if (strategy == PartitioningStrategy::TableId || !schema || schema->primary_keys().empty())
        return;
    by_key_ = true;
    for (int idx : schema->primary_key_indexes()) {
        if (idx < 0) continue;
        auto i = static_cast<std::size_t>(idx);
        columns_.push_back({i, is_variable_length(schema->columns()[i].type)});
    }
    if (columns_.size() == 1 && !columns_[0].variable_length) single_fixed_ = columns_[0].index;
}

std::size_t PartitionKey::writer_of_walk(const DataChangeEvent& event, std::size_t writers) const {
    const std::optional<Row>& row = key_row(event);
    std::uint64_t h = 0;
    if (by_key_ && row) {
        RowView v = row->view();
        for (const KeyColumn& key : columns_) {
            if (key.index >= v.arity()) continue;
            if (v.is_null(key.index)) {
                h = mix(h, 0);
            } else if (key.variable_length) {
                h = mix(h, std::hash<std::string_view>()(v.get_bytes(key.index)));
            } else {
                h = mix(h, static_cast<std::uint64_t>(v.get_long(key.index)));
            }
        }
    } else {
        h = mix(h, std::hash<std::string_view>()(event.table.str()));
    }
    return reduce(h, writers);
}

}  // namespace cdcd
