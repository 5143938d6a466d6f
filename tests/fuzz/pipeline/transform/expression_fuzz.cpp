// Transform rules from hostile text: the projection (first line) and filter (the rest) are
// parsed, bound to a table of every column type and run over an insert, an update and a delete.
// A rule may be refused (diagnostics, TransformError); nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipeline/transform/transform_operator.h"

using namespace cdcd;

namespace {

Schema every_type() {
    return SchemaBuilder()
        .column("id", DataType::bigint().not_null())
        .column("name", DataType::string())
        .column("flag", DataType::boolean())
        .column("i", DataType::int_())
        .column("d", DataType::double_())
        .column("amount", DataType::decimal(10, 2))
        .column("day", DataType::date())
        .column("ts", DataType::timestamp(3))
        .column("ltz", DataType::timestamp_ltz(3))
        .column("bin", DataType::bytes())
        .column("tags", DataType::array(DataType::string()))
        .primary_key({"id"})
        .build();
}

Row row(std::int64_t id, std::string_view name) {
    RowBuilder b(11);
    b.set_long(0, id).set_string(1, name).set_bool(2, id % 2 == 0).set_long(3, id * 7);
    b.set_double(4, 0.5 * static_cast<double>(id)).set_null(5).set_long(6, 19000 + id);
    b.set_null(7).set_null(8).set_bytes(9, name).set_null(10);
    return std::move(b).build();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto newline = text.find('\n');
    config::TransformDef rule;
    rule.source_table = "db.t";
    rule.projection = std::string(text.substr(0, newline));
    if (newline != std::string_view::npos) rule.filter = std::string(text.substr(newline + 1));
    rule.where = rule.projection_where = rule.filter_where = {"fuzz.yaml", 1, 1};

    config::Diagnostics diags;
    auto op = transform::TransformOperator::create({rule}, "UTC", diags);
    if (!op || !diags.ok()) return 0;
    const TableId table = TableId::of("", "db", "t");
    EventBatch in, out;
    in.emplace_back(CreateTableEvent{table, every_type()});
    in.emplace_back(DataChangeEvent::insert(table, row(1, "alice")));
    in.emplace_back(DataChangeEvent::update(table, row(1, "alice"), row(2, "")));
    in.emplace_back(DataChangeEvent::remove(table, row(2, "\xff\xfe")));
    try {
        op->process(in, out);
    } catch (const transform::TransformError&) {
    }
    return 0;
}
