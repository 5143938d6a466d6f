#include "formats/csv/csv_key.h"

#include "pipeline/data/field_format.h"
#include "pipeline/data/temporal.h"
#include "pipeline/util/base64.h"

namespace cdcd::csv {

namespace {

// CsvEncoder: MAX_QUOTE_CHECK = 24; _cfgMinSafeChar = max(separator, quote, line separator) + 1.
constexpr std::size_t kMaxQuoteCheck = 24;
constexpr unsigned char kMinSafeChar = ',' + 1;

bool needs_quotes(std::string_view s) {
    if (s.size() > kMaxQuoteCheck) return true;
    for (char c : s)
        if (static_cast<unsigned char>(c) < kMinSafeChar) return true;
    return false;
}

}  // namespace

void append_column(std::string& out, std::string_view s) {
    if (!needs_quotes(s)) {
        out.append(s);
        return;
    }
    out.push_back('"');
    for (char c : s) {
        if (c == '"') out.push_back('"');
        out.push_back(c);
    }
    out.push_back('"');
}

namespace {

// Flink's RowDataToCsvConverters: numbers and booleans as number/boolean nodes, everything else as
// text nodes (dates ISO, timestamps "yyyy-MM-dd HH:mm:ss[.f]", binaries base64).
void write_value(std::string& out, RowView row, std::size_t i, const DataType& type) {
    switch (type.root()) {
        case TypeRoot::Boolean:
            out += row.get_bool(i) ? "true" : "false";
            return;
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            out += std::to_string(row.get_long(i));
            return;
        case TypeRoot::Float:
            out += java_float_to_string(static_cast<float>(row.get_double(i)));
            return;
        case TypeRoot::Double:
            out += java_double_to_string(row.get_double(i));
            return;
        case TypeRoot::Decimal:
            out += row.get_decimal(i).to_string(type.scale());
            return;
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            append_column(out, row.get_string(i));
            return;
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            append_column(out, base64_encode(row.get_bytes(i)));
            return;
        case TypeRoot::Date:
            append_column(out, temporal::format_date(row.get_long(i)));
            return;
        case TypeRoot::Timestamp:
        case TypeRoot::TimestampLtz:
            append_column(out, temporal::format_sql_timestamp(row.get_timestamp(i), 9));
            return;
        default:
            append_column(out, format_field(row, i, type));
            return;
    }
}

}  // namespace

void write_csv_key(std::string& out, const DataChangeEvent& e, const json::KeyColumns& key) {
    append_column(out, e.table.str());
    const Row* image = json::key_image(e);
    for (std::size_t k = 0; k < key.indexes.size(); ++k) {
        out.push_back(',');
        auto i = static_cast<std::size_t>(key.indexes[k]);
        if (!image || i >= image->arity() || image->is_null(i)) continue;
        write_value(out, image->view(), i, key.columns[k].type);
    }
}

}  // namespace cdcd::csv
