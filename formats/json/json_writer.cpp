#include "formats/json/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "pipeline/util/integer_text.h"
#include "pipeline/util/string_size.h"

namespace cdcd::json {

Writer& Writer::integer(std::int64_t v) {
    separate();
    // Formatted where it goes (append(first, last) took the generic replace path, and
    // std::to_chars divides to find the length): room for the longest, then cut to the text.
    char* const begin = append_uninitialized(out_, kMaxInt64Text);
    const char* const end = write_int64(begin, v);
    set_size_within_capacity(out_, static_cast<std::size_t>(end - out_.data()));
    need_comma_ = true;
    return *this;
}

Writer& Writer::number(double v) {
    if (std::isnan(v)) return string("NaN");
    if (std::isinf(v)) return string(v > 0 ? "Infinity" : "-Infinity");
    separate();
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, static_cast<std::size_t>(res.ptr - buf));
    need_comma_ = true;
    return *this;
}

Writer& Writer::boolean(bool v) {
    separate();
    out_ += v ? "true" : "false";
    need_comma_ = true;
    return *this;
}

Writer& Writer::null() {
    separate();
    out_ += "null";
    need_comma_ = true;
    return *this;
}

Writer& Writer::raw(std::string_view json) {
    separate();
    out_.append(json);
    need_comma_ = true;
    return *this;
}

}  // namespace cdcd::json
