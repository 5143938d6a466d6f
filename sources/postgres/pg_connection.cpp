#include "sources/postgres/pg_connection.h"

#include <poll.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <thread>

namespace cdcd::postgres {

namespace {

// Canonical text output for the value parsers (text_values.h), on both kinds of connection (the
// walsender formats pgoutput's values with its own session settings).
constexpr const char* kSessionOptions =
    "-c DateStyle=ISO -c TimeZone=UTC -c bytea_output=hex -c extra_float_digits=3 "
    "-c IntervalStyle=postgres -c lc_monetary=C";
// Waits between two connection attempts.
constexpr std::chrono::milliseconds kRetryBackoff{1000};

std::string first_words(const std::string& sql) {
    constexpr std::size_t kShown = 60;
    return sql.size() <= kShown ? sql : sql.substr(0, kShown) + "...";
}

std::string trimmed(const char* message) {
    std::string s = message ? message : "";
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

}  // namespace

PgConnection::PgConnection(const PostgresSettings& s, Kind kind) : conn_(nullptr, &PQfinish) {
    const PostgresOptions& o = s.options;
    const std::string port = std::to_string(o.port);
    // libpq's connect_timeout is in whole seconds, at least 2.
    const std::string timeout =
        std::to_string(std::max<std::int64_t>(2, (o.connect_timeout.count() + 999) / 1000));
    std::vector<const char*> keys{"host",     "port",
                                  "user",     "dbname",
                                  "password", "connect_timeout",
                                  "options",  "application_name",
                                  "sslmode"};
    std::vector<const char*> values{
        o.hostname.c_str(), port.c_str(),    o.username.c_str(), s.database.c_str(),
        o.password.c_str(), timeout.c_str(), kSessionOptions,    "cdcd",
        s.ssl_mode.c_str()};
    if (kind == Kind::Replication) {
        keys.push_back("replication");
        values.push_back("database");
    }
    auto add = [&](const char* key, const std::optional<std::string>& value) {
        if (value) {
            keys.push_back(key);
            values.push_back(value->c_str());
        }
    };
    add("sslrootcert", s.ssl_root_cert);
    add("sslcert", s.ssl_cert);
    add("sslkey", s.ssl_key);
    keys.push_back(nullptr);
    values.push_back(nullptr);
    for (int attempt = 0;; ++attempt) {
        conn_.reset(PQconnectdbParams(keys.data(), values.data(), 0));
        if (conn_ && PQstatus(conn_.get()) == CONNECTION_OK) return;
        const std::string why = conn_ ? trimmed(PQerrorMessage(conn_.get())) : "out of memory";
        const std::string what = "postgres source: cannot connect to " + o.hostname + ":" + port +
                                 " as " + o.username + " (database " + s.database + "): " + why;
        if (attempt >= o.connect_max_retries) throw PgError(what);
        spdlog::warn("{}; attempt {} of {}", what, attempt + 2, o.connect_max_retries + 1);
        std::this_thread::sleep_for(kRetryBackoff);
    }
}

void PgConnection::fail(const std::string& what) const {
    throw PgError("postgres source: " + what + ": " + trimmed(PQerrorMessage(conn_.get())));
}

PgResult PgConnection::exec(const std::string& sql) {
    PgResult result(PQexec(conn_.get(), sql.c_str()));
    if (result.status() != PGRES_TUPLES_OK && result.status() != PGRES_COMMAND_OK)
        fail("statement failed (" + first_words(sql) + ")");
    return result;
}

PgResult PgConnection::exec_params(const std::string& sql, const std::vector<std::string>& params) {
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& p : params) values.push_back(p.c_str());
    PgResult result(PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(params.size()), nullptr,
                                 values.data(), nullptr, nullptr, 0));
    if (result.status() != PGRES_TUPLES_OK && result.status() != PGRES_COMMAND_OK)
        fail("query failed (" + first_words(sql) + ")");
    return result;
}

std::string PgConnection::quote_identifier(const std::string& name) const {
    char* quoted = PQescapeIdentifier(conn_.get(), name.c_str(), name.size());
    if (!quoted) fail("cannot quote identifier");
    std::string out(quoted);
    PQfreemem(quoted);
    return out;
}

std::string PgConnection::quote_literal(const std::string& text) const {
    char* quoted = PQescapeLiteral(conn_.get(), text.c_str(), text.size());
    if (!quoted) fail("cannot quote literal");
    std::string out(quoted);
    PQfreemem(quoted);
    return out;
}

void PgConnection::start_copy_both(const std::string& sql) {
    PgResult result(PQexec(conn_.get(), sql.c_str()));
    if (result.status() != PGRES_COPY_BOTH)
        fail("cannot start streaming (" + first_words(sql) + ")");
    // Non-blocking from here on: read_copy polls the socket with a deadline.
    if (PQsetnonblocking(conn_.get(), 1) != 0) fail("cannot make the connection non-blocking");
}

std::optional<std::string> PgConnection::read_copy(std::chrono::milliseconds wait) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
        char* buffer = nullptr;
        const int n = PQgetCopyData(conn_.get(), &buffer, 1);
        if (n > 0) {
            std::string out(buffer, static_cast<std::size_t>(n));
            PQfreemem(buffer);
            return out;
        }
        if (n == -1) {
            // The stream ended: the server's final result says why.
            PgResult end(PQgetResult(conn_.get()));
            std::string why = trimmed(PQresultErrorMessage(end.get()));
            if (why.empty()) why = trimmed(PQerrorMessage(conn_.get()));
            if (why.empty()) why = "the server ended it (shutting down?)";
            throw PgError("postgres source: the replication stream ended: " + why);
        }
        if (n == -2) fail("reading the replication stream failed");
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        pollfd fd{PQsocket(conn_.get()), POLLIN, 0};
        if (poll(&fd, 1, static_cast<int>(left.count())) < 0 && errno != EINTR)
            throw PgError("postgres source: poll on the replication socket failed");
        if (PQconsumeInput(conn_.get()) == 0) fail("reading the replication stream failed");
    }
}

void PgConnection::write_copy(const std::string& bytes) {
    if (PQputCopyData(conn_.get(), bytes.data(), static_cast<int>(bytes.size())) != 1)
        fail("sending to the server failed");
    // Non-blocking: flush until libpq's buffer is empty (status updates are 34 bytes).
    for (int r = PQflush(conn_.get()); r != 0; r = PQflush(conn_.get())) {
        if (r < 0) fail("sending to the server failed");
        pollfd fd{PQsocket(conn_.get()), POLLOUT, 0};
        poll(&fd, 1, 100);
    }
}

}  // namespace cdcd::postgres
