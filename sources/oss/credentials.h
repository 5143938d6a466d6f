#pragma once
// Alibaba Cloud credentials. Never logged (the option validator registers the secrets for
// redaction; this struct has no printer on purpose).
#include <string>

namespace cdcd::oss {

struct Credentials {
    std::string access_key_id;
    std::string access_key_secret;
    std::string security_token;  // STS; empty when none
};

}  // namespace cdcd::oss
