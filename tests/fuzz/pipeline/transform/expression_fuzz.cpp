// Transform rules from hostile text: the projection (first line) and filter (the rest) are
// parsed, bound to a table of every column type and run over an insert, an update and a delete.
// A rule may be refused (diagnostics, TransformError); nothing else may escape. The events are
// transformed column-at-a-time and row by row: both must give the same events, or the same error.
// Column-at-a-time, the input rows have room for their projection, which is then written over
// them when the rule allows it (`*` first, or some columns in their order, then computed ones).
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "pipeline/event/event_format.h"
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

Row row(std::int64_t id, std::string_view name, std::size_t room) {
    RowBuilder b(11);
    b.set_long(0, id).set_string(1, name).set_bool(2, id % 2 == 0).set_long(3, id * 7);
    b.set_double(4, 0.5 * static_cast<double>(id)).set_null(5).set_long(6, 19000 + id);
    b.set_null(7).set_null(8).set_bytes(9, name).set_null(10);
    std::string bytes = std::move(b).build().release();
    bytes.reserve(bytes.size() + room);
    return Row(std::move(bytes));
}

// The events a transform gives (or its error), as text.
std::string transformed(const config::TransformDef& rule, bool in_batches, bool* refused) {
    config::Diagnostics diags;
    auto op = transform::TransformOperator::create({rule}, "UTC", diags);
    if (!op || !diags.ok()) {
        *refused = true;
        return {};
    }
    op->evaluate_in_batches(in_batches);
    op->fix_clock(1710498030123);  // both runs see the same instant
    const TableId table = TableId::of("", "db", "t");
    const std::size_t room = in_batches ? 512 : 0;
    EventBatch in, out;
    in.emplace_back(CreateTableEvent{table, every_type()});
    in.emplace_back(DataChangeEvent::insert(table, row(1, "alice", room)));
    in.emplace_back(DataChangeEvent::update(table, row(1, "alice", room), row(2, "", room)));
    in.emplace_back(DataChangeEvent::remove(table, row(2, "\xff\xfe", room)));
    std::string text;
    try {
        op->process(in, out);
    } catch (const transform::TransformError& e) {
        return std::string("error: ") + e.what();
    }
    Schema schema;
    for (const auto& e : out) {
        if (const auto* c = std::get_if<CreateTableEvent>(&e)) schema = c->schema;
        if (const auto* d = std::get_if<DataChangeEvent>(&e))
            text += format_data_change(*d, schema) + "\n";
    }
    return text;
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

    bool refused = false;
    std::string rows = transformed(rule, false, &refused);
    if (refused) return 0;
    std::string batches = transformed(rule, true, &refused);
    std::string upper(text);
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
    bool random =
        upper.find("UUID") != std::string::npos || upper.find("RAND") != std::string::npos;
    if (!random && rows != batches) {
        std::fprintf(stderr, "row by row:\n%s\ncolumn-at-a-time:\n%s\n", rows.c_str(),
                     batches.c_str());
        std::abort();
    }
    return 0;
}
