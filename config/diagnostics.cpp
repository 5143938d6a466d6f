#include "config/diagnostics.h"

#include "config/secrets.h"

namespace cdcd::config {

std::string SourceLocation::to_string() const {
    std::string out = file.empty() ? std::string("<unknown>") : file;
    if (line > 0) {
        out += ':' + std::to_string(line);
        if (column > 0) {
            out += ':' + std::to_string(column);
        }
    }
    return out;
}

std::string Diagnostic::to_string() const {
    return where.to_string() + ": error: " + SecretRegistry::instance().redact(message);
}

void Diagnostics::error(SourceLocation where, const std::string& message) {
    items_.push_back(Diagnostic{std::move(where), SecretRegistry::instance().redact(message)});
}

void Diagnostics::merge(const Diagnostics& other) {
    items_.insert(items_.end(), other.items_.begin(), other.items_.end());
}

std::string Diagnostics::to_string() const {
    std::string out;
    for (const auto& d : items_) {
        out += d.to_string();
        out += '\n';
    }
    return out;
}

ConfigError::ConfigError(Diagnostics diagnostics)
    : std::runtime_error(diagnostics.to_string()), diagnostics_(std::move(diagnostics)) {}

}  // namespace cdcd::config
