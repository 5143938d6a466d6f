#include "cmd/top/prometheus_text.h"

#include <cmath>
#include <cstdlib>

namespace cdcd::top {

std::string_view Sample::label(std::string_view key) const {
    for (const auto& [k, v] : labels)
        if (k == key) return v;
    return {};
}

std::string Sample::series() const {
    std::string key = name;
    for (const auto& [k, v] : labels) {
        key += '\x1f';
        key += k;
        key += '=';
        key += v;
    }
    return key;
}

namespace {

bool name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool name_char(char c) {
    return name_start(c) || (c >= '0' && c <= '9');
}

class LineReader {
  public:
    LineReader(std::string_view line, std::size_t number) : line_(line), number_(number) {}

    [[noreturn]] void fail(const std::string& what) const {
        throw ExpositionError("line " + std::to_string(number_) + ", column " +
                              std::to_string(pos_ + 1) + ": " + what);
    }
    bool done() const { return pos_ >= line_.size(); }
    char peek() const { return done() ? '\0' : line_[pos_]; }
    void skip_blanks() {
        while (!done() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
    }
    std::string name(bool label) {
        if (done() || !name_start(line_[pos_]) || (label && line_[pos_] == ':'))
            fail(label ? "expected a label name" : "expected a metric name");
        std::size_t start = pos_;
        while (!done() && name_char(line_[pos_]) && !(label && line_[pos_] == ':')) ++pos_;
        return std::string(line_.substr(start, pos_ - start));
    }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++pos_;
    }
    std::string quoted() {
        expect('"');
        std::string out;
        while (true) {
            if (done()) fail("unterminated label value");
            char c = line_[pos_++];
            if (c == '"') return out;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (done()) fail("unterminated escape in label value");
            char e = line_[pos_++];
            if (e == 'n') {
                out += '\n';
            } else if (e == '\\' || e == '"') {
                out += e;
            } else {
                --pos_;
                fail(std::string("unknown escape \\") + e + " in label value");
            }
        }
    }
    std::string_view token() {
        std::size_t start = pos_;
        while (!done() && line_[pos_] != ' ' && line_[pos_] != '\t') ++pos_;
        return line_.substr(start, pos_ - start);
    }
    double number(std::string_view text, const char* what) {
        if (text == "+Inf" || text == "Inf") return HUGE_VAL;
        if (text == "-Inf") return -HUGE_VAL;
        if (text == "NaN") return std::nan("");
        std::string copy(text);  // strtod needs a terminator
        char* end = nullptr;
        double v = std::strtod(copy.c_str(), &end);
        // strtod also takes hex, "infinity" and "nan(...)": not the format's spelling.
        bool plain = !copy.empty() && copy.find_first_of("xXnN") == std::string::npos;
        if (!plain || end != copy.c_str() + copy.size()) {
            pos_ -= text.size();
            fail(std::string("expected ") + what + ", not '" + copy + "'");
        }
        return v;
    }

  private:
    std::string_view line_;
    std::size_t number_;
    std::size_t pos_ = 0;
};

}  // namespace

std::vector<Sample> parse_prometheus_text(std::string_view text) {
    std::vector<Sample> samples;
    std::size_t number = 0;
    while (!text.empty()) {
        ++number;
        std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        LineReader r(line, number);
        r.skip_blanks();
        if (r.done() || r.peek() == '#') continue;
        Sample s;
        s.name = r.name(false);
        r.skip_blanks();
        if (r.peek() == '{') {
            r.expect('{');
            r.skip_blanks();
            while (r.peek() != '}') {
                std::string key = r.name(true);
                r.skip_blanks();
                r.expect('=');
                r.skip_blanks();
                s.labels.emplace_back(std::move(key), r.quoted());
                r.skip_blanks();
                if (r.peek() == ',') {
                    r.expect(',');
                    r.skip_blanks();
                } else if (r.peek() != '}') {
                    r.fail("expected ',' or '}'");
                }
            }
            r.expect('}');
        }
        r.skip_blanks();
        if (r.done()) r.fail("expected a value");
        s.value = r.number(r.token(), "a value");
        r.skip_blanks();
        if (!r.done()) {
            r.number(r.token(), "a timestamp");
            r.skip_blanks();
            if (!r.done()) r.fail("unexpected text after the timestamp");
        }
        samples.push_back(std::move(s));
    }
    return samples;
}

}  // namespace cdcd::top
