#pragma once
// Kafka's Java client hash (org.apache.kafka.common.utils.Utils#murmur2) and the keyed
// partition of its default partitioner: toPositive(murmur2(key)) % numPartitions. cdcd places
// hash-by-key records with it, so that placement equals Flink's.
#include <cstdint>
#include <string_view>

namespace cdcd::kafka {

std::int32_t murmur2(std::string_view data);
inline std::int32_t to_positive(std::int32_t n) {
    return n & 0x7fffffff;
}
inline std::int32_t key_partition(std::string_view key, std::int32_t partitions) {
    return to_positive(murmur2(key)) % partitions;
}

}  // namespace cdcd::kafka
