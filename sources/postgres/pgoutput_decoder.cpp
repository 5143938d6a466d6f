#include "sources/postgres/pgoutput_decoder.h"

#include "sources/postgres/byte_reader.h"

namespace cdcd::postgres {

namespace {

// A relation has at most 1664 columns (MaxTupleAttributeNumber); more is a malformed message,
// refused before anything is allocated for it.
constexpr std::uint16_t kMaxColumns = 1664;

TupleData read_tuple(ByteReader& r) {
    const std::uint16_t n = r.u16();
    if (n > kMaxColumns) r.fail("tuple of " + std::to_string(n) + " columns");
    TupleData tuple(n);
    for (TupleValue& value : tuple) {
        const char kind = static_cast<char>(r.u8());
        switch (kind) {
            case 'n':
                value.kind = TupleValue::Kind::Null;
                break;
            case 'u':
                value.kind = TupleValue::Kind::UnchangedToast;
                break;
            case 't': {
                value.kind = TupleValue::Kind::Text;
                const std::uint32_t length = r.u32();
                value.text = std::string(r.take(length));
                break;
            }
            case 'b':
                // Only requested with the `binary` option, which cdcd never sets.
                r.fail("binary tuple value (cdcd asks for text format)");
            default:
                r.fail(std::string("unknown tuple value kind '") + kind + "'");
        }
    }
    return tuple;
}

char tuple_kind(ByteReader& r) {
    return static_cast<char>(r.u8());
}

PgoutputMessage decode_body(char tag, ByteReader& r) {
    switch (tag) {
        case 'B': {
            BeginMessage m;
            m.final_lsn = r.u64();
            m.commit_time_us = r.i64();
            m.xid = r.u32();
            return m;
        }
        case 'C': {
            CommitMessage m;
            m.flags = r.u8();
            m.commit_lsn = r.u64();
            m.end_lsn = r.u64();
            m.commit_time_us = r.i64();
            return m;
        }
        case 'O': {
            OriginMessage m;
            m.origin_lsn = r.u64();
            m.name = r.cstring();
            return m;
        }
        case 'R': {
            RelationMessage m;
            m.relation_oid = r.u32();
            m.namespace_name = r.cstring();
            m.relation_name = r.cstring();
            m.replica_identity = static_cast<char>(r.u8());
            const std::uint16_t n = r.u16();
            if (n > kMaxColumns) r.fail("relation of " + std::to_string(n) + " columns");
            m.columns.resize(n);
            for (RelationColumn& c : m.columns) {
                c.part_of_key = (r.u8() & 1U) != 0;
                c.name = r.cstring();
                c.type_oid = r.u32();
                c.type_modifier = r.i32();
            }
            return m;
        }
        case 'Y': {
            TypeMessage m;
            m.type_oid = r.u32();
            m.namespace_name = r.cstring();
            m.type_name = r.cstring();
            return m;
        }
        case 'I': {
            InsertMessage m;
            m.relation_oid = r.u32();
            if (char k = tuple_kind(r); k != 'N')
                r.fail(std::string("insert without its new tuple ('") + k + "')");
            m.new_tuple = read_tuple(r);
            return m;
        }
        case 'U': {
            UpdateMessage m;
            m.relation_oid = r.u32();
            char k = tuple_kind(r);
            if (k == 'K' || k == 'O') {
                m.old_kind = k;
                m.old_tuple = read_tuple(r);
                k = tuple_kind(r);
            }
            if (k != 'N') r.fail(std::string("update without its new tuple ('") + k + "')");
            m.new_tuple = read_tuple(r);
            return m;
        }
        case 'D': {
            DeleteMessage m;
            m.relation_oid = r.u32();
            const char k = tuple_kind(r);
            if (k != 'K' && k != 'O')
                r.fail(std::string("delete without its old tuple ('") + k + "')");
            m.old_kind = k;
            m.old_tuple = read_tuple(r);
            return m;
        }
        case 'T': {
            TruncateMessage m;
            const std::uint32_t n = r.u32();
            m.options = r.u8();
            // Each oid takes 4 bytes: a count beyond what is left is a malformed message.
            if (n > r.remaining() / 4) r.fail("truncate of " + std::to_string(n) + " relations");
            m.relation_oids.resize(n);
            for (Oid& oid : m.relation_oids) oid = r.u32();
            return m;
        }
        case 'M': {
            LogicalMessage m;
            m.transactional = (r.u8() & 1U) != 0;
            m.lsn = r.u64();
            m.prefix = r.cstring();
            const std::uint32_t length = r.u32();
            m.content = std::string(r.take(length));
            return m;
        }
        default:
            r.fail(std::string("unknown message type '") + tag + "'");
    }
}

}  // namespace

PgoutputMessage decode_pgoutput(std::string_view bytes) {
    ByteReader r(bytes, "pgoutput message");
    const char tag = static_cast<char>(r.u8());
    PgoutputMessage message = decode_body(tag, r);
    if (r.remaining() != 0)
        r.fail(std::to_string(r.remaining()) + " bytes left after message '" + tag + "'");
    return message;
}

char message_tag(const PgoutputMessage& message) {
    static constexpr char kTags[] = {'B', 'C', 'R', 'Y', 'I', 'U', 'D', 'T', 'O', 'M'};
    return kTags[message.index()];
}

}  // namespace cdcd::postgres
