#include "config/interpolation.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "config/secrets.h"
#include "text/ascii.h"

namespace cdcd::config {

namespace {

constexpr std::string_view kSecretPrefix = "secret_values.";

// What the lines of a KEY=VALUE secrets file are trimmed of.
constexpr std::string_view kBlank = " \t\r";

bool is_env_name(std::string_view name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) {
        return false;
    }
    for (char c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') {
            return false;
        }
    }
    return true;
}

bool is_secret_name(std::string_view name) {
    if (name.empty()) {
        return false;
    }
    for (char c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
            return false;
        }
    }
    return true;
}

// A line of a KEY=VALUE secrets file, trimmed and without a leading `export `; nullopt for a blank
// or comment line.
std::optional<std::string_view> assignment_of(std::string_view line) {
    std::string_view l = ascii::trim(line, kBlank);
    if (l.empty() || l[0] == '#') {
        return std::nullopt;
    }
    if (l.starts_with("export ")) {
        l = ascii::trim(l.substr(7), kBlank);
    }
    return l;
}

bool looks_like_key_value(std::string_view text) {
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
        auto assignment = assignment_of(line);
        if (!assignment) {
            continue;
        }
        std::string_view l = *assignment;
        std::size_t eq = l.find('=');
        return eq != std::string_view::npos && eq > 0 &&
               is_secret_name(ascii::trim(l.substr(0, eq), kBlank));
    }
    return false;
}

std::string unquote(std::string_view v) {
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
        return std::string(v.substr(1, v.size() - 2));
    }
    return std::string(v);
}

}  // namespace

std::optional<std::string> process_env(const std::string& name) {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) {
        return std::nullopt;
    }
    return std::string(v);
}

std::string Secrets::env_name(std::string_view name) {
    std::string out = "CDCD_SECRET_";
    for (char c : name) {
        unsigned char u = static_cast<unsigned char>(c);
        out += std::isalnum(u) ? static_cast<char>(std::toupper(u)) : '_';
    }
    return out;
}

std::optional<std::string> Secrets::lookup(const std::string& name) const {
    if (auto it = values_.find(name); it != values_.end()) {
        return it->second;
    }
    const std::string var = env_name(name);
    return env_ ? env_(var) : process_env(var);
}

Secrets Secrets::from_string(std::string_view text, const std::string& display_name) {
    Secrets secrets;
    Diagnostics diags;
    if (looks_like_key_value(text)) {
        std::istringstream in{std::string(text)};
        std::string line;
        int lineno = 0;
        while (std::getline(in, line)) {
            ++lineno;
            auto assignment = assignment_of(line);
            if (!assignment) {
                continue;
            }
            std::string_view l = *assignment;
            std::size_t eq = l.find('=');
            int column = static_cast<int>(line.find_first_not_of(" \t")) + 1;
            if (eq == std::string_view::npos) {
                diags.error(SourceLocation{display_name, lineno, column},
                            "expected KEY=VALUE in secrets file");
                continue;
            }
            std::string_view key = ascii::trim(l.substr(0, eq), kBlank);
            if (!is_secret_name(key)) {
                diags.error(SourceLocation{display_name, lineno, column},
                            "invalid secret name `" + std::string(key) + "`");
                continue;
            }
            secrets.values_[std::string(key)] = unquote(ascii::trim(l.substr(eq + 1), kBlank));
        }
    } else {
        auto doc = load_yaml_string(text, display_name, diags);
        if (doc && doc->root.is_map()) {
            for (const auto& e : doc->root.entries) {
                if (e.value.is_scalar()) {
                    secrets.values_[e.key] = e.value.scalar;
                } else if (e.value.is_null()) {
                    secrets.values_[e.key] = "";
                } else {
                    diags.error(e.key_where, "secret `" + e.key +
                                                 "` must be a scalar value, got a " +
                                                 std::string(to_string(e.value.kind)));
                }
            }
        } else if (doc && !doc->root.is_null()) {
            diags.error(doc->root.where,
                        "a secrets file must be a YAML map (name: value) or KEY=VALUE lines");
        }
    }
    for (const auto& [name, value] : secrets.values_) {
        SecretRegistry::instance().add(value);
    }
    if (!diags.ok()) {
        throw ConfigError(std::move(diags));
    }
    return secrets;
}

Secrets Secrets::from_file(const std::string& path) {
    auto fail = [&](const std::string& why) {
        Diagnostics diags;
        diags.error(SourceLocation{path, 0, 0}, why);
        throw ConfigError(std::move(diags));
    };
    // A directory opens like a file and reads as nothing: it would be no secrets, not an error.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        fail("cannot read secrets file: it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot open secrets file");
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) fail("cannot read secrets file");
    return from_string(buf.str(), path);
}

std::optional<std::string> interpolate_string(
    std::string_view text, const EnvLookup& env, const Secrets& secrets,
    const std::function<void(std::size_t, std::size_t, const std::string&)>& on_error) {
    std::string out;
    out.reserve(text.size());
    bool failed = false;
    std::size_t i = 0;
    while (i < text.size()) {
        if (text.compare(i, 3, "$${") == 0) {
            out += "${";
            i += 3;
            continue;
        }
        if (text.compare(i, 2, "${") != 0) {
            out += text[i++];
            continue;
        }
        std::size_t close = text.find('}', i + 2);
        if (close == std::string_view::npos) {
            on_error(i, text.size() - i, "unterminated `${` (write `$${` for a literal `${`)");
            failed = true;
            break;
        }
        std::string_view ref = text.substr(i + 2, close - i - 2);
        const std::size_t len = close + 1 - i;
        if (ref.starts_with(kSecretPrefix)) {
            std::string name(ref.substr(kSecretPrefix.size()));
            if (!is_secret_name(name)) {
                on_error(i, len, "invalid secret name in `${" + std::string(ref) + "}`");
                failed = true;
            } else if (auto v = secrets.lookup(name)) {
                SecretRegistry::instance().add(*v);
                out += *v;
            } else {
                on_error(i, len,
                         "undefined secret `" + name + "` in `${" + std::string(ref) +
                             "}` (not in the secrets file, and environment variable " +
                             Secrets::env_name(name) + " is not set)");
                failed = true;
            }
        } else if (!is_env_name(ref)) {
            on_error(i, len, "invalid variable name in `${" + std::string(ref) + "}`");
            failed = true;
        } else if (auto v = env(std::string(ref))) {
            out += *v;
        } else {
            on_error(i, len,
                     "undefined environment variable `" + std::string(ref) + "` in `${" +
                         std::string(ref) + "}`");
            failed = true;
        }
        i = close + 1;
    }
    if (failed) {
        return std::nullopt;
    }
    return out;
}

namespace {

void interpolate_node(const YamlDocument& doc, ConfigNode& node, const Secrets& secrets,
                      Diagnostics& diags, const EnvLookup& env,
                      const std::set<const ConfigNode*>& verbatim = {}) {
    if (verbatim.count(&node)) return;
    switch (node.kind) {
        case NodeKind::Scalar: {
            if (node.scalar.find("${") == std::string::npos) {
                return;
            }
            // Find each reference in the file text to point at its exact column; fall back to
            // the start of the scalar (e.g. when written with escapes in a quoted string).
            std::size_t search_from = node.offset >= 0 ? static_cast<std::size_t>(node.offset) : 0;
            auto on_error = [&](std::size_t at, std::size_t len, const std::string& msg) {
                SourceLocation where = node.where;
                if (node.offset >= 0) {
                    std::string_view token = std::string_view(node.scalar).substr(at, len);
                    std::size_t found = doc.text.find(token, search_from);
                    if (found != std::string::npos) {
                        where = doc.location_at(found);
                        search_from = found + token.size();
                    }
                }
                diags.error(where, msg);
            };
            if (auto v = interpolate_string(node.scalar, env, secrets, on_error)) {
                node.scalar = std::move(*v);
            }
            return;
        }
        case NodeKind::Map:
            for (auto& e : node.entries) {
                interpolate_node(doc, e.value, secrets, diags, env, verbatim);
            }
            return;
        case NodeKind::List:
            for (auto& item : node.items) {
                interpolate_node(doc, item, secrets, diags, env, verbatim);
            }
            return;
        case NodeKind::Null:
            return;
    }
}

}  // namespace

void interpolate(YamlDocument& doc, const Secrets& secrets, Diagnostics& diags,
                 const EnvLookup& env) {
    interpolate_node(doc, doc.root, secrets, diags, env);
}

void interpolate(YamlDocument& doc, const Secrets& secrets, Diagnostics& diags,
                 const EnvLookup& env, const TemplateOptions& templates) {
    std::set<const ConfigNode*> verbatim;
    if (templates && doc.root.kind == NodeKind::Map) {
        for (const char* block : {"source", "sink"}) {
            const ConfigNode* connector = doc.root.find(block);
            if (!connector || connector->kind != NodeKind::Map) continue;
            const ConfigNode* type = connector->find("type");
            if (!type || type->kind != NodeKind::Scalar) continue;
            for (const auto& e : connector->entries) {
                if (e.value.kind == NodeKind::Scalar && templates(block, type->scalar, e.key))
                    verbatim.insert(&e.value);
            }
        }
    }
    interpolate_node(doc, doc.root, secrets, diags, env, verbatim);
}

}  // namespace cdcd::config
