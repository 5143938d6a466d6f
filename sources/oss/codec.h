#pragma once
// Varint/fixed-width byte writer and reader for the checkpointed state.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cdcd::oss {

class StateError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class ByteWriter {
  public:
    void varint(std::uint64_t v) {
        while (v >= 0x80) {
            out_.push_back(static_cast<char>((v & 0x7F) | 0x80));
            v >>= 7;
        }
        out_.push_back(static_cast<char>(v));
    }
    void svarint(std::int64_t v) {
        varint((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
    }
    void fixed64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
    }
    void bytes(std::string_view s) {
        varint(s.size());
        out_.append(s);
    }
    void raw(std::string_view s) { out_.append(s); }
    std::string& str() { return out_; }

  private:
    std::string out_;
};

class ByteReader {
  public:
    explicit ByteReader(std::string_view in) : in_(in) {}
    std::uint64_t varint() {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos_ >= in_.size()) throw StateError("oss-cdc state: truncated");
            auto b = static_cast<unsigned char>(in_[pos_++]);
            v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
            if (!(b & 0x80)) return v;
        }
        throw StateError("oss-cdc state: bad varint");
    }
    std::int64_t svarint() {
        std::uint64_t u = varint();
        return static_cast<std::int64_t>((u >> 1) ^ (~(u & 1) + 1));
    }
    std::uint64_t fixed64() {
        if (in_.size() - pos_ < 8) throw StateError("oss-cdc state: truncated");
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i)
            v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in_[pos_ + i])) << (8 * i);
        pos_ += 8;
        return v;
    }
    std::string_view raw(std::size_t n) {
        if (in_.size() - pos_ < n) throw StateError("oss-cdc state: truncated");
        auto s = in_.substr(pos_, n);
        pos_ += n;
        return s;
    }
    std::string bytes() { return std::string(raw(varint())); }
    bool done() const { return pos_ == in_.size(); }
    std::size_t remaining() const { return in_.size() - pos_; }

  private:
    std::string_view in_;
    std::size_t pos_ = 0;
};

}  // namespace cdcd::oss
