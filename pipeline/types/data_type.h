#pragma once
// Flink CDC's data types (flink-cdc-common types/*), as immutable value types.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cdcd {

enum class TypeRoot : std::uint8_t {
    Char,
    Varchar,
    Boolean,
    Binary,
    Varbinary,
    Decimal,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Float,
    Double,
    Date,
    Time,
    Timestamp,
    TimestampLtz,
    TimestampTz,
    Array,
    Map,
    Row,
};

class DataType;

struct RowField {
    std::string name;
    std::shared_ptr<const DataType> type;
    std::string description;
};

class DataType {
  public:
    static constexpr int kMaxLength = 2147483647;  // VARCHAR(MAX) is STRING, VARBINARY(MAX) BYTES

    static DataType char_(int length);
    static DataType varchar(int length);
    static DataType string() { return varchar(kMaxLength); }
    static DataType boolean();
    static DataType binary(int length);
    static DataType varbinary(int length);
    static DataType bytes() { return varbinary(kMaxLength); }
    static DataType decimal(int precision = 10, int scale = 0);
    static DataType tinyint();
    static DataType smallint();
    static DataType int_();
    static DataType bigint();
    static DataType float_();
    static DataType double_();
    static DataType date();
    static DataType time(int precision = 0);
    static DataType timestamp(int precision = 6);
    static DataType timestamp_ltz(int precision = 6);
    static DataType timestamp_tz(int precision = 6);
    static DataType array(const DataType& element);
    static DataType map(const DataType& key, const DataType& value);
    static DataType row(std::vector<RowField> fields);

    /// Parses what to_string() prints (and common SQL spellings: INTEGER, TEXT-free).
    static std::optional<DataType> parse(std::string_view text, std::string* error = nullptr);

    TypeRoot root() const { return root_; }
    bool nullable() const { return nullable_; }
    DataType with_nullable(bool nullable) const;
    DataType not_null() const { return with_nullable(false); }

    /// CHAR/VARCHAR/BINARY/VARBINARY length; DECIMAL/TIME/TIMESTAMP* precision.
    int length() const { return length_; }
    int precision() const { return length_; }
    int scale() const { return scale_; }

    const DataType& element() const;              // ARRAY
    const DataType& key() const;                  // MAP
    const DataType& value() const;                // MAP
    const std::vector<RowField>& fields() const;  // ROW

    bool is_integer() const;    // TINYINT..BIGINT
    bool is_numeric() const;    // integers, FLOAT, DOUBLE, DECIMAL
    bool is_character() const;  // CHAR, VARCHAR
    bool is_binary() const;     // BINARY, VARBINARY
    bool is_timestamp() const;  // TIMESTAMP, TIMESTAMP_LTZ, TIMESTAMP_TZ
    bool is_nested() const;     // ARRAY, MAP, ROW
    bool is_string() const { return root_ == TypeRoot::Varchar && length_ == kMaxLength; }

    /// Flink CDC's asSummaryString(): `STRING`, `VARCHAR(255)`, `INT NOT NULL`, `DECIMAL(10, 2)`.
    std::string to_string() const;

    bool equals_ignoring_nullability(const DataType& other) const;
    friend bool operator==(const DataType& a, const DataType& b);
    friend bool operator!=(const DataType& a, const DataType& b) { return !(a == b); }

  private:
    DataType(TypeRoot root, int length, int scale) : root_(root), length_(length), scale_(scale) {}

    TypeRoot root_;
    bool nullable_ = true;
    int length_ = 0;
    int scale_ = 0;
    // Children of nested types; shared so that copying a type never deep-copies.
    std::shared_ptr<const std::vector<RowField>> children_;
};

/// Decimal digits of an integer type (TINYINT 3, SMALLINT 5, INT 10, BIGINT 19): its precision as
/// a DECIMAL. 0 for other types.
int integer_digits(TypeRoot root);

}  // namespace cdcd
