#pragma once
// A small streaming JSON writer appending to a std::string: compact output, no allocation
// beyond the target buffer, keys and strings escaped per RFC 8259.
#include <cstdint>
#include <string>
#include <string_view>

#include "pipeline/util/json_escape.h"

namespace cdcd::json {

class Writer {
  public:
    explicit Writer(std::string& out) : out_(out) {}

    Writer& begin_object() { return open('{'); }
    Writer& end_object() { return close('}'); }
    Writer& begin_array() { return open('['); }
    Writer& end_array() { return close(']'); }
    Writer& key(std::string_view k) {
        separate();
        append_quoted(out_, k);
        out_.push_back(':');
        need_comma_ = false;
        return *this;
    }
    /// A key already quoted and followed by its colon (`"name":`, e.g. from ColumnKeys).
    Writer& quoted_key(std::string_view quoted_with_colon) {
        separate();
        out_.append(quoted_with_colon);
        need_comma_ = false;
        return *this;
    }
    Writer& string(std::string_view v) {
        separate();
        append_quoted(out_, v);
        need_comma_ = true;
        return *this;
    }
    Writer& integer(std::int64_t v);
    Writer& number(
        double v);  // shortest round-trip; NaN/Inf are written as strings as Jackson does
    Writer& boolean(bool v);
    Writer& null();
    /// Already-encoded JSON (a number literal, a nested document).
    Writer& raw(std::string_view json);

    std::string& out() { return out_; }

  private:
    // Inline, as are key() and string(): a document is mostly these calls, a few bytes each.
    Writer& open(char c) {
        separate();
        out_.push_back(c);
        need_comma_ = false;
        return *this;
    }
    Writer& close(char c) {
        out_.push_back(c);
        need_comma_ = true;
        return *this;
    }
    void separate() {
        if (need_comma_) out_.push_back(',');
    }
    std::string& out_;
    bool need_comma_ = false;
};

}  // namespace cdcd::json
