#include "sources/values/generator.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace cdcd::values {

Generator::Generator(GeneratorSpec spec) : spec_(spec), table_(table()) {
    std::int64_t deletes = spec_.delete_every > 0 ? spec_.rows / spec_.delete_every : 0;
    total_ = spec_.rows + spec_.rows * spec_.updates_per_row + deletes;
}

TableId Generator::table() {
    return TableId::of("default_namespace", "default_schema", "generated");
}

Schema Generator::schema() {
    return SchemaBuilder()
        .column("id", DataType::bigint().not_null())
        .column("version", DataType::int_())
        .column("payload", DataType::string())
        .primary_key({"id"})
        .build();
}

Row Generator::row(std::int64_t id, std::int64_t version) const {
    // payload: "<id>-<version>-" padded with 'x' to payload-bytes (never truncated).
    char prefix[48];
    char* p = std::to_chars(prefix, prefix + 20, id).ptr;
    *p++ = '-';
    p = std::to_chars(p, p + 20, version).ptr;
    *p++ = '-';
    auto prefix_len = static_cast<std::size_t>(p - prefix);
    std::size_t len =
        std::max<std::size_t>(prefix_len, static_cast<std::size_t>(spec_.payload_bytes));
    RowBuilder b(3, len);
    b.set_long(0, id).set_long(1, version);
    char* dst = b.reserve_bytes(2, len);
    std::memcpy(dst, prefix, prefix_len);
    std::memset(dst + prefix_len, 'x', len - prefix_len);
    return std::move(b).build();
}

std::int64_t Generator::id_at(std::int64_t k) const {
    const std::int64_t n = spec_.rows;
    if (k < n) return k + 1;
    k -= n;
    if (k < n * spec_.updates_per_row) return k % n + 1;
    k -= n * spec_.updates_per_row;
    return (k + 1) * spec_.delete_every;
}

std::int64_t Generator::next_in_share(std::int64_t k, std::int64_t index,
                                      std::int64_t count) const {
    const std::int64_t n = spec_.rows;
    // How far from `id` the next id of the share is.
    auto gap = [&](std::int64_t id) { return ((index - id % count) % count + count) % count; };
    if (k < n) {  // inserts: id k + 1
        k += gap(k + 1);
        if (k < n) return k;
        k = n;
    }
    const std::int64_t updates = n * spec_.updates_per_row;
    if (k < n + updates) {  // update rounds: id (k - n) % n + 1, ascending in each round
        std::int64_t q = k - n;
        std::int64_t off = q % n + gap(q % n + 1);
        if (off < n) return n + q - q % n + off;
        std::int64_t first = gap(1);  // the share's first id of a round, when it has one
        std::int64_t next_round = q - q % n + n;
        if (first < n && next_round < updates) return n + next_round + first;
        k = n + updates;
    }
    for (; k < total_; ++k)  // deletes: every delete-every'th id
        if (id_at(k) % count == index) return k;
    return total_;
}

std::int64_t Generator::run_end(std::int64_t k) const {
    const std::int64_t n = spec_.rows;
    if (k < n) return n;
    const std::int64_t updates = n * spec_.updates_per_row;
    if (k < n + updates) return n + ((k - n) / n + 1) * n;
    return k + 1;
}

void Generator::append_event(std::int64_t k, EventBatch& events) const {
    const std::int64_t n = spec_.rows;
    if (k < n) {
        append_insert(events, table_, row(k + 1, 0));
        return;
    }
    k -= n;
    if (k < n * spec_.updates_per_row) {
        std::int64_t round = k / n + 1;
        std::int64_t id = k % n + 1;
        append_update(events, table_, row(id, round - 1), row(id, round));
        return;
    }
    k -= n * spec_.updates_per_row;
    std::int64_t id = (k + 1) * spec_.delete_every;
    append_delete(events, table_, row(id, spec_.updates_per_row));
}

}  // namespace cdcd::values
