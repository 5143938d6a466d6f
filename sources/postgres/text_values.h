#pragma once
// PostgreSQL's text output of a column value (what pgoutput sends, and what a snapshot query
// returns) into a row field of the column's DataType (type_mapping.h). The connections set the
// session so that the text is canonical: DateStyle ISO, TimeZone UTC, bytea_output hex,
// extra_float_digits 3, IntervalStyle postgres, lc_monetary C.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "pipeline/data/row.h"
#include "pipeline/types/data_type.h"
#include "sources/postgres/type_mapping.h"

namespace cdcd::postgres {

/// Sets field `index` of `row` from `text`, read as `form` says (type_mapping.h; an array's
/// elements are read with it); returns why it cannot (a value the type cannot hold, or text that is
/// not of the type), leaving the field unset.
std::optional<std::string> set_text_value(RowBuilder& row, std::size_t index, const DataType& type,
                                          std::string_view text, TextForm form = TextForm::Native);

}  // namespace cdcd::postgres
