#include "pipeline/data/row.h"

#include <stdexcept>

#include "pipeline/data/row_buffer_pool.h"
#include "pipeline/util/string_size.h"

namespace cdcd {

RowView RowView::get_map_keys(std::size_t i) const {
    auto b = get_bytes(i);
    auto keys_size = load_at<std::uint32_t>(b);
    return RowView(b.substr(4, keys_size));
}

RowView RowView::get_map_values(std::size_t i) const {
    auto b = get_bytes(i);
    auto keys_size = load_at<std::uint32_t>(b);
    return RowView(b.substr(4 + keys_size));
}

RowBuilder::RowBuilder(std::size_t arity, std::size_t variable_hint)
    : arity_(arity), words_((arity + 63) / 64) {
    std::size_t fixed = RowView::fixed_size(arity);
    if (!RowBufferPool::this_thread().take(buf_, fixed + variable_hint))
        buf_.reserve(fixed + variable_hint);
    // The header, NULL bits and slots, zero (a NULL field's slot is zero) until written below.
    set_size_within_capacity(buf_, fixed);
    std::memset(buf_.data(), 0, fixed);
    auto a = static_cast<std::uint32_t>(arity);
    std::memcpy(buf_.data(), &a, 4);
    // Every field starts NULL.
    for (std::size_t w = 0; w < words_; ++w) {
        std::size_t bits = std::min<std::size_t>(64, arity - w * 64);
        std::uint64_t mask = bits == 64 ? ~0ULL : ((1ULL << bits) - 1);
        std::memcpy(buf_.data() + 8 + w * 8, &mask, 8);
    }
}

void RowBuilder::clear_null(std::size_t i) {
    if (i >= arity_) throw std::out_of_range("RowBuilder field index out of range");
    std::uint64_t word;
    std::memcpy(&word, buf_.data() + 8 + (i / 64) * 8, 8);
    word &= ~(1ULL << (i % 64));
    std::memcpy(buf_.data() + 8 + (i / 64) * 8, &word, 8);
}

RowBuilder& RowBuilder::set_null(std::size_t i) {
    if (i >= arity_) throw std::out_of_range("RowBuilder field index out of range");
    std::uint64_t word;
    std::memcpy(&word, buf_.data() + 8 + (i / 64) * 8, 8);
    word |= 1ULL << (i % 64);
    std::memcpy(buf_.data() + 8 + (i / 64) * 8, &word, 8);
    return *this;
}

RowBuilder& RowBuilder::set_long(std::size_t i, std::int64_t v) {
    clear_null(i);
    std::memcpy(buf_.data() + slot(i), &v, 8);
    return *this;
}

RowBuilder& RowBuilder::set_double(std::size_t i, double v) {
    clear_null(i);
    std::memcpy(buf_.data() + slot(i), &v, 8);
    return *this;
}

char* RowBuilder::reserve_bytes(std::size_t i, std::size_t n) {
    clear_null(i);
    if (buf_.size() + n > 0xFFFFFFFFULL) throw std::length_error("row larger than 4 GiB");
    auto offset = static_cast<std::uint64_t>(buf_.size());
    std::uint64_t ref = (offset << 32) | static_cast<std::uint32_t>(n);
    std::memcpy(buf_.data() + slot(i), &ref, 8);
    return append_uninitialized(buf_, n);  // the caller writes all n bytes
}

RowBuilder& RowBuilder::set_bytes(std::size_t i, std::string_view v) {
    char* dst = reserve_bytes(i, v.size());
    if (!v.empty()) std::memcpy(dst, v.data(), v.size());
    return *this;
}

RowBuilder& RowBuilder::set_decimal(std::size_t i, Decimal v) {
    std::memcpy(reserve_bytes(i, sizeof(v.unscaled)), &v.unscaled, sizeof(v.unscaled));
    return *this;
}

RowBuilder& RowBuilder::set_timestamp(std::size_t i, Timestamp v) {
    char* dst = reserve_bytes(i, 12);
    std::memcpy(dst, &v.millis, 8);
    std::memcpy(dst + 8, &v.nanos_of_milli, 4);
    return *this;
}

RowBuilder& RowBuilder::set_zoned_timestamp(std::size_t i, ZonedTimestamp v) {
    char* dst = reserve_bytes(i, 16);
    std::memcpy(dst, &v.instant.millis, 8);
    std::memcpy(dst + 8, &v.instant.nanos_of_milli, 4);
    std::memcpy(dst + 12, &v.offset_seconds, 4);
    return *this;
}

RowBuilder& RowBuilder::set_map(std::size_t i, RowView keys, RowView values) {
    auto keys_size = static_cast<std::uint32_t>(keys.bytes().size());
    char* dst = reserve_bytes(i, 4 + keys.bytes().size() + values.bytes().size());
    std::memcpy(dst, &keys_size, 4);
    std::memcpy(dst + 4, keys.bytes().data(), keys.bytes().size());
    std::memcpy(dst + 4 + keys_size, values.bytes().data(), values.bytes().size());
    return *this;
}

RowBuilder& RowBuilder::copy_field(std::size_t i, RowView source, std::size_t from, bool variable) {
    if (source.is_null(from)) return set_null(i);
    if (variable) return set_bytes(i, source.get_bytes(from));
    return set_long(i, source.get_long(from));
}

Row RowBuilder::build() && {
    return Row(std::move(buf_));
}

}  // namespace cdcd
