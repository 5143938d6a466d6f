#pragma once
// One libpq connection (a normal one, or a logical replication one: replication=database), with
// the session settings every value parser relies on (text_values.h). Blocking calls: used only
// from the source's reader thread (replication_reader.h), never from the event loop.
#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sources/postgres/options.h"

namespace cdcd::postgres {

/// A server or connection error; the message is libpq's (never the password).
struct PgError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A query's result: rows of text values (NULL as nullopt).
class PgResult {
  public:
    explicit PgResult(PGresult* result) : result_(result, &PQclear) {}
    PGresult* get() const { return result_.get(); }
    ExecStatusType status() const { return PQresultStatus(result_.get()); }
    int rows() const { return PQntuples(result_.get()); }
    int columns() const { return PQnfields(result_.get()); }
    bool is_null(int row, int column) const { return PQgetisnull(result_.get(), row, column); }
    std::string text(int row, int column) const {
        return std::string(PQgetvalue(result_.get(), row, column),
                           static_cast<std::size_t>(PQgetlength(result_.get(), row, column)));
    }
    std::optional<std::string> value(int row, int column) const {
        if (is_null(row, column)) return std::nullopt;
        return text(row, column);
    }

  private:
    std::unique_ptr<PGresult, decltype(&PQclear)> result_;
};

class PgConnection {
  public:
    enum class Kind { Normal, Replication };

    /// Connects, retrying connect.max-retries times; throws PgError naming the server and user.
    PgConnection(const PostgresSettings& settings, Kind kind);
    PgConnection(const PgConnection&) = delete;
    PgConnection& operator=(const PgConnection&) = delete;

    /// Runs one statement (simple query protocol); throws PgError with the statement's first
    /// words on failure.
    PgResult exec(const std::string& sql);
    /// Runs `sql` with text parameters $1, $2... (not on a replication connection).
    PgResult exec_params(const std::string& sql, const std::vector<std::string>& params);

    std::string quote_identifier(const std::string& name) const;
    std::string quote_literal(const std::string& text) const;

    /// Starts a COPY BOTH stream (START_REPLICATION).
    void start_copy_both(const std::string& sql);
    /// The next CopyData message of the stream, waiting at most `wait`; nullopt when none came.
    /// Throws PgError when the stream ends or fails.
    std::optional<std::string> read_copy(std::chrono::milliseconds wait);
    /// Sends one CopyData message and flushes it.
    void write_copy(const std::string& bytes);

  private:
    [[noreturn]] void fail(const std::string& what) const;
    std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
};

}  // namespace cdcd::postgres
