// Typed option declarations: a connector declares each of its options once, as data, and the
// validator (option_validator.h) checks a YAML block against the declaration.
//
//   ConnectorOptionsSpec spec{
//       {OptionSpec::string("topic").required().desc("Kafka topic to read"),
//        OptionSpec::enum_of("scan.startup.mode", {"earliest-offset", "latest-offset"})
//            .default_("latest-offset"),
//        OptionSpec::integer("fetch.size").range(1, 10000).default_("500"),
//        OptionSpec::string("password").secret()},
//       {PrefixSpec{"properties.", "passed to librdkafka as-is"}}};
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

namespace cdcd::config {

enum class OptionType { String, Int, Long, Double, Boolean, Duration, MemorySize, Enum, List };

// "STRING", "INT", "LONG", "DOUBLE", "BOOLEAN", "DURATION", "MEMORY", "ENUM", "LIST"
std::string_view to_string(OptionType type);

class OptionBuilder;

struct OptionSpec {
    std::string key;
    OptionType type = OptionType::String;
    std::optional<std::string> default_value;
    bool required = false;
    // A required STRING or LIST option may be set to an empty value (a password where the server
    // asks for none); otherwise an empty value is refused like a missing one.
    bool empty_allowed = false;
    std::string description;
    bool secret = false;
    // The value is a template with ${...} placeholders of the connector's own (e.g. ${table});
    // the YAML loader leaves them for the connector instead of reading the environment.
    bool templated = false;
    std::vector<std::string> enum_values;  // Enum: allowed values, canonical spelling
    // Enum declared with C++ values (enum_of(key, {{"a", E::A}, ...})): the value of each entry
    // of enum_values, as its underlying integer, and E; an option binds only to a member of E.
    std::vector<long long> enum_codes;
    std::optional<std::type_index> enum_type;
    std::optional<double> min,
        max;  // inclusive; Int/Long/Double, Duration (ms), MemorySize (bytes)

    // Builders: OptionSpec::integer("retries").range(0, 10).default_("3").desc("...")
    static OptionBuilder of(std::string key, OptionType type);
    static OptionBuilder string(std::string key);
    static OptionBuilder integer(std::string key);
    static OptionBuilder long_(std::string key);
    static OptionBuilder double_(std::string key);
    static OptionBuilder boolean(std::string key);
    static OptionBuilder duration(std::string key);
    static OptionBuilder memory_size(std::string key);
    static OptionBuilder list(std::string key);
    static OptionBuilder enum_of(std::string key, std::vector<std::string> values);
    // An enum whose values map to a C++ enum: enum_of<Mode>("mode", {{"fast", Mode::Fast}, ...}).
    template <typename E>
    static OptionBuilder enum_of(std::string key,
                                 std::initializer_list<std::pair<const char*, E>> values);
};

template <typename Settings>
class OptionBinding;
template <typename Settings>
class PrefixBinding;

// Fluent construction of an OptionSpec; converts implicitly to OptionSpec.
class OptionBuilder {
  public:
    explicit OptionBuilder(OptionSpec spec) : spec_(std::move(spec)) {}

    OptionBuilder& desc(std::string text);
    OptionBuilder& required();
    OptionBuilder& allow_empty();  // see OptionSpec::empty_allowed
    OptionBuilder& default_(std::string value);
    OptionBuilder& secret();
    OptionBuilder& templated();
    OptionBuilder& range(double lo, double hi);
    OptionBuilder& at_least(double lo);
    OptionBuilder& at_most(double hi);

    const OptionSpec& spec() const { return spec_; }

    // Binds the option to a member of Settings, reached through nested members if needed:
    // .to(&Settings::retries) or .to(&Settings::decoder, &DecoderSettings::limit). Defined in
    // config/option_binding.h.
    template <typename Settings, typename Member, typename... Nested>
    OptionBinding<Settings> to(Member Settings::*member, Nested... nested) const;
    operator OptionSpec() const { return spec_; }  // NOLINT(google-explicit-constructor)

  private:
    OptionSpec spec_;
};

// Keys starting with prefix (e.g. "properties.") are accepted as-is and passed through.
struct PrefixSpec {
    std::string prefix;
    std::string description;

    // Binds the keys with this prefix (prefix stripped) to a std::map<std::string, std::string>
    // member of Settings. Defined in config/option_binding.h.
    template <typename Settings, typename Member, typename... Nested>
    PrefixBinding<Settings> to(Member Settings::*member, Nested... nested) const;
};

struct ConnectorOptionsSpec {
    std::vector<OptionSpec> options;
    std::vector<PrefixSpec> prefixes;

    const OptionSpec* find(std::string_view key) const;
    const PrefixSpec* find_prefix(std::string_view key) const;  // longest matching prefix
};

// Check the declaration itself: unique keys, defaults parse as their type and lie in range,
// enum defaults are allowed values, Enum options have values. Returns the problems found.
std::vector<std::string> check_spec(const ConnectorOptionsSpec& spec);

// Aligned text table (key, type, default, required, description; secrets marked) for
// `cdcd describe`.
std::string describe(const ConnectorOptionsSpec& spec, std::string_view connector_name);

template <typename E>
OptionBuilder OptionSpec::enum_of(std::string key,
                                  std::initializer_list<std::pair<const char*, E>> values) {
    static_assert(std::is_enum_v<E> || std::is_same_v<E, bool>,
                  "enum_of with values maps option values to a C++ enum (or a bool)");
    OptionSpec spec;
    spec.key = std::move(key);
    spec.type = OptionType::Enum;
    for (const auto& [name, value] : values) {
        spec.enum_values.emplace_back(name);
        spec.enum_codes.push_back(static_cast<long long>(value));
    }
    spec.enum_type = std::type_index(typeid(E));
    return OptionBuilder(std::move(spec));
}

}  // namespace cdcd::config

namespace cdcd::config {

// Checks one raw value against a declaration (type, enum, range; a required STRING or LIST not
// empty unless the declaration allows it). Returns an error message
// (without the key or position), or nullopt when valid; then *canonical (if given) receives the
// value to store: the declared spelling for enums, the trimmed text for numbers, the raw text
// otherwise.
std::optional<std::string> check_value(const OptionSpec& spec, std::string_view raw,
                                       std::string* canonical = nullptr);

// Strict parsers shared by the validator (surrounding whitespace allowed, nothing else).
std::optional<int> parse_int(std::string_view text);
std::optional<long long> parse_long(std::string_view text);
std::optional<double> parse_double(std::string_view text);
std::optional<bool> parse_bool(std::string_view text);       // true/false, case-insensitive
std::vector<std::string> parse_list(std::string_view text);  // comma-separated, trimmed, no empties

}  // namespace cdcd::config
