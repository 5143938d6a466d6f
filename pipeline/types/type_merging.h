#pragma once
// Flink CDC's type widening rules (SchemaMergingUtils): which column types an upcoming type can be
// stored in, the least common type of two types, and schema merge / difference for many-to-one
// routing.
#include <vector>

#include "pipeline/data/table_id.h"
#include "pipeline/event/events.h"
#include "pipeline/schema/schema.h"
#include "pipeline/types/data_type.h"

namespace cdcd {

/// TYPE_MERGING_TREE: the ordered list of (nullable) types a type of `root` widens to.
/// DECIMAL's list is only STRING; decimals merge by the finer rules of least_common_type.
const std::vector<DataType>& type_merging_tree(TypeRoot root);

/// SchemaMergingUtils#isDataTypeCompatible: `from` == `to`, or `to` is in from's merging tree.
/// Nullability and precision take part in the comparison, as in Flink (the tree's types are
/// nullable and at their maximum timestamp precision).
bool can_widen(const DataType& from, const DataType& to);

/// SchemaMergingUtils#getLeastCommonType. Nullable if either side is.
DataType least_common_type(const DataType& current, const DataType& upcoming);

/// Every upcoming column fits its current column (isSchemaCompatible); false when `current`
/// is null.
bool is_schema_compatible(const Schema* current, const Schema& upcoming);

/// SchemaMergingUtils#getLeastCommonSchema: keeps current's columns and order, widens shared
/// columns, appends upcoming-only columns. A null `current` yields `upcoming`.
Schema least_common_schema(const Schema* current, const Schema& upcoming);
inline Schema least_common_schema(const Schema& current, const Schema& upcoming) {
    return least_common_schema(&current, upcoming);
}

/// SchemaMergingUtils#getSchemaDifference: a CreateTableEvent when `before` is null, else at
/// most one AddColumnEvent (FIRST / AFTER previous column), one AlterColumnTypeEvent (with old
/// types) and one DropColumnEvent, in that order.
std::vector<SchemaChangeEvent> schema_difference(TableId table, const Schema* before,
                                                 const Schema& after);
inline std::vector<SchemaChangeEvent> schema_difference(TableId table, const Schema& before,
                                                        const Schema& after) {
    return schema_difference(table, &before, after);
}

}  // namespace cdcd
