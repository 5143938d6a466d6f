#include "sources/oss/crypto.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace cdcd::oss {
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

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int b64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

}  // namespace

std::string hmac_sha1(std::string_view key, std::string_view data) {
    return hmac(EVP_sha1(), key, data);
}
std::string hmac_sha256(std::string_view key, std::string_view data) {
    return hmac(EVP_sha256(), key, data);
}
std::string sha256(std::string_view data) {
    return digest(EVP_sha256(), data);
}
std::string md5(std::string_view data) {
    return digest(EVP_md5(), data);
}
std::string hex_lower(std::string_view bytes) {
    return hex(bytes, "0123456789abcdef");
}
std::string hex_upper(std::string_view bytes) {
    return hex(bytes, "0123456789ABCDEF");
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    auto at = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
    for (; i + 2 < bytes.size(); i += 3) {
        unsigned v = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
        out.push_back(kAlphabet[(v >> 18) & 63]);
        out.push_back(kAlphabet[(v >> 12) & 63]);
        out.push_back(kAlphabet[(v >> 6) & 63]);
        out.push_back(kAlphabet[v & 63]);
    }
    if (i < bytes.size()) {
        unsigned v = at(i) << 16;
        if (i + 1 < bytes.size()) v |= at(i + 1) << 8;
        out.push_back(kAlphabet[(v >> 18) & 63]);
        out.push_back(kAlphabet[(v >> 12) & 63]);
        out.push_back(i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=');
        out.push_back('=');
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    std::string out;
    out.reserve(text.size() / 4 * 3);
    unsigned acc = 0;
    int bits = 0, chars = 0, pad = 0;
    for (char c : text) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (c == '=') {
            ++pad;
            continue;
        }
        if (pad) return std::nullopt;  // data after padding
        int v = b64_value(c);
        if (v < 0) return std::nullopt;
        ++chars;
        acc = (acc << 6) | static_cast<unsigned>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xFF));
        }
    }
    if (chars == 0 || pad > 2 || (chars + pad) % 4 == 1) return std::nullopt;
    if (pad && (chars + pad) % 4 != 0) return std::nullopt;
    return out;
}

std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed) {
    std::uint64_t h = seed;
    for (unsigned char c : data) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return h;
}

}  // namespace cdcd::oss
