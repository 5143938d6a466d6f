// Binds each declared option to a member of a connector's typed settings, so an option's key is
// written once, in its declaration, and the settings are filled in one place (as fluent-bit's
// config maps bind keys to struct offsets).
//
//   struct Settings { std::string topic; int retries = 0; std::optional<std::string> group; };
//   const OptionBindings<Settings>& bindings() {
//       static const OptionBindings<Settings> b{{
//           OptionSpec::string("topic").required().desc("Topic to read").to(&Settings::topic),
//           OptionSpec::integer("retries").default_("3").at_least(0).to(&Settings::retries),
//           OptionSpec::string("group").to(&Settings::group),   // no default: std::optional
//       }};
//       return b;
//   }
//   factory.options = bindings().spec();
//   BoundOptions<Settings> o = bindings().read(validated);     // o->retries == 3
//   if (o->group && o->group->empty()) diags.error(o.where(o->group), o.key(o->group) + " ...");
//
// A member is filled when its option is set in the YAML or has a default; otherwise it keeps its
// initial value (a missing required option has already been reported by the validator). The
// binding is checked when it is made (std::logic_error): the member's type must hold the option's
// type (integers their whole range), an option without a default that is not required needs a
// std::optional member (a list may stay empty instead), and an enum option binds to a C++ enum (or
// a bool) only if declared with its values: enum_of<Mode>("mode", {{"fast", Mode::Fast}, ...}).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeindex>
#include <utility>
#include <vector>

#include "config/option_spec.h"
#include "config/option_validator.h"
#include "config/units.h"

namespace cdcd::config {

namespace binding_detail {

template <typename T>
struct Optional {
    static constexpr bool value = false;
    using type = T;
};
template <typename T>
struct Optional<std::optional<T>> {
    static constexpr bool value = true;
    using type = T;
};

template <typename T>
inline constexpr bool kUnsupported = false;

// Whether an option of this type can fill a member of type T.
template <typename T>
bool holds(OptionType type) {
    if constexpr (std::is_same_v<T, bool>) {
        return type == OptionType::Boolean || type == OptionType::Enum;
    } else if constexpr (std::is_same_v<T, std::string>) {
        return type == OptionType::String || type == OptionType::Enum;
    } else if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
        return type == OptionType::Duration;
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
        return type == OptionType::List;
    } else if constexpr (std::is_enum_v<T>) {
        return type == OptionType::Enum;
    } else if constexpr (std::is_integral_v<T>) {
        return type == OptionType::Int || type == OptionType::Long ||
               type == OptionType::MemorySize;
    } else if constexpr (std::is_floating_point_v<T>) {
        return type == OptionType::Double;
    } else {
        static_assert(kUnsupported<T>, "no option type fills a member of this type");
        return false;
    }
}

// Whether every value the option accepts fits an integer member of type T.
template <typename T>
bool fits(const OptionSpec& spec) {
    long double lo = 0;
    long double hi = 0;
    switch (spec.type) {
        case OptionType::Int:
            lo = std::numeric_limits<int>::min();
            hi = std::numeric_limits<int>::max();
            break;
        case OptionType::Long:
            lo = static_cast<long double>(std::numeric_limits<long long>::min());
            hi = static_cast<long double>(std::numeric_limits<long long>::max());
            break;
        default:  // MemorySize: bytes
            hi = static_cast<long double>(std::numeric_limits<std::uint64_t>::max());
            break;
    }
    if (spec.min) lo = std::max(lo, static_cast<long double>(*spec.min));
    if (spec.max) hi = std::min(hi, static_cast<long double>(*spec.max));
    return lo >= static_cast<long double>(std::numeric_limits<T>::min()) &&
           hi <= static_cast<long double>(std::numeric_limits<T>::max());
}

// The member value of a validated (canonical) option value.
template <typename T>
T parse(const OptionSpec& spec, const std::string& canonical) {
    if constexpr (std::is_enum_v<T> || std::is_same_v<T, bool>) {
        if (spec.type == OptionType::Enum) {
            for (std::size_t i = 0; i < spec.enum_values.size(); ++i) {
                if (spec.enum_values[i] == canonical) return static_cast<T>(spec.enum_codes.at(i));
            }
            throw std::logic_error("option `" + spec.key + "`: `" + canonical +
                                   "` is not declared");
        }
    }
    if constexpr (std::is_same_v<T, bool>) {
        return parse_bool(canonical).value();
    } else if constexpr (std::is_same_v<T, std::string>) {
        return canonical;
    } else if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
        return parse_duration(canonical).value();
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
        return parse_list(canonical);
    } else if constexpr (std::is_enum_v<T>) {
        throw std::logic_error("option `" + spec.key + "` is not an enum");
    } else if constexpr (std::is_integral_v<T>) {
        if (spec.type == OptionType::MemorySize) {
            return static_cast<T>(parse_memory_size(canonical).value());
        }
        return static_cast<T>(parse_long(canonical).value());
    } else {
        return static_cast<T>(parse_double(canonical).value());
    }
}

// The byte offset of a member inside a Settings object, and its type: what identifies a bound
// member when a hook asks for its key or position.
struct MemberId {
    std::ptrdiff_t offset = -1;
    std::type_index type = std::type_index(typeid(void));

    bool operator==(const MemberId&) const = default;
};

template <typename Settings, typename Leaf>
MemberId member_id(const Settings& object, const Leaf& member) {
    const auto* base = reinterpret_cast<const char*>(std::addressof(object));
    const auto* at = reinterpret_cast<const char*>(std::addressof(member));
    if (at < base || at >= base + sizeof(Settings)) {
        throw std::logic_error("the member asked for is not part of these options");
    }
    return {at - base, std::type_index(typeid(Leaf))};
}

// Follows a chain of member pointers: member_of(s, &S::a, &A::b) is s.a.b.
template <typename Settings, typename... Members>
auto& member_of(Settings& object, Members... members) {
    return (object.*....*members);
}

}  // namespace binding_detail

// One declared option and the member it fills (none for an option cdcd accepts and ignores).
template <typename Settings>
class OptionBinding {
  public:
    // Declared only: accepted, validated and described, but filling no member.
    OptionBinding(const OptionBuilder& option)  // NOLINT(google-explicit-constructor)
        : spec_(option.spec()) {}
    OptionBinding(OptionSpec spec, binding_detail::MemberId member,
                  std::function<void(Settings&, const std::string&)> assign)
        : spec_(std::move(spec)), member_(member), assign_(std::move(assign)) {}

    const OptionSpec& spec() const { return spec_; }
    const binding_detail::MemberId& member() const { return member_; }
    // Stores a validated value of the option in its member (nothing when declared only).
    void assign(Settings& settings, const std::string& canonical) const {
        if (assign_) assign_(settings, canonical);
    }

  private:
    OptionSpec spec_;
    binding_detail::MemberId member_;
    std::function<void(Settings&, const std::string&)> assign_;
};

// The keys with a prefix, prefix stripped, and the map member they fill.
template <typename Settings>
class PrefixBinding {
  public:
    PrefixBinding(PrefixSpec spec, binding_detail::MemberId member,
                  std::function<void(Settings&, std::map<std::string, std::string>)> assign)
        : spec_(std::move(spec)), member_(member), assign_(std::move(assign)) {}

    const PrefixSpec& spec() const { return spec_; }
    const binding_detail::MemberId& member() const { return member_; }
    void assign(Settings& settings, std::map<std::string, std::string> values) const {
        assign_(settings, std::move(values));
    }

  private:
    PrefixSpec spec_;
    binding_detail::MemberId member_;
    std::function<void(Settings&, std::map<std::string, std::string>)> assign_;
};

template <typename Settings>
class OptionBindings;

// A connector's settings filled from its validated options, with the key and YAML position of
// each bound member for the connector's cross-option rules: o.where(o->topic).
template <typename Settings>
class BoundOptions {
  public:
    BoundOptions(const OptionBindings<Settings>& bindings, const ValidatedOptions& options,
                 Settings values)
        : bindings_(&bindings), options_(&options), values_(std::move(values)) {}

    const Settings& operator*() const { return values_; }
    const Settings* operator->() const { return &values_; }
    const Settings& values() const { return values_; }
    Settings take() && { return std::move(values_); }
    const ValidatedOptions& options() const { return *options_; }

    // The key of the option that fills member (a member of values()); the prefix for a map
    // filled by a prefix.
    template <typename Member>
    const std::string& key(const Member& member) const {
        return bindings_->key_of(binding_detail::member_id(values_, member));
    }
    // True only when the option was written in the YAML.
    template <typename Member>
    bool is_set(const Member& member) const {
        return options_->is_set(key(member));
    }
    // Where the option was set; the block's position when it was not.
    template <typename Member>
    SourceLocation where(const Member& member) const {
        return options_->location(key(member));
    }
    // Where the key prefix + name of a prefix-filled map was set (the block's when it was not).
    SourceLocation where(const std::map<std::string, std::string>& prefixed,
                         const std::string& name) const {
        return options_->location(key(prefixed) + name);
    }
    // The option's value as written (canonical), default included; for messages.
    template <typename Member>
    std::string text(const Member& member) const {
        return options_->raw(key(member)).value_or("");
    }

  private:
    const OptionBindings<Settings>* bindings_;
    const ValidatedOptions* options_;
    Settings values_;
};

// Every option of a connector (or the pipeline block), declared and bound to Settings.
template <typename Settings>
class OptionBindings {
  public:
    explicit OptionBindings(std::vector<OptionBinding<Settings>> options,
                            std::vector<PrefixBinding<Settings>> prefixes = {})
        : options_(std::move(options)), prefixes_(std::move(prefixes)) {
        for (const auto& o : options_) spec_.options.push_back(o.spec());
        for (const auto& p : prefixes_) spec_.prefixes.push_back(p.spec());
        std::vector<binding_detail::MemberId> seen;
        for (const auto& o : options_) {
            if (o.member().offset < 0) continue;
            for (const auto& s : seen) {
                if (s == o.member())
                    throw std::logic_error("option `" + o.spec().key +
                                           "` is bound to a member another option fills");
            }
            seen.push_back(o.member());
        }
    }

    // The declarations, for the validator and `cdcd describe`.
    const ConnectorOptionsSpec& spec() const { return spec_; }

    // The settings filled from options validated against spec().
    BoundOptions<Settings> read(const ValidatedOptions& options, Settings values = {}) const {
        for (const auto& o : options_) {
            if (auto value = options.raw(o.spec().key)) o.assign(values, *value);
        }
        for (const auto& p : prefixes_) p.assign(values, options.with_prefix(p.spec().prefix));
        return BoundOptions<Settings>(*this, options, std::move(values));
    }

    const std::string& key_of(const binding_detail::MemberId& member) const {
        for (const auto& o : options_) {
            if (o.member() == member) return o.spec().key;
        }
        for (const auto& p : prefixes_) {
            if (p.member() == member) return p.spec().prefix;
        }
        throw std::logic_error("the member asked for is bound to no option");
    }

  private:
    ConnectorOptionsSpec spec_;
    std::vector<OptionBinding<Settings>> options_;
    std::vector<PrefixBinding<Settings>> prefixes_;
};

template <typename Settings, typename Member, typename... Nested>
OptionBinding<Settings> OptionBuilder::to(Member Settings::*member, Nested... nested) const {
    static_assert(std::is_default_constructible_v<Settings>,
                  "bound settings must be default-constructible");
    using Leaf = std::remove_cvref_t<decltype(binding_detail::member_of(std::declval<Settings&>(),
                                                                        member, nested...))>;
    using Value = typename binding_detail::Optional<Leaf>::type;
    const OptionSpec& spec = spec_;
    auto fail = [&spec](const std::string& why) {
        return std::logic_error("option `" + spec.key + "` cannot be bound: " + why);
    };
    if (!binding_detail::holds<Value>(spec.type)) {
        throw fail("a " + std::string(to_string(spec.type)) + " option does not fit its member");
    }
    if constexpr (std::is_enum_v<Value> || std::is_same_v<Value, bool>) {
        if (spec.type == OptionType::Enum && spec.enum_type != std::type_index(typeid(Value))) {
            throw fail("declare it with enum_of<Enum>(key, {{\"value\", Enum::Value}, ...})");
        }
    } else if constexpr (std::is_integral_v<Value> && !std::is_same_v<Value, bool>) {
        if (!binding_detail::fits<Value>(spec)) {
            throw fail("its range does not fit the member's integer type");
        }
    }
    // A list left unset is empty, as an empty value gives; anything else needs a std::optional.
    if (!binding_detail::Optional<Leaf>::value && !spec.required && !spec.default_value &&
        !std::is_same_v<Leaf, std::vector<std::string>>) {
        throw fail("it has no default and is not required: bind it to a std::optional member");
    }
    Settings probe{};
    binding_detail::MemberId id =
        binding_detail::member_id(probe, binding_detail::member_of(probe, member, nested...));
    return OptionBinding<Settings>(
        spec_, id, [member, nested..., spec](Settings& settings, const std::string& canonical) {
            binding_detail::member_of(settings, member, nested...) =
                binding_detail::parse<Value>(spec, canonical);
        });
}

template <typename Settings, typename Member, typename... Nested>
PrefixBinding<Settings> PrefixSpec::to(Member Settings::*member, Nested... nested) const {
    using Leaf = std::remove_cvref_t<decltype(binding_detail::member_of(std::declval<Settings&>(),
                                                                        member, nested...))>;
    static_assert(std::is_same_v<Leaf, std::map<std::string, std::string>>,
                  "a prefix binds to a std::map<std::string, std::string>");
    Settings probe{};
    binding_detail::MemberId id =
        binding_detail::member_id(probe, binding_detail::member_of(probe, member, nested...));
    return PrefixBinding<Settings>(
        *this, id,
        [member, nested...](Settings& settings, std::map<std::string, std::string> values) {
            binding_detail::member_of(settings, member, nested...) = std::move(values);
        });
}

}  // namespace cdcd::config
