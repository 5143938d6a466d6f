#include "metrics/exposition.h"

#include <charconv>
#include <cmath>

namespace cdcd::metrics {

namespace {
bool name_char(char c, bool first, bool colon) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return true;
    if (colon && c == ':') return true;
    return !first && c >= '0' && c <= '9';
}
}  // namespace

bool valid_metric_name(std::string_view name) {
    if (name.empty()) return false;
    for (std::size_t i = 0; i < name.size(); ++i)
        if (!name_char(name[i], i == 0, true)) return false;
    return true;
}

bool valid_label_name(std::string_view name) {
    if (name.empty() || name.starts_with("__")) return false;
    for (std::size_t i = 0; i < name.size(); ++i)
        if (!name_char(name[i], i == 0, false)) return false;
    return true;
}

std::string format_labels(const Labels& labels) {
    if (labels.empty()) return {};
    std::string out = "{";
    for (const auto& [k, v] : labels) {
        if (out.size() > 1) out += ',';
        out += k;
        out += "=\"";
        for (char c : v) {
            if (c == '\\') {
                out += "\\\\";
            } else if (c == '"') {
                out += "\\\"";
            } else if (c == '\n') {
                out += "\\n";
            } else {
                out += c;
            }
        }
        out += '"';
    }
    out += '}';
    return out;
}

void append_value(std::string& out, double value) {
    if (std::isnan(value)) {
        out += "NaN";
        return;
    }
    if (std::isinf(value)) {
        out += value > 0 ? "+Inf" : "-Inf";
        return;
    }
    char buf[64];
    std::to_chars_result r;
    if (value == std::floor(value) && std::fabs(value) < 1e15) {
        r = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(value));
    } else {
        r = std::to_chars(buf, buf + sizeof buf, value);
    }
    out.append(buf, r.ptr);
}

std::string escape_help(std::string_view help) {
    std::string out;
    for (char c : help) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace cdcd::metrics
