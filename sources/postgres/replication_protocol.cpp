#include "sources/postgres/replication_protocol.h"

#include <charconv>
#include <chrono>
#include <cstdio>

#include "sources/postgres/byte_reader.h"

namespace cdcd::postgres {

namespace {

// Seconds from 1970-01-01 to 2000-01-01.
constexpr std::int64_t kPostgresEpochUnixSeconds = 946'684'800;

void put_u64(std::string& out, std::uint64_t v) {
    for (int shift = 56; shift >= 0; shift -= 8)
        out.push_back(static_cast<char>((v >> shift) & 0xFFU));
}

}  // namespace

ServerCopyMessage decode_server_copy(std::string_view bytes) {
    ByteReader r(bytes, "replication message");
    const char tag = static_cast<char>(r.u8());
    if (tag == 'w') {
        XLogData m;
        m.wal_start = r.u64();
        m.wal_end = r.u64();
        m.send_time_us = r.i64();
        m.payload = r.take(r.remaining());
        return m;
    }
    if (tag == 'k') {
        PrimaryKeepalive m;
        m.wal_end = r.u64();
        m.send_time_us = r.i64();
        m.reply_requested = r.u8() != 0;
        if (r.remaining() != 0) r.fail("bytes left after a keepalive");
        return m;
    }
    r.fail(std::string("unknown replication message type '") + tag + "'");
}

std::string standby_status_update(Lsn received, Lsn flushed, std::int64_t now_us,
                                  bool reply_requested) {
    std::string out;
    out.reserve(34);
    out.push_back('r');
    put_u64(out, received);
    put_u64(out, flushed);
    put_u64(out, flushed);  // applied: a logical client applies what it has flushed
    put_u64(out, static_cast<std::uint64_t>(now_us));
    out.push_back(reply_requested ? 1 : 0);
    return out;
}

std::int64_t to_postgres_epoch_us(std::int64_t unix_us) {
    return unix_us - kPostgresEpochUnixSeconds * 1'000'000;
}

std::int64_t unix_ms_of(std::int64_t postgres_epoch_us) {
    const std::int64_t ms = postgres_epoch_us / 1000 - (postgres_epoch_us % 1000 < 0 ? 1 : 0);
    return ms + kPostgresEpochUnixSeconds * 1000;
}

std::int64_t postgres_epoch_now_us() {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return to_postgres_epoch_us(std::chrono::duration_cast<std::chrono::microseconds>(now).count());
}

std::string format_lsn(Lsn lsn) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%X/%X", static_cast<unsigned>(lsn >> 32),
                  static_cast<unsigned>(lsn & 0xFFFFFFFFU));
    return buf;
}

std::optional<Lsn> parse_lsn(std::string_view text) {
    const std::size_t slash = text.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == text.size())
        return std::nullopt;
    std::uint32_t hi = 0, lo = 0;
    const char* end = text.data() + slash;
    auto [p1, e1] = std::from_chars(text.data(), end, hi, 16);
    if (e1 != std::errc() || p1 != end) return std::nullopt;
    const char* end2 = text.data() + text.size();
    auto [p2, e2] = std::from_chars(end + 1, end2, lo, 16);
    if (e2 != std::errc() || p2 != end2) return std::nullopt;
    return (static_cast<Lsn>(hi) << 32) | lo;
}

}  // namespace cdcd::postgres
