// ${NAME} (environment) and ${secret_values.NAME} (secrets) substitution in YAML scalars.
//
//   password: ${secret_values.mysql_password}   # from --secrets FILE or
//   $CDCD_SECRET_MYSQL_PASSWORD hosts: ${KAFKA_HOSTS}                       # from the environment
//   literal: "cost $${not_a_var}"               # "$${" is a literal "${"
//
// Every value obtained from ${secret_values.*} is registered in the SecretRegistry.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "config/diagnostics.h"
#include "config/yaml_loader.h"

namespace cdcd::config {

// Looks a variable up; nullopt when undefined.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// The process environment (getenv).
std::optional<std::string> process_env(const std::string& name);

// Where ${secret_values.NAME} comes from: an optional secrets file (given by --secrets FILE), then
// the environment variable CDCD_SECRET_<NAME> (upper-cased, every non-alphanumeric char -> '_').
class Secrets {
  public:
    Secrets() = default;

    // A secrets file is either a YAML map (name: value) or KEY=VALUE lines ('#' comments and
    // blank lines allowed, optional "export " prefix, values may be quoted). The format is chosen
    // by the first meaningful line: "NAME=..." means KEY=VALUE. Throws ConfigError.
    static Secrets from_file(const std::string& path);
    static Secrets from_string(std::string_view text, const std::string& display_name);

    // Replace how the CDCD_SECRET_* variables are read (tests; default: process_env).
    void set_env_lookup(EnvLookup env) { env_ = std::move(env); }
    void set(std::string name, std::string value) { values_[std::move(name)] = std::move(value); }

    std::optional<std::string> lookup(const std::string& name) const;

    // "CDCD_SECRET_" + NAME upper-cased with every non-alphanumeric char replaced by '_'.
    static std::string env_name(std::string_view name);

  private:
    std::map<std::string, std::string, std::less<>> values_;
    EnvLookup env_;
};

// Substitute references in one string. on_error(offset_in_text, length, message) is called for
// every problem (undefined variable, unterminated or malformed reference); the result is nullopt
// if there was any. Resolved secrets are registered in the SecretRegistry.
std::optional<std::string> interpolate_string(
    std::string_view text, const EnvLookup& env, const Secrets& secrets,
    const std::function<void(std::size_t, std::size_t, const std::string&)>& on_error);

// Substitute references in every scalar value of the document (map keys are left alone).
// Errors name the variable and point at the reference's file:line:column.
void interpolate(YamlDocument& doc, const Secrets& secrets, Diagnostics& diags,
                 const EnvLookup& env = process_env);

// Whether `key` of the `block` ("source" or "sink") of connector `type` is a template option
// (OptionSpec::templated) whose ${...} placeholders belong to the connector.
using TemplateOptions =
    std::function<bool(const std::string& block, const std::string& type, const std::string& key)>;
// As above, leaving the values of template options untouched.
void interpolate(YamlDocument& doc, const Secrets& secrets, Diagnostics& diags,
                 const EnvLookup& env, const TemplateOptions& templates);

}  // namespace cdcd::config
