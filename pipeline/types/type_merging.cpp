#include "pipeline/types/type_merging.h"

#include <algorithm>
#include <unordered_map>

#include "pipeline/util/java_hash_map.h"

namespace cdcd {

namespace {

constexpr int kMaxDecimalPrecision = 38;
constexpr int kMaxTimestampPrecision = 9;

std::vector<std::vector<DataType>> build_tree() {
    const DataType str = DataType::string();
    const DataType dbl = DataType::double_();
    const DataType flt = DataType::float_();
    const DataType dec = DataType::decimal(kMaxDecimalPrecision, 0);
    const DataType big = DataType::bigint();
    const DataType i32 = DataType::int_();
    const DataType i16 = DataType::smallint();
    const DataType i8 = DataType::tinyint();
    const DataType tz = DataType::timestamp_tz(kMaxTimestampPrecision);
    const DataType ltz = DataType::timestamp_ltz(kMaxTimestampPrecision);
    const DataType ts = DataType::timestamp(kMaxTimestampPrecision);
    const DataType date = DataType::date();

    std::vector<std::vector<DataType>> tree(static_cast<std::size_t>(TypeRoot::Row) + 1, {str});
    auto set = [&](TypeRoot r, std::vector<DataType> list) {
        tree[static_cast<std::size_t>(r)] = std::move(list);
    };
    set(TypeRoot::Double, {dbl, str});
    set(TypeRoot::Float, {flt, dbl, str});
    set(TypeRoot::BigInt, {big, dec, dbl, str});
    set(TypeRoot::Int, {i32, big, dec, dbl, str});
    set(TypeRoot::SmallInt, {i16, i32, big, dec, flt, dbl, str});
    set(TypeRoot::TinyInt, {i8, i16, i32, big, dec, flt, dbl, str});
    set(TypeRoot::TimestampTz, {tz, str});
    set(TypeRoot::TimestampLtz, {ltz, tz, str});
    set(TypeRoot::Timestamp, {ts, ltz, tz, str});
    set(TypeRoot::Date, {date, ts, ltz, tz, str});
    // CHAR, VARCHAR, BOOLEAN, BINARY, VARBINARY, DECIMAL, TIME, ARRAY, MAP, ROW: {STRING}.
    return tree;
}

bool contains(const std::vector<DataType>& list, const DataType& t) {
    return std::find(list.begin(), list.end(), t) != list.end();
}

int timestamp_level(TypeRoot r) {
    return r == TypeRoot::Timestamp ? 0 : r == TypeRoot::TimestampLtz ? 1 : 2;
}

DataType merge_timestamp(const DataType& l, const DataType& r) {
    int precision = std::max(l.precision(), r.precision());
    switch (std::max(timestamp_level(l.root()), timestamp_level(r.root()))) {
        case 0:
            return DataType::timestamp(precision);
        case 1:
            return DataType::timestamp_ltz(precision);
        default:
            return DataType::timestamp_tz(precision);
    }
}

DataType merge_decimal_with_integer(const DataType& dec, const DataType& integer) {
    int precision = std::max(dec.precision(), dec.scale() + integer_digits(integer.root()));
    if (precision > kMaxDecimalPrecision) return DataType::string();
    return DataType::decimal(precision, dec.scale());
}

DataType merge_decimal(const DataType& l, const DataType& r) {
    bool ld = l.root() == TypeRoot::Decimal, rd = r.root() == TypeRoot::Decimal;
    if (ld && rd) {
        int int_digits = std::max(l.precision() - l.scale(), r.precision() - r.scale());
        int scale = std::max(l.scale(), r.scale());
        // Keep every integer digit; give up fractional digits beyond DECIMAL(38).
        if (int_digits + scale > kMaxDecimalPrecision) scale = kMaxDecimalPrecision - int_digits;
        return DataType::decimal(int_digits + scale, scale);
    }
    if (ld && r.is_integer()) return merge_decimal_with_integer(l, r);
    if (rd && l.is_integer()) return merge_decimal_with_integer(r, l);
    return DataType::string();
}

}  // namespace

const std::vector<DataType>& type_merging_tree(TypeRoot root) {
    static const std::vector<std::vector<DataType>> tree = build_tree();
    return tree[static_cast<std::size_t>(root)];
}

bool can_widen(const DataType& from, const DataType& to) {
    return from == to || contains(type_merging_tree(from.root()), to);
}

DataType least_common_type(const DataType& current_in, const DataType& upcoming_in) {
    bool nullable = current_in.nullable() || upcoming_in.nullable();
    DataType current = current_in.not_null();
    DataType upcoming = upcoming_in.not_null();
    if (current == upcoming) return current.with_nullable(nullable);
    if (current.is_timestamp() && upcoming.is_timestamp())
        return merge_timestamp(current, upcoming).with_nullable(nullable);
    if (current.root() == TypeRoot::Decimal || upcoming.root() == TypeRoot::Decimal)
        return merge_decimal(current, upcoming).with_nullable(nullable);
    const auto& upcoming_tree = type_merging_tree(upcoming.root());
    for (const DataType& t : type_merging_tree(current.root())) {
        if (contains(upcoming_tree, t)) return t.with_nullable(nullable);
    }
    return DataType::string().with_nullable(nullable);
}

bool is_schema_compatible(const Schema* current, const Schema& upcoming) {
    if (current == nullptr) return false;
    for (const Column& col : upcoming.columns()) {
        const Column* cur = current->find(col.name);
        if (cur == nullptr || !can_widen(col.type, cur->type)) return false;
    }
    return true;
}

Schema least_common_schema(const Schema* current, const Schema& upcoming) {
    if (current == nullptr) return upcoming;
    if (is_schema_compatible(current, upcoming)) return *current;
    Schema merged = *current;
    auto& columns = merged.mutable_columns();
    std::vector<Column> appended;
    for (const Column& col : upcoming.columns()) {
        int i = current->index_of(col.name);
        if (i < 0) {
            appended.push_back(col);
            continue;
        }
        Column& target = columns[static_cast<std::size_t>(i)];
        target.type = least_common_type(target.type, col.type);
    }
    columns.insert(columns.end(), appended.begin(), appended.end());
    return merged;
}

std::vector<SchemaChangeEvent> schema_difference(TableId table, const Schema* before,
                                                 const Schema& after) {
    if (before == nullptr) return {CreateTableEvent{table, after}};
    std::vector<bool> kept(before->size(), false);
    AddColumnEvent add{table, {}};
    AlterColumnTypeEvent alter{table, {}, {}, {}};
    const Column* previous = nullptr;
    for (const Column& col : after.columns()) {
        int i = before->index_of(col.name);
        if (i >= 0) {
            const DataType& old_type = before->columns()[static_cast<std::size_t>(i)].type;
            if (old_type != col.type) {
                alter.old_types.emplace_back(col.name, old_type);
                alter.new_types.emplace_back(col.name, col.type);
            }
            kept[static_cast<std::size_t>(i)] = true;
        } else if (previous == nullptr) {
            add.added.push_back({col, ColumnWithPosition::Position::First, {}});
        } else {
            add.added.push_back({col, ColumnWithPosition::Position::After, previous->name});
        }
        previous = &col;
    }
    std::vector<SchemaChangeEvent> events;
    if (!add.added.empty()) events.emplace_back(std::move(add));
    if (!alter.new_types.empty()) events.emplace_back(std::move(alter));
    // Flink lists the dropped names from a HashMap's key set; keep its iteration order.
    DropColumnEvent drop{table, {}};
    for (std::size_t i : java_hash_map_order(before->column_names())) {
        if (!kept[i]) drop.dropped.push_back(before->columns()[i].name);
    }
    if (!drop.dropped.empty()) events.emplace_back(std::move(drop));
    return events;
}

}  // namespace cdcd
