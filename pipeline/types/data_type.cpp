#include "pipeline/types/data_type.h"

#include <cctype>
#include <charconv>
#include <stdexcept>

namespace cdcd {

namespace {

std::shared_ptr<const DataType> share(const DataType& t) {
    return std::make_shared<const DataType>(t);
}

}  // namespace

DataType DataType::char_(int length) {
    return DataType(TypeRoot::Char, length, 0);
}
DataType DataType::varchar(int length) {
    return DataType(TypeRoot::Varchar, length, 0);
}
DataType DataType::boolean() {
    return DataType(TypeRoot::Boolean, 0, 0);
}
DataType DataType::binary(int length) {
    return DataType(TypeRoot::Binary, length, 0);
}
DataType DataType::varbinary(int length) {
    return DataType(TypeRoot::Varbinary, length, 0);
}
DataType DataType::decimal(int precision, int scale) {
    return DataType(TypeRoot::Decimal, precision, scale);
}
DataType DataType::tinyint() {
    return DataType(TypeRoot::TinyInt, 0, 0);
}
DataType DataType::smallint() {
    return DataType(TypeRoot::SmallInt, 0, 0);
}
DataType DataType::int_() {
    return DataType(TypeRoot::Int, 0, 0);
}
DataType DataType::bigint() {
    return DataType(TypeRoot::BigInt, 0, 0);
}
DataType DataType::float_() {
    return DataType(TypeRoot::Float, 0, 0);
}
DataType DataType::double_() {
    return DataType(TypeRoot::Double, 0, 0);
}
DataType DataType::date() {
    return DataType(TypeRoot::Date, 0, 0);
}
DataType DataType::time(int precision) {
    return DataType(TypeRoot::Time, precision, 0);
}
DataType DataType::timestamp(int precision) {
    return DataType(TypeRoot::Timestamp, precision, 0);
}
DataType DataType::timestamp_ltz(int precision) {
    return DataType(TypeRoot::TimestampLtz, precision, 0);
}
DataType DataType::timestamp_tz(int precision) {
    return DataType(TypeRoot::TimestampTz, precision, 0);
}

DataType DataType::array(const DataType& element) {
    DataType t(TypeRoot::Array, 0, 0);
    t.children_ = std::make_shared<const std::vector<RowField>>(
        std::vector<RowField>{RowField{"element", share(element), ""}});
    return t;
}

DataType DataType::map(const DataType& key, const DataType& value) {
    DataType t(TypeRoot::Map, 0, 0);
    t.children_ = std::make_shared<const std::vector<RowField>>(std::vector<RowField>{
        RowField{"key", share(key), ""}, RowField{"value", share(value), ""}});
    return t;
}

DataType DataType::row(std::vector<RowField> fields) {
    DataType t(TypeRoot::Row, 0, 0);
    t.children_ = std::make_shared<const std::vector<RowField>>(std::move(fields));
    return t;
}

DataType DataType::with_nullable(bool nullable) const {
    DataType t = *this;
    t.nullable_ = nullable;
    return t;
}

const DataType& DataType::element() const {
    if (root_ != TypeRoot::Array) throw std::logic_error("element() of a non-ARRAY type");
    return *(*children_)[0].type;
}
const DataType& DataType::key() const {
    if (root_ != TypeRoot::Map) throw std::logic_error("key() of a non-MAP type");
    return *(*children_)[0].type;
}
const DataType& DataType::value() const {
    if (root_ != TypeRoot::Map) throw std::logic_error("value() of a non-MAP type");
    return *(*children_)[1].type;
}
const std::vector<RowField>& DataType::fields() const {
    static const std::vector<RowField> kNone;
    return root_ == TypeRoot::Row ? *children_ : kNone;
}

bool DataType::is_integer() const {
    return root_ == TypeRoot::TinyInt || root_ == TypeRoot::SmallInt || root_ == TypeRoot::Int ||
           root_ == TypeRoot::BigInt;
}
int integer_digits(TypeRoot root) {
    switch (root) {
        case TypeRoot::TinyInt:
            return 3;
        case TypeRoot::SmallInt:
            return 5;
        case TypeRoot::Int:
            return 10;
        case TypeRoot::BigInt:
            return 19;
        default:
            return 0;
    }
}

bool DataType::is_numeric() const {
    return is_integer() || root_ == TypeRoot::Float || root_ == TypeRoot::Double ||
           root_ == TypeRoot::Decimal;
}
bool DataType::is_character() const {
    return root_ == TypeRoot::Char || root_ == TypeRoot::Varchar;
}
bool DataType::is_binary() const {
    return root_ == TypeRoot::Binary || root_ == TypeRoot::Varbinary;
}
bool DataType::is_timestamp() const {
    return root_ == TypeRoot::Timestamp || root_ == TypeRoot::TimestampLtz ||
           root_ == TypeRoot::TimestampTz;
}
bool DataType::is_nested() const {
    return root_ == TypeRoot::Array || root_ == TypeRoot::Map || root_ == TypeRoot::Row;
}

std::string DataType::to_string() const {
    std::string s;
    switch (root_) {
        case TypeRoot::Char:
            s = "CHAR(" + std::to_string(length_) + ")";
            break;
        case TypeRoot::Varchar:
            s = length_ == kMaxLength ? "STRING" : "VARCHAR(" + std::to_string(length_) + ")";
            break;
        case TypeRoot::Boolean:
            s = "BOOLEAN";
            break;
        case TypeRoot::Binary:
            s = "BINARY(" + std::to_string(length_) + ")";
            break;
        case TypeRoot::Varbinary:
            s = length_ == kMaxLength ? "BYTES" : "VARBINARY(" + std::to_string(length_) + ")";
            break;
        case TypeRoot::Decimal:
            s = "DECIMAL(" + std::to_string(length_) + ", " + std::to_string(scale_) + ")";
            break;
        case TypeRoot::TinyInt:
            s = "TINYINT";
            break;
        case TypeRoot::SmallInt:
            s = "SMALLINT";
            break;
        case TypeRoot::Int:
            s = "INT";
            break;
        case TypeRoot::BigInt:
            s = "BIGINT";
            break;
        case TypeRoot::Float:
            s = "FLOAT";
            break;
        case TypeRoot::Double:
            s = "DOUBLE";
            break;
        case TypeRoot::Date:
            s = "DATE";
            break;
        case TypeRoot::Time:
            s = "TIME(" + std::to_string(length_) + ")";
            break;
        case TypeRoot::Timestamp:
            s = "TIMESTAMP(" + std::to_string(length_) + ")";
            break;
        case TypeRoot::TimestampLtz:
            s = "TIMESTAMP_LTZ(" + std::to_string(length_) + ")";
            break;
        case TypeRoot::TimestampTz:
            s = "TIMESTAMP(" + std::to_string(length_) + ") WITH TIME ZONE";
            break;
        case TypeRoot::Array:
            s = "ARRAY<" + element().to_string() + ">";
            break;
        case TypeRoot::Map:
            s = "MAP<" + key().to_string() + ", " + value().to_string() + ">";
            break;
        case TypeRoot::Row: {
            s = "ROW<";
            bool first = true;
            for (const auto& f : fields()) {
                if (!first) s += ", ";
                first = false;
                s += "`" + f.name + "` " + f.type->to_string();
                if (!f.description.empty()) s += " '" + f.description + "'";
            }
            s += ">";
            break;
        }
    }
    if (!nullable_) s += " NOT NULL";
    return s;
}

bool DataType::equals_ignoring_nullability(const DataType& other) const {
    return with_nullable(true) == other.with_nullable(true);
}

bool operator==(const DataType& a, const DataType& b) {
    if (a.root_ != b.root_ || a.nullable_ != b.nullable_ || a.length_ != b.length_ ||
        a.scale_ != b.scale_)
        return false;
    if (!a.is_nested()) return true;
    const auto& fa = *a.children_;
    const auto& fb = *b.children_;
    if (fa.size() != fb.size()) return false;
    for (size_t i = 0; i < fa.size(); ++i) {
        if (fa[i].name != fb[i].name || *fa[i].type != *fb[i].type) return false;
    }
    return true;
}

// ---- parsing ---------------------------------------------------------------------------------

namespace {

class TypeParser {
  public:
    explicit TypeParser(std::string_view text) : text_(text) {}

    std::optional<DataType> parse_all(std::string* error) {
        try {
            DataType t = parse_type();
            skip_ws();
            if (pos_ != text_.size()) fail("unexpected text after the type");
            return t;
        } catch (const std::invalid_argument& e) {
            if (error) *error = e.what();
            return std::nullopt;
        }
    }

  private:
    [[noreturn]] void fail(const std::string& why) {
        throw std::invalid_argument("cannot parse data type '" + std::string(text_) +
                                    "' at offset " + std::to_string(pos_) + ": " + why);
    }
    void skip_ws() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    std::string word() {
        skip_ws();
        size_t start = pos_;
        while (pos_ < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
            ++pos_;
        std::string w(text_.substr(start, pos_ - start));
        for (auto& c : w) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return w;
    }
    bool accept(char c) {
        skip_ws();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!accept(c)) fail(std::string("expected '") + c + "'");
    }
    bool accept_word(std::string_view w) {
        size_t saved = pos_;
        if (word() == w) return true;
        pos_ = saved;
        return false;
    }
    int number() {
        skip_ws();
        size_t start = pos_;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
        if (start == pos_) fail("expected a number");
        int value = 0;
        auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, value);
        if (ec != std::errc{}) fail("number out of range");
        return value;
    }
    std::optional<int> opt_param() {
        if (!accept('(')) return std::nullopt;
        int n = number();
        expect(')');
        return n;
    }

    DataType parse_type() {
        std::string w = word();
        if (w.empty()) fail("expected a type name");
        DataType t = DataType::boolean();
        if (w == "CHAR") {
            t = DataType::char_(opt_param().value_or(1));
        } else if (w == "VARCHAR") {
            t = DataType::varchar(opt_param().value_or(1));
        } else if (w == "STRING") {
            t = DataType::string();
        } else if (w == "BOOLEAN") {
            t = DataType::boolean();
        } else if (w == "BINARY") {
            t = DataType::binary(opt_param().value_or(1));
        } else if (w == "VARBINARY") {
            t = DataType::varbinary(opt_param().value_or(1));
        } else if (w == "BYTES") {
            t = DataType::bytes();
        } else if (w == "DECIMAL" || w == "NUMERIC" || w == "DEC") {
            int p = 10, s = 0;
            if (accept('(')) {
                p = number();
                if (accept(',')) s = number();
                expect(')');
            }
            if (p < 1 || p > 38 || s < 0 || s > p)
                fail("DECIMAL precision must be 1..38 and scale 0..precision");
            t = DataType::decimal(p, s);
        } else if (w == "TINYINT") {
            t = DataType::tinyint();
        } else if (w == "SMALLINT") {
            t = DataType::smallint();
        } else if (w == "INT" || w == "INTEGER") {
            t = DataType::int_();
        } else if (w == "BIGINT") {
            t = DataType::bigint();
        } else if (w == "FLOAT") {
            t = DataType::float_();
        } else if (w == "DOUBLE") {
            accept_word("PRECISION");
            t = DataType::double_();
        } else if (w == "DATE") {
            t = DataType::date();
        } else if (w == "TIME") {
            t = DataType::time(opt_param().value_or(0));
        } else if (w == "TIMESTAMP") {
            int p = opt_param().value_or(6);
            if (accept_word("WITH")) {
                if (accept_word("LOCAL")) {
                    if (!accept_word("TIME") || !accept_word("ZONE")) fail("expected TIME ZONE");
                    t = DataType::timestamp_ltz(p);
                } else {
                    if (!accept_word("TIME") || !accept_word("ZONE")) fail("expected TIME ZONE");
                    t = DataType::timestamp_tz(p);
                }
            } else {
                if (accept_word("WITHOUT")) {
                    if (!accept_word("TIME") || !accept_word("ZONE")) fail("expected TIME ZONE");
                }
                t = DataType::timestamp(p);
            }
        } else if (w == "TIMESTAMP_LTZ") {
            t = DataType::timestamp_ltz(opt_param().value_or(6));
        } else if (w == "TIMESTAMP_TZ") {
            t = DataType::timestamp_tz(opt_param().value_or(6));
        } else if (w == "ARRAY") {
            expect('<');
            DataType e = parse_type();
            expect('>');
            t = DataType::array(e);
        } else if (w == "MAP") {
            expect('<');
            DataType k = parse_type();
            expect(',');
            DataType v = parse_type();
            expect('>');
            t = DataType::map(k, v);
        } else if (w == "ROW") {
            expect('<');
            std::vector<RowField> fields;
            if (!accept('>')) {
                do {
                    skip_ws();
                    std::string name;
                    if (accept('`')) {
                        size_t end = text_.find('`', pos_);
                        if (end == std::string_view::npos) fail("unterminated `name`");
                        name = std::string(text_.substr(pos_, end - pos_));
                        pos_ = end + 1;
                    } else {
                        size_t start = pos_;
                        while (pos_ < text_.size() &&
                               (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                text_[pos_] == '_'))
                            ++pos_;
                        name = std::string(text_.substr(start, pos_ - start));
                    }
                    if (name.empty()) fail("expected a field name");
                    DataType ft = parse_type();
                    std::string description;
                    skip_ws();
                    if (accept('\'')) {
                        size_t end = text_.find('\'', pos_);
                        if (end == std::string_view::npos) fail("unterminated description");
                        description = std::string(text_.substr(pos_, end - pos_));
                        pos_ = end + 1;
                    }
                    fields.push_back(
                        RowField{name, std::make_shared<const DataType>(ft), description});
                } while (accept(','));
                expect('>');
            }
            t = DataType::row(std::move(fields));
        } else {
            fail("unknown type " + w);
        }
        if (accept_word("NOT")) {
            if (!accept_word("NULL")) fail("expected NULL after NOT");
            t = t.not_null();
        } else if (accept_word("NULL")) {
            t = t.with_nullable(true);
        }
        return t;
    }

    std::string_view text_;
    size_t pos_ = 0;
};

}  // namespace

std::optional<DataType> DataType::parse(std::string_view text, std::string* error) {
    return TypeParser(text).parse_all(error);
}

}  // namespace cdcd
