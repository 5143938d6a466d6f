#pragma once
// Builds pgoutput and replication protocol messages byte by byte, as PostgreSQL writes them
// (big-endian integers, NUL-terminated strings), for the decoder tests.
#include <cstdint>
#include <string>
#include <string_view>

namespace cdcd::postgres::testing {

class Bytes {
  public:
    Bytes& u8(std::uint8_t v) {
        s_.push_back(static_cast<char>(v));
        return *this;
    }
    Bytes& tag(char c) { return u8(static_cast<std::uint8_t>(c)); }
    Bytes& u16(std::uint16_t v) { return be(v, 2); }
    Bytes& u32(std::uint32_t v) { return be(v, 4); }
    Bytes& u64(std::uint64_t v) { return be(v, 8); }
    Bytes& str(std::string_view v) {
        s_.append(v);
        s_.push_back('\0');
        return *this;
    }
    /// A TupleData column in text format.
    Bytes& text(std::string_view v) {
        tag('t').u32(static_cast<std::uint32_t>(v.size()));
        s_.append(v);
        return *this;
    }
    Bytes& null() { return tag('n'); }
    Bytes& toast() { return tag('u'); }
    const std::string& str() const { return s_; }
    operator std::string_view() const { return s_; }  // NOLINT(google-explicit-constructor)

  private:
    Bytes& be(std::uint64_t v, int n) {
        for (int i = n - 1; i >= 0; --i) s_.push_back(static_cast<char>((v >> (8 * i)) & 0xFFU));
        return *this;
    }
    std::string s_;
};

/// A Relation message of relation `oid` in `ns`.`name`, identity 'd', with (name, type oid,
/// typmod, key) columns.
struct RelationColumnSpec {
    const char* name;
    std::uint32_t type;
    std::int32_t typmod;
    bool key;
};
inline std::string relation(std::uint32_t oid, const char* ns, const char* name,
                            std::initializer_list<RelationColumnSpec> columns,
                            char identity = 'd') {
    Bytes b;
    b.tag('R').u32(oid).str(ns).str(name).tag(identity).u16(
        static_cast<std::uint16_t>(columns.size()));
    for (const auto& c : columns)
        b.u8(c.key ? 1 : 0).str(c.name).u32(c.type).u32(static_cast<std::uint32_t>(c.typmod));
    return b.str();
}

}  // namespace cdcd::postgres::testing
