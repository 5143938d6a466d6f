#include "config/option_spec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

#include "config/units.h"
#include "text/ascii.h"

namespace cdcd::config {

namespace {

// What option values are trimmed of.
constexpr std::string_view kBlank = " \t\r\n";

template <typename T>
std::optional<T> parse_integral(std::string_view text) {
    std::string_view s = ascii::trim(text, kBlank);
    if (!s.empty() && s[0] == '+') {
        s.remove_prefix(1);
        if (!s.empty() && s[0] == '-') {
            return std::nullopt;
        }
    }
    T value{};
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
        return std::nullopt;
    }
    return value;
}

std::string format_number(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e18) {
        return std::to_string(static_cast<long long>(v));
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string range_text(const OptionSpec& spec, std::string_view unit) {
    std::string u = unit.empty() ? "" : " " + std::string(unit);
    if (spec.min && spec.max) {
        return "between " + format_number(*spec.min) + u + " and " + format_number(*spec.max) + u;
    }
    if (spec.min) {
        return "at least " + format_number(*spec.min) + u;
    }
    return "at most " + format_number(*spec.max) + u;
}

std::optional<std::string> check_range(const OptionSpec& spec, double v, std::string_view shown,
                                       std::string_view unit) {
    if ((spec.min && v < *spec.min) || (spec.max && v > *spec.max)) {
        return "value " + std::string(shown) + " is out of range: must be " +
               range_text(spec, unit);
    }
    return std::nullopt;
}

}  // namespace

std::string_view to_string(OptionType type) {
    switch (type) {
        case OptionType::String:
            return "STRING";
        case OptionType::Int:
            return "INT";
        case OptionType::Long:
            return "LONG";
        case OptionType::Double:
            return "DOUBLE";
        case OptionType::Boolean:
            return "BOOLEAN";
        case OptionType::Duration:
            return "DURATION";
        case OptionType::MemorySize:
            return "MEMORY";
        case OptionType::Enum:
            return "ENUM";
        case OptionType::List:
            return "LIST";
    }
    return "?";
}

OptionBuilder OptionSpec::of(std::string key, OptionType type) {
    OptionSpec spec;
    spec.key = std::move(key);
    spec.type = type;
    return OptionBuilder(std::move(spec));
}
OptionBuilder OptionSpec::string(std::string key) {
    return of(std::move(key), OptionType::String);
}
OptionBuilder OptionSpec::integer(std::string key) {
    return of(std::move(key), OptionType::Int);
}
OptionBuilder OptionSpec::long_(std::string key) {
    return of(std::move(key), OptionType::Long);
}
OptionBuilder OptionSpec::double_(std::string key) {
    return of(std::move(key), OptionType::Double);
}
OptionBuilder OptionSpec::boolean(std::string key) {
    return of(std::move(key), OptionType::Boolean);
}
OptionBuilder OptionSpec::duration(std::string key) {
    return of(std::move(key), OptionType::Duration);
}
OptionBuilder OptionSpec::memory_size(std::string key) {
    return of(std::move(key), OptionType::MemorySize);
}
OptionBuilder OptionSpec::list(std::string key) {
    return of(std::move(key), OptionType::List);
}
OptionBuilder OptionSpec::enum_of(std::string key, std::vector<std::string> values) {
    OptionBuilder b = of(std::move(key), OptionType::Enum);
    OptionSpec spec = b.spec();
    spec.enum_values = std::move(values);
    return OptionBuilder(std::move(spec));
}

OptionBuilder& OptionBuilder::desc(std::string text) {
    spec_.description = std::move(text);
    return *this;
}
OptionBuilder& OptionBuilder::required() {
    spec_.required = true;
    return *this;
}
OptionBuilder& OptionBuilder::allow_empty() {
    spec_.empty_allowed = true;
    return *this;
}
OptionBuilder& OptionBuilder::default_(std::string value) {
    spec_.default_value = std::move(value);
    return *this;
}
OptionBuilder& OptionBuilder::secret() {
    spec_.secret = true;
    return *this;
}
OptionBuilder& OptionBuilder::templated() {
    spec_.templated = true;
    return *this;
}
OptionBuilder& OptionBuilder::range(double lo, double hi) {
    spec_.min = lo;
    spec_.max = hi;
    return *this;
}
OptionBuilder& OptionBuilder::at_least(double lo) {
    spec_.min = lo;
    return *this;
}
OptionBuilder& OptionBuilder::at_most(double hi) {
    spec_.max = hi;
    return *this;
}

const OptionSpec* ConnectorOptionsSpec::find(std::string_view key) const {
    for (const auto& o : options) {
        if (o.key == key) {
            return &o;
        }
    }
    return nullptr;
}

const PrefixSpec* ConnectorOptionsSpec::find_prefix(std::string_view key) const {
    const PrefixSpec* best = nullptr;
    for (const auto& p : prefixes) {
        if (key.size() > p.prefix.size() && key.starts_with(p.prefix) &&
            (!best || p.prefix.size() > best->prefix.size())) {
            best = &p;
        }
    }
    return best;
}

std::optional<int> parse_int(std::string_view text) {
    return parse_integral<int>(text);
}
std::optional<long long> parse_long(std::string_view text) {
    return parse_integral<long long>(text);
}

std::optional<double> parse_double(std::string_view text) {
    std::string_view s = ascii::trim(text, kBlank);
    if (!s.empty() && s[0] == '+') {
        s.remove_prefix(1);
    }
    double value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(value)) {
        return std::nullopt;
    }
    return value;
}

std::optional<bool> parse_bool(std::string_view text) {
    std::string_view s = ascii::trim(text, kBlank);
    if (ascii::iequals(s, "true")) {
        return true;
    }
    if (ascii::iequals(s, "false")) {
        return false;
    }
    return std::nullopt;
}

std::vector<std::string> parse_list(std::string_view text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t comma = text.find(',', start);
        if (comma == std::string_view::npos) {
            comma = text.size();
        }
        std::string_view item = ascii::trim(text.substr(start, comma - start), kBlank);
        if (!item.empty()) {
            out.emplace_back(item);
        }
        start = comma + 1;
    }
    return out;
}

std::optional<std::string> check_value(const OptionSpec& spec, std::string_view raw,
                                       std::string* canonical) {
    std::string value(raw);
    const std::string shown = "`" + std::string(ascii::trim(raw, kBlank)) + "`";
    switch (spec.type) {
        case OptionType::String:
        case OptionType::List:
            // An empty host, path or key is no value: refused here, naming the key, rather than
            // failing later as a connection or a file with no name.
            if (spec.required && !spec.empty_allowed &&
                (spec.type == OptionType::List ? parse_list(raw).empty()
                                               : ascii::trim(raw, kBlank).empty()))
                return std::string("the value is empty, and the option is required");
            break;
        case OptionType::Int: {
            auto v = parse_int(raw);
            if (!v) {
                return "expected an integer (32-bit), got " + shown;
            }
            if (auto e = check_range(spec, *v, shown, "")) {
                return e;
            }
            value = std::to_string(*v);
            break;
        }
        case OptionType::Long: {
            auto v = parse_long(raw);
            if (!v) {
                return "expected an integer (64-bit), got " + shown;
            }
            if (auto e = check_range(spec, static_cast<double>(*v), shown, "")) {
                return e;
            }
            value = std::to_string(*v);
            break;
        }
        case OptionType::Double: {
            auto v = parse_double(raw);
            if (!v) {
                return "expected a number, got " + shown;
            }
            if (auto e = check_range(spec, *v, shown, "")) {
                return e;
            }
            value = std::string(ascii::trim(raw, kBlank));
            break;
        }
        case OptionType::Boolean: {
            auto v = parse_bool(raw);
            if (!v) {
                return "expected a boolean (true or false), got " + shown;
            }
            value = *v ? "true" : "false";
            break;
        }
        case OptionType::Duration: {
            std::string why;
            auto v = parse_duration(raw, &why);
            if (!v) {
                return "invalid duration " + shown + ": " + why;
            }
            if (auto e = check_range(spec, static_cast<double>(v->count()), shown, "ms")) {
                return e;
            }
            value = std::string(ascii::trim(raw, kBlank));
            break;
        }
        case OptionType::MemorySize: {
            std::string why;
            auto v = parse_memory_size(raw, &why);
            if (!v) {
                return "invalid memory size " + shown + ": " + why;
            }
            if (auto e = check_range(spec, static_cast<double>(*v), shown, "bytes")) {
                return e;
            }
            value = std::string(ascii::trim(raw, kBlank));
            break;
        }
        case OptionType::Enum: {
            std::string_view s = ascii::trim(raw, kBlank);
            auto it = std::find_if(spec.enum_values.begin(), spec.enum_values.end(),
                                   [&](const std::string& e) { return ascii::iequals(e, s); });
            if (it == spec.enum_values.end()) {
                std::string allowed;
                for (const auto& e : spec.enum_values) {
                    allowed += allowed.empty() ? "" : ", ";
                    allowed += e;
                }
                return "value " + shown + " is not allowed; allowed values: " + allowed;
            }
            value = *it;
            break;
        }
    }
    if (canonical) {
        *canonical = std::move(value);
    }
    return std::nullopt;
}

std::vector<std::string> check_spec(const ConnectorOptionsSpec& spec) {
    std::vector<std::string> problems;
    std::set<std::string> seen;
    for (const auto& o : spec.options) {
        if (o.key.empty()) {
            problems.push_back("an option has an empty key");
        }
        if (!seen.insert(o.key).second) {
            problems.push_back("option `" + o.key + "` is declared twice");
        }
        if (o.type == OptionType::Enum && o.enum_values.empty()) {
            problems.push_back("enum option `" + o.key + "` declares no values");
        }
        if (o.required && o.default_value) {
            problems.push_back("option `" + o.key + "` is required but has a default");
        }
        if (o.default_value) {
            if (auto e = check_value(o, *o.default_value)) {
                problems.push_back("default of option `" + o.key + "`: " + *e);
            }
        }
        for (const auto& p : spec.prefixes) {
            if (o.key.starts_with(p.prefix)) {
                problems.push_back("option `" + o.key + "` is shadowed by prefix `" + p.prefix +
                                   "`");
            }
        }
    }
    return problems;
}

std::string describe(const ConnectorOptionsSpec& spec, std::string_view connector_name) {
    struct Row {
        std::string key, type, def, req, desc;
    };
    std::vector<Row> rows;
    rows.push_back({"KEY", "TYPE", "DEFAULT", "REQUIRED", "DESCRIPTION"});
    for (const auto& o : spec.options) {
        std::string type(to_string(o.type));
        if (o.type == OptionType::Enum) {
            type.clear();
            for (const auto& e : o.enum_values) {
                type += type.empty() ? "" : "|";
                type += e;
            }
        }
        if (o.min || o.max) {
            type += " [" + (o.min ? format_number(*o.min) : std::string()) + ".." +
                    (o.max ? format_number(*o.max) : std::string()) + "]";
        }
        std::string desc = o.description;
        if (o.secret) {
            desc.insert(0, "(secret) ");
        }
        rows.push_back({o.key, type, o.default_value ? *o.default_value : "-",
                        o.required ? "yes" : "no", desc});
    }
    for (const auto& p : spec.prefixes) {
        rows.push_back({p.prefix + "*", "STRING", "-", "no", p.description});
    }
    std::size_t w[4] = {0, 0, 0, 0};
    for (const auto& r : rows) {
        w[0] = std::max(w[0], r.key.size());
        w[1] = std::max(w[1], r.type.size());
        w[2] = std::max(w[2], r.def.size());
        w[3] = std::max(w[3], r.req.size());
    }
    auto pad = [](const std::string& s, std::size_t width) {
        return s + std::string(width - s.size() + 2, ' ');
    };
    std::string out = "Options of `" + std::string(connector_name) + "`:\n";
    for (const auto& r : rows) {
        std::string line =
            pad(r.key, w[0]) + pad(r.type, w[1]) + pad(r.def, w[2]) + pad(r.req, w[3]) + r.desc;
        while (!line.empty() && line.back() == ' ') {
            line.pop_back();
        }
        out += line + '\n';
    }
    return out;
}

}  // namespace cdcd::config
