#include "config/option_docs.h"

#include <cmath>
#include <cstdio>

namespace cdcd::config {

namespace {

// Table cells hold one line; a `|` would end the cell.
std::string cell(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '|') {
            out += "\\|";
        } else if (c == '\n') {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out;
}

std::string code(std::string_view text) {
    return "`" + cell(text) + "`";
}

std::string number(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e18) {
        return std::to_string(static_cast<long long>(v));
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string type_of(const OptionSpec& o) {
    std::string type(to_string(o.type));
    if (o.type == OptionType::Enum) {
        type += ":";
        for (std::size_t i = 0; i < o.enum_values.size(); ++i) {
            type += (i == 0 ? " " : ", ") + code(o.enum_values[i]);
        }
    }
    if (o.min || o.max) {
        type += " [" + (o.min ? number(*o.min) : std::string()) + ".." +
                (o.max ? number(*o.max) : std::string()) + "]";
    }
    return type;
}

}  // namespace

std::string markdown_table(const ConnectorOptionsSpec& spec) {
    std::string out =
        "| Option | Type | Default | Required | Description |\n"
        "|---|---|---|---|---|\n";
    for (const auto& o : spec.options) {
        std::string desc = o.secret ? "(secret) " + o.description : o.description;
        out += "| " + code(o.key) + " | " + type_of(o) + " | " +
               (o.default_value ? code(*o.default_value) : std::string("–")) + " | " +
               (o.required ? "yes" : "no") + " | " + cell(desc) + " |\n";
    }
    for (const auto& p : spec.prefixes) {
        out += "| " + code(p.prefix + "*") + " | STRING | – | no | " + cell(p.description) + " |\n";
    }
    return out;
}

}  // namespace cdcd::config
