#pragma once
// Volcengine Signature V4 (HMAC-SHA256), as volcengine/auth/SignerV4.py computes it
// (vendor-apis.md §5.1): X-Date and X-Content-Sha256 headers, signed headers = Content-Type,
// Content-Md5, Host and every X-* header, scope <date>/<region>/<service>/request, signing key
// derived from the secret key with no prefix. The digests are net/digest.h.
#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cdcd::vikingdb {

/// yyyyMMdd'T'HHmmss'Z' of a UTC instant.
std::string x_date(std::chrono::system_clock::time_point when);

struct SignRequest {
    std::string method = "POST";
    std::string path = "/";
    std::string query;  // raw, without '?': "Action=X&Version=Y"
    /// Headers to send; the signer signs those named Content-Type, Content-Md5, Host or X-*.
    std::vector<std::pair<std::string, std::string>> headers;
    std::string_view body;
};

struct SignedParts {
    std::string canonical_request;
    std::string string_to_sign;
    std::string signed_headers;
    std::string authorization;
    std::string content_sha256;
};

class V4Signer {
  public:
    V4Signer(std::string access_key, std::string secret_key, std::string region,
             std::string service = "vikingdb");

    /// Computes the signature of `request` at `date` (an X-Date string). `request.headers` must not
    /// hold X-Date / X-Content-Sha256: they are added to the signed set here.
    SignedParts sign(const SignRequest& request, const std::string& date) const;
    /// Adds X-Date, X-Content-Sha256 and Authorization to `request.headers`.
    void sign_in_place(SignRequest& request, std::chrono::system_clock::time_point now) const;

    static std::string canonical_query(std::string_view query);

  private:
    std::string access_key_, secret_key_, region_, service_;
};

}  // namespace cdcd::vikingdb
