#pragma once
// Decodes the messages of PostgreSQL's pgoutput logical decoding plugin (protocol version 1, the
// payload of an XLogData message): Begin, Commit, Relation, Type, Insert, Update, Delete,
// Truncate, Origin and Message. Pure functions over bytes: no connection, no schema; malformed
// input throws PgoutputError naming what is wrong and where.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cdcd::postgres {

struct PgoutputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

using Lsn = std::uint64_t;
using Oid = std::uint32_t;

/// One column of a TupleData: NULL, unchanged TOASTed (not sent), or its value in text format.
struct TupleValue {
    enum class Kind : std::uint8_t { Null, UnchangedToast, Text };
    Kind kind = Kind::Null;
    std::string text;
};
using TupleData = std::vector<TupleValue>;

struct BeginMessage {
    Lsn final_lsn = 0;                // the LSN of the transaction's commit record
    std::int64_t commit_time_us = 0;  // microseconds since 2000-01-01 UTC
    std::uint32_t xid = 0;
};

struct CommitMessage {
    std::uint8_t flags = 0;
    Lsn commit_lsn = 0;
    Lsn end_lsn = 0;  // the end of the commit record: where a restart resumes after it
    std::int64_t commit_time_us = 0;
};

struct RelationColumn {
    bool part_of_key = false;  // flag 1: part of the replica identity
    std::string name;
    Oid type_oid = 0;
    std::int32_t type_modifier = -1;  // atttypmod
};

struct RelationMessage {
    Oid relation_oid = 0;
    std::string namespace_name;  // empty for pg_catalog
    std::string relation_name;
    char replica_identity = 'd';  // d default, n nothing, f full, i index
    std::vector<RelationColumn> columns;
};

struct TypeMessage {
    Oid type_oid = 0;
    std::string namespace_name;
    std::string type_name;
};

struct InsertMessage {
    Oid relation_oid = 0;
    TupleData new_tuple;
};

struct UpdateMessage {
    Oid relation_oid = 0;
    /// 'K': the old key columns (replica identity changed); 'O': the whole old row (REPLICA
    /// IDENTITY FULL); absent when neither was sent.
    std::optional<char> old_kind;
    TupleData old_tuple;
    TupleData new_tuple;
};

struct DeleteMessage {
    Oid relation_oid = 0;
    char old_kind = 'K';  // 'K' key columns only, 'O' the whole old row
    TupleData old_tuple;
};

struct TruncateMessage {
    std::uint8_t options = 0;  // 1 CASCADE, 2 RESTART IDENTITY
    std::vector<Oid> relation_oids;
};

/// Origin ('O') and logical decoding messages ('M'): carried, not used.
struct OriginMessage {
    Lsn origin_lsn = 0;
    std::string name;
};
struct LogicalMessage {
    bool transactional = false;
    Lsn lsn = 0;
    std::string prefix;
    std::string content;
};

using PgoutputMessage =
    std::variant<BeginMessage, CommitMessage, RelationMessage, TypeMessage, InsertMessage,
                 UpdateMessage, DeleteMessage, TruncateMessage, OriginMessage, LogicalMessage>;

/// Decodes one pgoutput message. Throws PgoutputError on a truncated message, an unknown message
/// type, an unknown tuple column kind, or bytes left over.
PgoutputMessage decode_pgoutput(std::string_view bytes);

/// 'B', 'C', ... of a decoded message, for error texts.
char message_tag(const PgoutputMessage& message);

}  // namespace cdcd::postgres
