#include "config/secrets.h"

#include <spdlog/details/log_msg.h>
#include <spdlog/formatter.h>
#include <spdlog/sinks/sink.h>

#include <algorithm>
#include <cctype>
#include <mutex>

namespace cdcd::config {

SecretRegistry& SecretRegistry::instance() {
    static SecretRegistry registry;
    return registry;
}

void SecretRegistry::add(std::string_view value) {
    if (value.size() < kMinSecretLength) {
        return;
    }
    std::unique_lock lock(mutex_);
    if (std::find(secrets_.begin(), secrets_.end(), value) != secrets_.end()) {
        return;
    }
    auto pos = std::find_if(secrets_.begin(), secrets_.end(),
                            [&](const std::string& s) { return s.size() < value.size(); });
    secrets_.insert(pos, std::string(value));
}

bool SecretRegistry::contains(std::string_view value) const {
    std::shared_lock lock(mutex_);
    return std::find(secrets_.begin(), secrets_.end(), value) != secrets_.end();
}

std::size_t SecretRegistry::size() const {
    std::shared_lock lock(mutex_);
    return secrets_.size();
}

std::string SecretRegistry::redact(std::string_view text) const {
    std::string out(text);
    std::shared_lock lock(mutex_);
    for (const auto& secret : secrets_) {
        std::size_t pos = 0;
        while ((pos = out.find(secret, pos)) != std::string::npos) {
            out.replace(pos, secret.size(), kRedacted);
            pos += kRedacted.size();
        }
    }
    return out;
}

bool names_a_credential(std::string_view key) {
    std::string lower(key);
    for (char& c : lower) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    for (std::string_view word :
         {"password", "secret", "token", "credential", "jaas.config", "api-key", "apikey"}) {
        if (lower.find(word) != std::string::npos) {
            return true;
        }
    }
    return lower.ends_with("key.pem") || lower.ends_with("keystore.key");
}

namespace {

class RedactingSink final : public spdlog::sinks::sink {
  public:
    explicit RedactingSink(std::shared_ptr<spdlog::sinks::sink> inner) : inner_(std::move(inner)) {}

    void log(const spdlog::details::log_msg& msg) override {
        if (!inner_->should_log(msg.level)) {
            return;
        }
        std::string_view payload(msg.payload.data(), msg.payload.size());
        std::string redacted = SecretRegistry::instance().redact(payload);
        spdlog::details::log_msg copy(msg);
        copy.payload = spdlog::string_view_t(redacted.data(), redacted.size());
        inner_->log(copy);
    }
    void flush() override { inner_->flush(); }
    void set_pattern(const std::string& pattern) override { inner_->set_pattern(pattern); }
    void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
        inner_->set_formatter(std::move(formatter));
    }

  private:
    std::shared_ptr<spdlog::sinks::sink> inner_;
};

}  // namespace

std::shared_ptr<spdlog::sinks::sink> make_redacting_sink(
    std::shared_ptr<spdlog::sinks::sink> inner) {
    return std::make_shared<RedactingSink>(std::move(inner));
}

}  // namespace cdcd::config
