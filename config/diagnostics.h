// Error collection for configuration files: every problem of a file is gathered with its
// file:line:column position before anything is reported, so a user sees all mistakes at once.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cdcd::config {

// A position in a configuration file. line and column are 1-based; 0 means "unknown".
struct SourceLocation {
    std::string file;
    int line = 0;
    int column = 0;

    // "file:line:column", or "file:line" / "file" when the finer parts are unknown.
    std::string to_string() const;
    bool operator==(const SourceLocation&) const = default;
};

struct Diagnostic {
    SourceLocation where;
    std::string message;

    // "file:line:column: error: message" (the message is redacted, see secrets.h).
    std::string to_string() const;
};

class Diagnostics {
  public:
    // Record an error. The message is passed through the SecretRegistry before it is stored.
    void error(SourceLocation where, const std::string& message);
    // Append every diagnostic of another collection.
    void merge(const Diagnostics& other);

    bool ok() const { return items_.empty(); }
    std::size_t size() const { return items_.size(); }
    const std::vector<Diagnostic>& items() const { return items_; }

    // Every error rendered as "file:line:column: error: message", one per line, redacted.
    std::string to_string() const;

  private:
    std::vector<Diagnostic> items_;
};

// Thrown when a configuration cannot be used; what() is Diagnostics::to_string().
class ConfigError : public std::runtime_error {
  public:
    explicit ConfigError(Diagnostics diagnostics);
    const Diagnostics& diagnostics() const { return diagnostics_; }

  private:
    Diagnostics diagnostics_;
};

}  // namespace cdcd::config
