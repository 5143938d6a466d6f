// The digests every request signer uses, against the published test vectors: RFC 4231 for
// HMAC-SHA256, RFC 2202 for HMAC-SHA1, FIPS 180-2 for SHA-256 and RFC 1321 for MD5.
#include "net/digest.h"

#include <catch2/catch.hpp>
#include <string>

using namespace cdcd::net;

namespace {

std::string repeat(char c, std::size_t n) {
    return std::string(n, c);
}

/// Test-vector keys and data are given as hex.
std::string bytes(std::string_view hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
        out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
    return out;
}

}  // namespace

TEST_CASE("HMAC-SHA256: RFC 4231 test cases 1-7") {
    // 1: a 20-byte key.
    CHECK(hex_lower(hmac_sha256(repeat('\x0b', 20), "Hi There")) ==
          "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    // 2: a key shorter than the output.
    CHECK(hex_lower(hmac_sha256("Jefe", "what do ya want for nothing?")) ==
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    // 3: 50 bytes of data.
    CHECK(hex_lower(hmac_sha256(repeat('\xaa', 20), repeat('\xdd', 50))) ==
          "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
    // 4: a 25-byte key.
    CHECK(hex_lower(hmac_sha256(bytes("0102030405060708090a0b0c0d0e0f10111213141516171819"),
                                repeat('\xcd', 50))) ==
          "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
    // 5: the output truncated to 128 bits.
    CHECK(hex_lower(hmac_sha256(repeat('\x0c', 20), "Test With Truncation")).substr(0, 32) ==
          "a3b6167473100ee06e0c796c2955552b");
    // 6: a key larger than the block size (hashed first).
    CHECK(hex_lower(hmac_sha256(repeat('\xaa', 131),
                                "Test Using Larger Than Block-Size Key - Hash Key First")) ==
          "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    // 7: a key and data larger than the block size.
    CHECK(hex_lower(hmac_sha256(
              repeat('\xaa', 131),
              "This is a test using a larger than block-size key and a larger than block-size "
              "data. The key needs to be hashed before being used by the HMAC algorithm.")) ==
          "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
    CHECK(hmac_sha256("k", "d").size() == 32);
}

TEST_CASE("HMAC-SHA1: RFC 2202 test cases") {
    CHECK(hex_lower(hmac_sha1(repeat('\x0b', 20), "Hi There")) ==
          "b617318655057264e28bc0b6fb378c8ef146be00");
    CHECK(hex_lower(hmac_sha1("Jefe", "what do ya want for nothing?")) ==
          "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
    CHECK(hex_lower(hmac_sha1(repeat('\xaa', 80),
                              "Test Using Larger Than Block-Size Key - Hash Key First")) ==
          "aa4ae5e15272d00e95705637ce8a3b55ed402112");
}

TEST_CASE("SHA-256 and MD5 of the standards' messages") {
    CHECK(hex_lower(sha256("abc")) ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(hex_lower(sha256("")) ==
          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(hex_lower(md5("")) == "d41d8cd98f00b204e9800998ecf8427e");
    CHECK(hex_lower(md5("abc")) == "900150983cd24fb0d6963f7d28e17f72");
}

TEST_CASE("hex spells every byte as two digits, in either case") {
    CHECK(hex_lower(std::string("\x00\x01\x7f\x80\xff", 5)) == "00017f80ff");
    CHECK(hex_upper(std::string("\x00\xab\xcd\xef", 4)) == "00ABCDEF");
    CHECK(hex_lower("") == "");
}
