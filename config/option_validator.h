// Checks a YAML block's raw options against a connector's declaration and gives typed access.
//
//   Diagnostics diags;
//   ValidatedOptions opts = validate_options(kafka_spec, def.sink.options, def.sink.where,
//                                            "sink `kafka`", diags);
//   if (!diags.ok()) throw ConfigError(diags);
//   auto timeout = opts.get_duration("request.timeout");
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostics.h"
#include "config/option_spec.h"
#include "config/raw_options.h"

namespace cdcd::config {

class ValidatedOptions {
  public:
    ValidatedOptions() = default;

    // True when the option was set in the YAML or its declaration has a default
    // (or, for a prefix key such as "properties.acks", when it was set).
    bool has(std::string_view key) const;
    // True only when the option was written in the YAML.
    bool is_set(std::string_view key) const;

    // Typed getters. The value is the one set in the YAML, else the declared default.
    // They throw std::logic_error when the key is not declared, is read as the wrong type, or
    // has neither a value nor a default (check has() first for optional options).
    std::string get_string(std::string_view key) const;
    int get_int(std::string_view key) const;
    long long get_long(std::string_view key) const;
    double get_double(std::string_view key) const;
    bool get_bool(std::string_view key) const;
    std::chrono::milliseconds get_duration(std::string_view key) const;
    std::uint64_t get_memory_size(std::string_view key) const;  // bytes
    std::string get_enum(std::string_view key) const;           // canonical (declared) spelling
    std::vector<std::string> get_list(std::string_view key) const;

    // The stored string (canonical for enums/booleans/integers), default included; nullopt if none.
    std::optional<std::string> raw(std::string_view key) const;
    // Where the option was set; the block's position for defaults and unknown keys.
    SourceLocation location(std::string_view key) const;
    // Every set key starting with prefix, with the prefix stripped: "properties.acks" -> "acks".
    std::map<std::string, std::string> with_prefix(std::string_view prefix) const;

    // "key = value" per line, declared options (defaults marked) then prefix keys; secret options
    // print as ******, and the whole text is redacted.
    std::string dump() const;

    // The options whose values were refused (each with its error): they read as their defaults
    // here, a value the user did not write.
    const std::vector<std::string>& rejected() const { return rejected_; }

  private:
    friend ValidatedOptions validate_options(const ConnectorOptionsSpec&, const RawOptions&,
                                             const SourceLocation&, std::string_view, Diagnostics&);
    const OptionSpec& declared(std::string_view key, OptionType expected) const;
    std::string value_of(const OptionSpec& spec) const;

    ConnectorOptionsSpec spec_;
    std::map<std::string, RawValue, std::less<>> values_;  // set in YAML, canonical values
    std::vector<std::string> rejected_;
    SourceLocation block_;
};

// Validate raw against spec. block is the position of the block (for missing options) and
// block_name names it in messages ("sink `kafka`", "pipeline"). Every problem is added to diags;
// the returned options hold the valid values. Values of secret options, and of prefix options whose
// key names a credential (names_a_credential), are registered in the SecretRegistry.
ValidatedOptions validate_options(const ConnectorOptionsSpec& spec, const RawOptions& raw,
                                  const SourceLocation& block, std::string_view block_name,
                                  Diagnostics& diags);

}  // namespace cdcd::config
