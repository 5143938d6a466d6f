// The client over TLS (net/http_exchange_tls.cpp): a loopback HTTPS server with a certificate made
// for the test. Verification is on by default, so that certificate is refused; with
// verify_tls=false the exchange goes through and the connection is pooled like a plain one.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <boost/asio/ssl.hpp>
#include <catch2/catch.hpp>
#include <memory>

#include "net/http_client.h"
#include "tests/unit/net/loopback_server.h"

using namespace cdcd::net;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

/// A self-signed certificate for 127.0.0.1 and its key, installed into `ctx`.
void use_self_signed_certificate(asio::ssl::context& ctx) {
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_EC_gen("P-256"), EVP_PKEY_free);
    REQUIRE(key);
    std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), X509_free);
    X509_set_version(cert.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), 3600);
    X509_NAME* name = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
    X509_set_issuer_name(cert.get(), name);
    X509_set_pubkey(cert.get(), key.get());
    X509V3_CTX v3;
    X509V3_set_ctx(&v3, cert.get(), cert.get(), nullptr, nullptr, 0);
    X509_EXTENSION* san = X509V3_EXT_conf_nid(nullptr, &v3, NID_subject_alt_name, "IP:127.0.0.1");
    REQUIRE(san);
    X509_add_ext(cert.get(), san, -1);
    X509_EXTENSION_free(san);
    REQUIRE(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0);
    REQUIRE(SSL_CTX_use_certificate(ctx.native_handle(), cert.get()) == 1);
    REQUIRE(SSL_CTX_use_PrivateKey(ctx.native_handle(), key.get()) == 1);
}

/// Answers every request on a connection with 200 "hello" (keep-alive), over TLS.
class LoopbackHttpsServer {
  public:
    explicit LoopbackHttpsServer(asio::io_context& io)
        : io_(io),
          ctx_(asio::ssl::context::tls_server),
          acceptor_(io, {asio::ip::make_address("127.0.0.1"), 0}) {
        use_self_signed_certificate(ctx_);
        asio::co_spawn(io_, accept_loop(), asio::detached);
    }

    std::string url() const {
        return "https://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()) + "/x";
    }
    int connections = 0;
    int handshakes = 0;
    int requests = 0;

  private:
    asio::awaitable<void> accept_loop() {
        for (;;) {
            auto [ec, socket] =
                co_await acceptor_.async_accept(asio::as_tuple(asio::use_awaitable));
            if (ec) co_return;
            ++connections;
            asio::co_spawn(io_, serve(std::move(socket)), asio::detached);
        }
    }

    asio::awaitable<void> serve(tcp::socket socket) {
        asio::ssl::stream<tcp::socket> stream(std::move(socket), ctx_);
        auto [hec] = co_await stream.async_handshake(asio::ssl::stream_base::server,
                                                     asio::as_tuple(asio::use_awaitable));
        if (hec) co_return;  // the client refused the certificate
        ++handshakes;
        std::string buffer;
        for (;;) {
            auto [rec, n] =
                co_await asio::async_read_until(stream, asio::dynamic_buffer(buffer), "\r\n\r\n",
                                                asio::as_tuple(asio::use_awaitable));
            if (rec) co_return;
            buffer.erase(0, n);
            ++requests;
            const std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
            auto [wec, wn] = co_await asio::async_write(stream, asio::buffer(reply),
                                                        asio::as_tuple(asio::use_awaitable));
            (void)wn;
            if (wec) co_return;
        }
    }

    asio::io_context& io_;
    asio::ssl::context ctx_;
    tcp::acceptor acceptor_;
};

}  // namespace

TEST_CASE("https with verification off exchanges over TLS and pools the connection") {
    asio::io_context io;
    LoopbackHttpsServer server(io);
    HttpClient client(io, HttpClientOptions{.verify_tls = false});
    std::vector<std::string> bodies;
    test::run(io, [&]() -> asio::awaitable<void> {
        for (int i = 0; i < 2; ++i) {
            HttpRequest req{.url = server.url()};
            HttpResponse resp = co_await client.send(std::move(req));
            bodies.push_back(std::to_string(resp.status) + " " + resp.body);
        }
    });
    CHECK(bodies == std::vector<std::string>{"200 hello", "200 hello"});
    CHECK(server.handshakes == 1);
    CHECK(server.requests == 2);
    CHECK(client.connections_opened() == 1);
}

TEST_CASE("https refuses a certificate no trusted authority signed, by default") {
    asio::io_context io;
    LoopbackHttpsServer server(io);
    HttpClient client(io);  // verify_tls is on unless turned off
    std::optional<HttpError::Kind> kind;
    std::string message;
    test::run(io, [&]() -> asio::awaitable<void> {
        HttpRequest req{.url = server.url()};
        try {
            co_await client.send(std::move(req));
        } catch (const HttpError& e) {
            kind = e.kind();
            message = e.what();
        }
    });
    REQUIRE(kind);
    CHECK(*kind == HttpError::Kind::Tls);
    CHECK_THAT(message,
               Catch::Contains("TLS handshake failed") && Catch::Contains("https://127.0.0.1:"));
    CHECK(server.handshakes == 0);
    CHECK(server.requests == 0);
}
