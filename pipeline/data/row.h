#pragma once
// Rows are compact binary records addressed by column position, like Flink's BinaryRowData:
//
//   [u32 arity][u32 unused][null bitmap, 8-byte words][8-byte slot per field][variable part]
//
// A slot holds an integer (BOOLEAN, TINYINT..BIGINT, DATE as epoch days, TIME as nanos of day),
// a double (FLOAT, DOUBLE), or for everything else the offset and length of bytes in the
// variable part (strings, binaries, DECIMAL as 16 bytes, timestamps, nested ARRAY/MAP/ROW encoded
// as rows themselves). The column's DataType says which; the row does not store types. One
// allocation per row; equal rows have equal bytes.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "pipeline/data/values.h"

namespace cdcd {

class RowView {
  public:
    RowView() = default;
    explicit RowView(std::string_view bytes) : bytes_(bytes) {}

    std::uint32_t arity() const { return bytes_.empty() ? 0 : load<std::uint32_t>(0); }
    bool is_null(std::size_t i) const {
        std::uint64_t word = load<std::uint64_t>(8 + (i / 64) * 8);
        return (word >> (i % 64)) & 1U;
    }
    std::int64_t get_long(std::size_t i) const { return load<std::int64_t>(slot(i)); }
    bool get_bool(std::size_t i) const { return get_long(i) != 0; }
    double get_double(std::size_t i) const { return load<double>(slot(i)); }
    std::string_view get_bytes(std::size_t i) const {
        std::uint64_t ref = load<std::uint64_t>(slot(i));
        return bytes_.substr(static_cast<std::uint32_t>(ref >> 32),
                             static_cast<std::uint32_t>(ref));
    }
    std::string_view get_string(std::size_t i) const { return get_bytes(i); }
    Decimal get_decimal(std::size_t i) const { return load_at<Decimal>(get_bytes(i)); }
    Timestamp get_timestamp(std::size_t i) const {
        auto b = get_bytes(i);
        return Timestamp{load_at<std::int64_t>(b), load_at<std::int32_t>(b.substr(8))};
    }
    ZonedTimestamp get_zoned_timestamp(std::size_t i) const {
        auto b = get_bytes(i);
        return ZonedTimestamp{
            Timestamp{load_at<std::int64_t>(b), load_at<std::int32_t>(b.substr(8))},
            load_at<std::int32_t>(b.substr(12))};
    }
    /// ARRAY and ROW values are rows; a MAP is a keys row followed by a values row.
    RowView get_row(std::size_t i) const { return RowView(get_bytes(i)); }
    RowView get_array(std::size_t i) const { return get_row(i); }
    RowView get_map_keys(std::size_t i) const;
    RowView get_map_values(std::size_t i) const;

    std::string_view bytes() const { return bytes_; }
    bool empty() const { return bytes_.empty(); }
    static std::size_t fixed_size(std::size_t arity) {
        return 8 + ((arity + 63) / 64) * 8 + arity * 8;
    }

  private:
    std::size_t slot(std::size_t i) const { return 8 + ((arity() + 63) / 64) * 8 + i * 8; }
    template <typename T>
    T load(std::size_t offset) const {
        T v;
        std::memcpy(&v, bytes_.data() + offset, sizeof(T));
        return v;
    }
    template <typename T>
    static T load_at(std::string_view b) {
        T v;
        std::memcpy(&v, b.data(), sizeof(T));
        return v;
    }
    std::string_view bytes_;
};

/// An owning row. Cheap to move; copying copies one buffer.
class Row {
  public:
    Row() = default;
    explicit Row(std::string bytes) : bytes_(std::move(bytes)) {}
    RowView view() const { return RowView(bytes_); }
    operator RowView() const { return view(); }  // NOLINT(google-explicit-constructor)
    std::uint32_t arity() const { return view().arity(); }
    bool is_null(std::size_t i) const { return view().is_null(i); }
    const std::string& bytes() const { return bytes_; }
    std::string release() && { return std::move(bytes_); }
    /// The bytes, for a rewrite that leaves a valid row (the transform's projection written over
    /// its input row, BoundProjection::assemble_in_place).
    std::string& bytes_for_rewrite() { return bytes_; }
    friend bool operator==(const Row& a, const Row& b) { return a.bytes_ == b.bytes_; }

  private:
    std::string bytes_;
};

/// Writes a row field by field, in any order; unset fields are NULL.
class RowBuilder {
  public:
    explicit RowBuilder(std::size_t arity, std::size_t variable_hint = 0);

    RowBuilder& set_null(std::size_t i);
    RowBuilder& set_long(std::size_t i, std::int64_t v);
    RowBuilder& set_bool(std::size_t i, bool v) { return set_long(i, v ? 1 : 0); }
    RowBuilder& set_double(std::size_t i, double v);
    RowBuilder& set_bytes(std::size_t i, std::string_view v);
    RowBuilder& set_string(std::size_t i, std::string_view v) { return set_bytes(i, v); }
    RowBuilder& set_decimal(std::size_t i, Decimal v);
    RowBuilder& set_timestamp(std::size_t i, Timestamp v);
    RowBuilder& set_zoned_timestamp(std::size_t i, ZonedTimestamp v);
    RowBuilder& set_row(std::size_t i, RowView nested) { return set_bytes(i, nested.bytes()); }
    RowBuilder& set_map(std::size_t i, RowView keys, RowView values);
    /// Copies field `from` of `source` (of the same type) into field `i`.
    RowBuilder& copy_field(std::size_t i, RowView source, std::size_t from, bool variable);

    /// Appends `n` bytes to the variable part and points field i at them; returns where to write
    /// them. The caller writes all n: they are not filled.
    char* reserve_bytes(std::size_t i, std::size_t n);

    Row build() &&;

  private:
    void clear_null(std::size_t i);
    std::size_t slot(std::size_t i) const { return 8 + words_ * 8 + i * 8; }
    std::string buf_;
    std::size_t arity_;
    std::size_t words_;
};

}  // namespace cdcd
