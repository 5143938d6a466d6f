#include "net/digest.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace cdcd::net {

namespace {

std::string hmac(const EVP_MD* md, std::string_view key, std::string_view data) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(md, key.data(), static_cast<int>(key.size()),
         reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
    return std::string(reinterpret_cast<const char*>(out), len);
}

std::string digest(const EVP_MD* md, std::string_view data) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(data.data(), data.size(), out, &len, md, nullptr);
    return std::string(reinterpret_cast<const char*>(out), len);
}

std::string hex(std::string_view bytes, const char* digits) {
    std::string s;
    s.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
        s.push_back(digits[c >> 4]);
        s.push_back(digits[c & 15]);
    }
    return s;
}

}  // namespace

std::string sha256(std::string_view data) {
    return digest(EVP_sha256(), data);
}

std::string md5(std::string_view data) {
    return digest(EVP_md5(), data);
}

std::string hmac_sha1(std::string_view key, std::string_view data) {
    return hmac(EVP_sha1(), key, data);
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
    return hmac(EVP_sha256(), key, data);
}

std::string hex_lower(std::string_view bytes) {
    return hex(bytes, "0123456789abcdef");
}

std::string hex_upper(std::string_view bytes) {
    return hex(bytes, "0123456789ABCDEF");
}

}  // namespace cdcd::net
