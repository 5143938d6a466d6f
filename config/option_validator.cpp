#include "config/option_validator.h"

#include <stdexcept>

#include "config/secrets.h"
#include "config/suggest.h"
#include "config/units.h"

namespace cdcd::config {

namespace {

std::string quoted(std::string_view key) {
    return "`" + std::string(key) + "`";
}

}  // namespace

ValidatedOptions validate_options(const ConnectorOptionsSpec& spec, const RawOptions& raw,
                                  const SourceLocation& block, std::string_view block_name,
                                  Diagnostics& diags) {
    ValidatedOptions out;
    out.spec_ = spec;
    out.block_ = block;

    std::vector<std::string> candidates;
    for (const auto& o : spec.options) {
        candidates.push_back(o.key);
    }
    for (const auto& p : spec.prefixes) {
        candidates.push_back(p.prefix + "*");
    }

    for (const auto& [key, rv] : raw) {
        const OptionSpec* o = spec.find(key);
        if (o == nullptr) {
            if (spec.find_prefix(key) != nullptr) {
                if (names_a_credential(key)) {
                    SecretRegistry::instance().add(rv.value);
                }
                out.values_.emplace(key, rv);
                continue;
            }
            diags.error(rv.where, "unsupported option " + quoted(key) + " in " +
                                      std::string(block_name) + did_you_mean(key, candidates));
            continue;
        }
        if (o->secret) {
            SecretRegistry::instance().add(rv.value);
        }
        std::string canonical;
        if (auto e = check_value(*o, rv.value, &canonical)) {
            diags.error(rv.where, "option " + quoted(key) + " (" + std::string(to_string(o->type)) +
                                      ") in " + std::string(block_name) + ": " + *e);
            out.rejected_.push_back(key);
            continue;
        }
        out.values_.emplace(key, RawValue{std::move(canonical), rv.where});
    }
    for (const auto& o : spec.options) {
        if (o.required && raw.find(o.key) == raw.end()) {
            std::string msg =
                "missing required option " + quoted(o.key) + " in " + std::string(block_name);
            if (!o.description.empty()) {
                msg += " (" + o.description + ")";
            }
            diags.error(block, msg);
        }
    }
    return out;
}

bool ValidatedOptions::has(std::string_view key) const {
    if (values_.find(key) != values_.end()) {
        return true;
    }
    const OptionSpec* o = spec_.find(key);
    return o != nullptr && o->default_value.has_value();
}

bool ValidatedOptions::is_set(std::string_view key) const {
    return values_.find(key) != values_.end();
}

const OptionSpec& ValidatedOptions::declared(std::string_view key, OptionType expected) const {
    const OptionSpec* o = spec_.find(key);
    if (o == nullptr) {
        throw std::logic_error("option `" + std::string(key) + "` is not declared");
    }
    if (o->type != expected) {
        throw std::logic_error("option `" + std::string(key) + "` is declared as " +
                               std::string(to_string(o->type)) + ", read as " +
                               std::string(to_string(expected)));
    }
    return *o;
}

std::string ValidatedOptions::value_of(const OptionSpec& spec) const {
    if (auto it = values_.find(spec.key); it != values_.end()) {
        return it->second.value;
    }
    if (spec.default_value) {
        std::string canonical;
        if (auto e = check_value(spec, *spec.default_value, &canonical)) {
            throw std::logic_error("invalid default of option `" + spec.key + "`: " + *e);
        }
        return canonical;
    }
    throw std::logic_error("option `" + spec.key + "` is not set and has no default");
}

std::string ValidatedOptions::get_string(std::string_view key) const {
    return value_of(declared(key, OptionType::String));
}

int ValidatedOptions::get_int(std::string_view key) const {
    return *parse_int(value_of(declared(key, OptionType::Int)));
}

long long ValidatedOptions::get_long(std::string_view key) const {
    return *parse_long(value_of(declared(key, OptionType::Long)));
}

double ValidatedOptions::get_double(std::string_view key) const {
    return *parse_double(value_of(declared(key, OptionType::Double)));
}

bool ValidatedOptions::get_bool(std::string_view key) const {
    return *parse_bool(value_of(declared(key, OptionType::Boolean)));
}

std::chrono::milliseconds ValidatedOptions::get_duration(std::string_view key) const {
    return *parse_duration(value_of(declared(key, OptionType::Duration)));
}

std::uint64_t ValidatedOptions::get_memory_size(std::string_view key) const {
    return *parse_memory_size(value_of(declared(key, OptionType::MemorySize)));
}

std::string ValidatedOptions::get_enum(std::string_view key) const {
    return value_of(declared(key, OptionType::Enum));
}

std::vector<std::string> ValidatedOptions::get_list(std::string_view key) const {
    return parse_list(value_of(declared(key, OptionType::List)));
}

std::optional<std::string> ValidatedOptions::raw(std::string_view key) const {
    if (auto it = values_.find(key); it != values_.end()) {
        return it->second.value;
    }
    const OptionSpec* o = spec_.find(key);
    if (o != nullptr && o->default_value) {
        return value_of(*o);
    }
    return std::nullopt;
}

SourceLocation ValidatedOptions::location(std::string_view key) const {
    if (auto it = values_.find(key); it != values_.end()) {
        return it->second.where;
    }
    return block_;
}

std::map<std::string, std::string> ValidatedOptions::with_prefix(std::string_view prefix) const {
    std::map<std::string, std::string> out;
    for (const auto& [key, rv] : values_) {
        if (key.size() > prefix.size() && std::string_view(key).starts_with(prefix)) {
            out.emplace(key.substr(prefix.size()), rv.value);
        }
    }
    return out;
}

std::string ValidatedOptions::dump() const {
    std::string out;
    for (const auto& o : spec_.options) {
        auto it = values_.find(o.key);
        if (it == values_.end() && !o.default_value) {
            continue;
        }
        std::string value = o.secret ? std::string(kRedacted) : value_of(o);
        out += o.key + " = " + value + (it == values_.end() ? " (default)" : "") + '\n';
    }
    for (const auto& [key, rv] : values_) {
        if (spec_.find(key) == nullptr) {
            out += key + " = " + rv.value + '\n';
        }
    }
    return SecretRegistry::instance().redact(out);
}

}  // namespace cdcd::config
