// Writing projected rows: the bytes RowBuilder would produce field by field (NULL fields have a
// zero slot, the variable part holds the fields' bytes in field order), written straight from the
// input row and the computed values, every byte once.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "pipeline/transform/compile/projection.h"
#include "pipeline/util/prefetch.h"
#include "pipeline/util/string_size.h"

namespace cdcd::transform {

namespace {

inline std::uint64_t load64(const char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline void store64(char* p, std::uint64_t v) {
    std::memcpy(p, &v, 8);
}

// Bytes a non-NULL value of a class other than Bytes adds to the variable part.
constexpr std::size_t fixed_variable_size(ValueClass slot) {
    switch (slot) {
        case ValueClass::Decimal:
        case ValueClass::Zoned:
            return 16;
        case ValueClass::Timestamp:
            return 12;
        default:
            return 0;
    }
}

// Bytes a non-NULL computed value of this class adds to the variable part.
inline std::size_t variable_size(ValueClass slot, const Datum& d) {
    return slot == ValueClass::Bytes ? d.s.size() : fixed_variable_size(slot);
}

constexpr std::size_t kSpareFetchAhead = 4;
constexpr std::size_t kSpareFetchBytes = 256;

// A buffer of `size` bytes for a row: the last spare when it is large enough.
std::string take_buffer(std::vector<std::string>* spare, std::size_t size) {
    std::string buf;
    if (spare) {
        // A spare too small for this row (rows grew) is dropped, not left to block the others.
        while (!spare->empty() && spare->back().capacity() < size) spare->pop_back();
        if (!spare->empty()) {
            buf = std::move(spare->back());
            spare->pop_back();
            // The spares were last written on another thread: fetch the lines of the one four
            // takes later, and the string a few entries further down, whose pointer that will
            // need.
            std::size_t left = spare->size();
            if (left >= kSpareFetchAhead) {
                const std::string& later = (*spare)[left - kSpareFetchAhead];
                prefetch_bytes_for_write(later.data(),
                                         std::min(later.capacity(), kSpareFetchBytes));
            }
            if (left > 8) prefetch_for_read(&(*spare)[left - 9]);
        } else {
            // None left: a new buffer with room for somewhat larger rows, to serve as a spare too.
            buf.reserve((size * 9 / 8 + 15) & ~std::size_t{15});
        }
    }
    // Within the spare's capacity: no allocation, and no fill when it was as large before.
    buf.resize(size);
    return buf;
}

// Writes one field of a row being assembled.
struct RowWriter {
    char* base;
    char* nulls;
    char* slots;
    std::size_t cursor;  // where the next variable-length bytes go

    void set_null(std::size_t j) {
        std::uint64_t w = load64(nulls + (j / 64) * 8);
        store64(nulls + (j / 64) * 8, w | (1ULL << (j % 64)));
        store64(slots + j * 8, 0);
    }
    void put_bytes(std::size_t j, const void* data, std::size_t n) {
        store64(slots + j * 8, (static_cast<std::uint64_t>(cursor) << 32) | n);
        copy_bytes(base + cursor, static_cast<const char*>(data), n);
        cursor += n;
    }
    [[gnu::always_inline]] void put_value(std::size_t j, ValueClass slot, const Datum& d) {
        switch (slot) {
            case ValueClass::Long:
                store64(slots + j * 8, static_cast<std::uint64_t>(d.i));
                break;
            case ValueClass::Double:
                std::memcpy(slots + j * 8, &d.d, 8);
                break;
            case ValueClass::Bytes:
                put_bytes(j, d.s.data(), d.s.size());
                break;
            case ValueClass::Decimal:
                put_bytes(j, &d.dec, 16);
                break;
            case ValueClass::Timestamp: {
                char ts[12];
                std::memcpy(ts, &d.i, 8);
                std::memcpy(ts + 8, &d.nanos, 4);
                put_bytes(j, ts, 12);
                break;
            }
            case ValueClass::Zoned: {
                char ts[16];
                std::memcpy(ts, &d.i, 8);
                std::memcpy(ts + 8, &d.nanos, 4);
                std::memcpy(ts + 12, &d.off, 4);
                put_bytes(j, ts, 16);
                break;
            }
        }
    }
};

}  // namespace

static_assert(std::is_trivially_destructible_v<Datum>);

std::size_t BoundProjection::block_size(RowView in) const {
    if (prefix_ == 0 || in.arity() != upstream_arity_) return kNoBlock;
    // One block when the prefix's variable fields are laid out back to back in field order,
    // covering the input's whole variable part.
    const std::string_view in_bytes = in.bytes();
    const std::size_t in_words = (upstream_arity_ + 63) / 64;
    const std::size_t in_fixed = RowView::fixed_size(upstream_arity_);
    std::size_t cursor = in_fixed;
    for (std::uint32_t j : prefix_variable_) {
        if (in.is_null(j)) continue;
        std::uint64_t ref = load64(in_bytes.data() + 8 + in_words * 8 + j * 8);
        if ((ref >> 32) != cursor) return kNoBlock;
        cursor += static_cast<std::uint32_t>(ref);
    }
    if (cursor != in_bytes.size()) return kNoBlock;
    return in_bytes.size() - in_fixed;
}

std::size_t BoundProjection::copy_block(RowView in, char* base, std::size_t fixed) const {
    const std::string_view in_bytes = in.bytes();
    const std::size_t in_words = (upstream_arity_ + 63) / 64;
    const std::size_t in_fixed = RowView::fixed_size(upstream_arity_);
    char* nulls = base + 8;
    char* slots = nulls + ((fields_.size() + 63) / 64) * 8;
    // NULL words of the prefix (bits past the input's arity are zero), slots, variable part.
    const char* in_nulls = in_bytes.data() + 8;
    for (std::size_t w = 0; w < in_words; ++w) {
        std::uint64_t word = load64(in_nulls + w * 8);
        std::size_t bits = std::min<std::size_t>(64, prefix_ - w * 64);
        if (bits < 64) word &= (1ULL << bits) - 1;
        store64(nulls + w * 8, word);
    }
    std::memcpy(slots, in_bytes.data() + 8 + in_words * 8, prefix_ * 8);
    const std::uint64_t shift = static_cast<std::uint64_t>(fixed - in_fixed) << 32;
    for (std::uint32_t j : prefix_variable_)
        if (!in.is_null(j)) store64(slots + j * 8, load64(slots + j * 8) + shift);
    for (std::size_t w = 0; w < in_words; ++w) {  // a NULL field's slot is zero
        for (std::uint64_t word = load64(nulls + w * 8); word != 0; word &= word - 1)
            store64(slots + (w * 64 + static_cast<std::size_t>(__builtin_ctzll(word))) * 8, 0);
    }
    const std::size_t var = in_bytes.size() - in_fixed;
    if (var) std::memcpy(base + fixed, in_bytes.data() + in_fixed, var);
    return fixed + var;
}

Row BoundProjection::assemble(RowView in, const Datum* values, std::size_t stride,
                              std::vector<std::string>* spare) const {
    const std::size_t arity = fields_.size();
    const std::size_t words = (arity + 63) / 64;
    const std::size_t fixed = RowView::fixed_size(arity);

    // 1. The size of the variable part.
    const std::size_t block = block_size(in);
    const std::size_t start = block == kNoBlock ? 0 : prefix_;
    std::size_t var = block == kNoBlock ? 0 : block;
    for (std::uint32_t j : copied_variable_) {
        if (j < start) continue;
        auto from = static_cast<std::size_t>(fields_[j].copy_from);
        if (!in.is_null(from)) var += in.get_bytes(from).size();
    }
    for (const SizedValue& sized : computed_sized_) {
        const Datum& d = values[sized.value * stride];
        if (!d.null) var += variable_size(sized.slot, d);
    }
    if (fixed + var > 0xFFFFFFFFULL) throw std::length_error("row larger than 4 GiB");

    // 2. Header, NULL bits and slots, then the fields.
    std::string buf = take_buffer(spare, fixed + var);
    char* base = buf.data();
    store64(base, arity);  // arity, then four unused bytes that are zero
    RowWriter w{base, base + 8, base + 8 + words * 8, fixed};
    std::memset(w.nulls, 0, words * 8);
    if (block != kNoBlock) w.cursor = copy_block(in, base, fixed);
    for (std::size_t j = start; j < arity; ++j) {
        const OutField& f = fields_[j];
        if (f.copy_from >= 0) {
            auto from = static_cast<std::size_t>(f.copy_from);
            if (in.is_null(from)) {
                w.set_null(j);
            } else if (f.variable) {
                auto b = in.get_bytes(from);
                w.put_bytes(j, b.data(), b.size());
            } else {
                store64(w.slots + j * 8, static_cast<std::uint64_t>(in.get_long(from)));
            }
            continue;
        }
        const Datum& d = values[f.value * stride];
        if (d.null)
            w.set_null(j);
        else
            w.put_value(j, f.slot, d);
    }
    return Row(std::move(buf));
}

// Compacting: the kept fields' variable bytes move to where the ones before them end, from the
// output's fixed part on, and the computed fields' bytes follow them. A field's move is never
// larger than the one before it (the kept bytes lie in field order, with gaps where dropped
// fields were), so those that move up come first: the others move down in field order, then
// those move up in reverse order, and no move overwrites bytes still to be moved. The NULL bits
// and slots, read first, are then written anew.
std::size_t BoundProjection::compact_size(const std::string& own, Datum* values, std::size_t stride,
                                          Arena& arena) const {
    if (!compacts_ || own.size() < in_fixed_) return 0;
    std::uint32_t arity;
    std::memcpy(&arity, own.data(), 4);
    if (arity != upstream_arity_) return 0;
    const char* const nulls = own.data() + 8;
    const char* const slots = nulls + ((upstream_arity_ + 63) / 64) * 8;
    std::size_t end = in_fixed_;  // where the last field read ends
    std::size_t size = out_fixed_;
    const OutField* const fields = fields_.data();
    const std::size_t kept = kept_;
    for (std::size_t i = 0; i < kept; ++i) {
        const OutField& f = fields[i];
        if (!f.variable) continue;
        const auto j = static_cast<std::size_t>(f.copy_from);
        if ((load64(nulls + (j / 64) * 8) >> (j % 64)) & 1) continue;
        const std::uint64_t ref = load64(slots + j * 8);
        const std::size_t at = ref >> 32, n = static_cast<std::uint32_t>(ref);
        if (at < end || at > own.size() || n > own.size() - at) return 0;
        end = at + n;
        size += n;
    }
    if (computed_.empty()) return size;  // never larger than the input row
    size += computed_size(own, values, stride, arena);
    return size > own.capacity() || size > 0xFFFFFFFFULL ? 0 : size;
}

std::size_t BoundProjection::computed_size(const std::string& own, Datum* values,
                                           std::size_t stride, Arena& arena) const {
    std::size_t size = 0;
    const char* const begin = own.data();
    const char* const stop = begin + own.size();
    for (const SizedValue& sized : computed_sized_) {
        Datum& d = values[sized.value * stride];
        if (d.null) continue;
        if (sized.slot != ValueClass::Bytes) {
            size += fixed_variable_size(sized.slot);
            continue;
        }
        if (!d.s.empty() && d.s.data() < stop && d.s.data() + d.s.size() > begin)
            d.s = arena.copy(d.s);
        size += d.s.size();
    }
    return size;
}

void BoundProjection::compact_in_place(std::string& own, std::size_t size, const Datum* values,
                                       std::size_t stride) const noexcept {
    // Within its capacity, as large as either row while the bytes move.
    if (size > own.size()) set_size_within_capacity(own, size);
    char* const base = own.data();
    const char* const in_nulls = base + 8;
    const char* const in_slots = in_nulls + ((upstream_arity_ + 63) / 64) * 8;
    // The plan in locals: the row's bytes are written through a char*, which may alias this
    // object, so its vectors' bounds would be read again after every field written.
    const OutField* const fields = fields_.data();
    std::uint64_t* const kept_slots = kept_slots_.data();
    std::uint64_t* const kept_moved = kept_moved_.data();
    std::uint8_t* const kept_nulls = kept_nulls_.data();
    const std::size_t kept = kept_;
    const std::size_t arity = fields_.size();
    for (std::size_t i = 0; i < kept; ++i) {
        const auto j = static_cast<std::size_t>(fields[i].copy_from);
        kept_nulls[i] =
            static_cast<std::uint8_t>((load64(in_nulls + (j / 64) * 8) >> (j % 64)) & 1);
        kept_slots[i] = load64(in_slots + j * 8);
    }
    const std::size_t words = (arity + 63) / 64;
    char* const nulls = base + 8;
    char* const slots = nulls + words * 8;
    std::size_t cursor = out_fixed_;
    if (out_fixed_ <= in_fixed_) {
        // The fixed part does not grow: every field moves down (or stays), in field order.
        for (std::size_t i = 0; i < kept; ++i) {
            if (kept_nulls[i] || !fields[i].variable) continue;
            const std::uint64_t ref = kept_slots[i];
            const std::size_t n = static_cast<std::uint32_t>(ref);
            if (n) std::memmove(base + cursor, base + (ref >> 32), n);
            kept_slots[i] = (static_cast<std::uint64_t>(cursor) << 32) | n;
            cursor += n;
        }
    } else {
        for (std::size_t i = 0; i < kept; ++i) {  // where each kept field's bytes go
            kept_moved[i] = kept_slots[i];
            if (kept_nulls[i] || !fields[i].variable) continue;
            const std::size_t n = static_cast<std::uint32_t>(kept_slots[i]);
            kept_moved[i] = (static_cast<std::uint64_t>(cursor) << 32) | n;
            cursor += n;
        }
        auto move = [&](std::size_t i, bool up) {
            const std::size_t from = kept_slots[i] >> 32, to = kept_moved[i] >> 32;
            const std::size_t n = static_cast<std::uint32_t>(kept_slots[i]);
            if (n != 0 && to != from && (to > from) == up) std::memmove(base + to, base + from, n);
        };
        for (std::size_t i = 0; i < kept; ++i) move(i, false);  // down, in field order
        for (std::size_t i = kept; i-- > 0;) move(i, true);     // then up, last first
        for (std::size_t i = 0; i < kept; ++i) kept_slots[i] = kept_moved[i];
    }
    store64(base, arity);  // the arity, then four unused bytes that are zero
    for (std::size_t w = 0; w < words; ++w) store64(nulls + w * 8, 0);
    for (std::size_t i = 0; i < kept; ++i) {
        if (kept_nulls[i]) {
            store64(nulls + (i / 64) * 8, load64(nulls + (i / 64) * 8) | (1ULL << (i % 64)));
            store64(slots + i * 8, 0);  // a NULL field's slot is zero
        } else {
            store64(slots + i * 8, kept_slots[i]);
        }
    }
    if (!computed_.empty()) write_computed(base, cursor, values, stride);
    set_size_within_capacity(own, size);
}

void BoundProjection::write_computed(char* base, std::size_t cursor, const Datum* values,
                                     std::size_t stride) const noexcept {
    // Their bytes after the kept ones (none points into the row: compact_size copied those).
    char* const nulls = base + 8;
    RowWriter w{base, nulls, nulls + ((fields_.size() + 63) / 64) * 8, cursor};
    const ComputedField* const computed = computed_.data();
    const std::size_t computed_count = computed_.size();
    for (std::size_t k = 0; k < computed_count; ++k) {
        const Datum& d = values[k * stride];
        if (d.null)
            w.set_null(computed[k].field);
        else
            w.put_value(computed[k].field, computed[k].slot, d);
    }
}

// In place, the row is rewritten from its own bytes: the variable part moves up by the size of
// the new slots, the computed fields' bytes follow it. Everything a computed value may point
// into (the row's variable part, constants, node state, the arena) outlives the rewrite, and a
// value pointing into the moved bytes is read where they moved to.
namespace {

// Marks a row whose computed string points into its input's fixed part: those bytes would be
// overwritten before they are copied, so the row is not written in place. Sizes added to it keep
// it past any capacity.
constexpr std::size_t kPointsIntoFixed = std::size_t{1} << 62;

// Whether the bytes of `s` overlap [base, fixed_end).
inline bool overlaps(std::string_view s, const char* base, const char* fixed_end) {
    return s.data() < fixed_end && s.data() + s.size() > base;
}

}  // namespace

void BoundProjection::computed_bytes(const RowView* rows, const Datum* values, std::size_t n,
                                     std::size_t* bytes) const {
    std::fill(bytes, bytes + n, std::size_t{0});
    const std::size_t in_fixed = RowView::fixed_size(upstream_arity_);
    // A column at a time, so that each loop knows its value class.
    for (const SizedValue& sized : computed_sized_) {
        const Datum* column = values + sized.value * n;
        if (sized.slot != ValueClass::Bytes) {
            const std::size_t size = fixed_variable_size(sized.slot);
            for (std::size_t i = 0; i < n; ++i)
                if (!column[i].null) bytes[i] += size;
            continue;
        }
        for (std::size_t i = 0; i < n; ++i) {
            const Datum& d = column[i];
            if (d.null) continue;
            const char* base = rows[i].bytes().data();
            bytes[i] += d.s.size();
            if (overlaps(d.s, base, base + in_fixed)) bytes[i] |= kPointsIntoFixed;
        }
    }
}

std::size_t BoundProjection::in_place_size(const std::string& own,
                                           std::size_t computed_bytes) const {
    if (!in_place_) return 0;
    const std::size_t block = block_size(RowView(own));
    if (block == kNoBlock) return 0;
    const std::size_t size = RowView::fixed_size(fields_.size()) + block + computed_bytes;
    return size > own.capacity() || size > 0xFFFFFFFFULL ? 0 : size;
}

void BoundProjection::assemble_in_place(std::string& buf, std::size_t size, const Datum* values,
                                        std::size_t stride) const noexcept {
    const std::size_t arity = fields_.size();
    const std::size_t words = (arity + 63) / 64;
    const std::size_t in_fixed = RowView::fixed_size(upstream_arity_);
    const std::size_t fixed = RowView::fixed_size(arity);
    const std::size_t in_end = buf.size();
    const std::size_t block = in_end - in_fixed;
    const std::size_t shift = fixed - in_fixed;
    // Within its capacity: the bytes stay where they are, and every byte added is written below
    // (the moved part, the new slots, the computed fields' bytes), so none is zero-filled first.
    set_size_within_capacity(buf, size);
    char* base = buf.data();
    // 1. The input's variable part moves up past the new slots; computed strings that pointed
    //    into it follow it.
    if (shift != 0) std::memmove(base + fixed, base + in_fixed, block);
    // 2. The prefix's slots point at their moved bytes; NULL bits past the input's are clear.
    char* nulls = base + 8;
    char* slots = nulls + words * 8;
    for (std::uint32_t j : prefix_variable_)
        if (((load64(nulls + (j / 64) * 8) >> (j % 64)) & 1) == 0)
            store64(slots + j * 8, load64(slots + j * 8) + (shift << 32));
    if (upstream_arity_ % 64 != 0) {
        char* last = nulls + (upstream_arity_ / 64) * 8;
        store64(last, load64(last) & ((1ULL << (upstream_arity_ % 64)) - 1));
    }
    for (std::size_t wd = 0; wd < words; ++wd) {  // a NULL field's slot is zero
        for (std::uint64_t word = load64(nulls + wd * 8); word != 0; word &= word - 1)
            store64(slots + (wd * 64 + static_cast<std::size_t>(__builtin_ctzll(word))) * 8, 0);
    }
    // 3. The computed fields, their bytes after the moved ones.
    RowWriter w{base, nulls, slots, fixed + block};
    const char* moved_from = base + in_fixed;
    const char* moved_end = base + in_end;
    // The plan in locals: the row's bytes are written through a char*, which may alias this
    // object, so its vectors' bounds would be read again after every field written.
    const ComputedField* const computed = computed_.data();
    const std::size_t computed_count = computed_.size();
    for (std::size_t k = 0; k < computed_count; ++k) {
        const ComputedField& f = computed[k];
        const Datum& d = values[k * stride];
        if (d.null) {
            w.set_null(f.field);
        } else if (f.slot == ValueClass::Bytes && d.s.data() >= moved_from &&
                   d.s.data() < moved_end) {
            w.put_bytes(f.field, d.s.data() + shift, d.s.size());
        } else {
            w.put_value(f.field, f.slot, d);
        }
    }
    store64(base, arity);
}

}  // namespace cdcd::transform
