// OVERLAY and POSITION over BINARY/VARBINARY, byte for byte as Flink CDC's
// StringFunctions.overlay(byte[], ...) and position(byte[], ...) (StringFunctions.java:298-364).
#include "pipeline/transform/fn_binary.h"

#include <algorithm>
#include <cstring>

namespace cdcd::transform {

namespace {

// Java's Number#intValue of a long: the low 32 bits.
std::int64_t int_value(std::int64_t v) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
}

void require_bytes(const CallSite& c, std::size_t i) {
    if (!c.type(i).is_binary() && !c.args[i]->null_literal)
        c.fail_arg(i, "Cannot apply '" + c.name + "' to arguments of type " + c.signature() +
                          ": argument " + std::to_string(i + 1) + " must be bytes like argument " +
                          std::to_string(2 - i));
}

Datum eval_binary_overlay(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum r = n.args[1]->eval(c);
    Datum from = n.args[2]->eval(c);
    if (s.null || r.null || from.null) return Datum{};
    std::int64_t len = static_cast<std::int64_t>(r.s.size());
    if (n.args.size() > 3) {
        Datum l = n.args[3]->eval(c);
        if (l.null) return l;
        len = int_value(l.i);
    }
    std::int64_t start = int_value(from.i);
    auto size = static_cast<std::int64_t>(s.s.size());
    if (start <= 0 || start > size) return s;
    std::int64_t prefix = start - 1;
    std::int64_t suffix_start = prefix + std::max<std::int64_t>(len, 0);
    std::int64_t suffix = len > 0 && suffix_start < size ? size - suffix_start : 0;
    std::size_t total =
        static_cast<std::size_t>(prefix) + r.s.size() + static_cast<std::size_t>(suffix);
    char* out = c.arena.alloc(total);
    std::memcpy(out, s.s.data(), static_cast<std::size_t>(prefix));
    if (!r.s.empty()) std::memcpy(out + prefix, r.s.data(), r.s.size());
    if (suffix > 0)
        std::memcpy(out + prefix + r.s.size(), s.s.data() + suffix_start,
                    static_cast<std::size_t>(suffix));
    return Datum::of_string(std::string_view(out, total));
}

Datum eval_binary_position(const Node& n, EvalContext& c) {
    Datum seek = n.args[0]->eval(c);
    Datum bytes = n.args[1]->eval(c);
    if (seek.null || bytes.null) return Datum{};
    std::int64_t from = 1;
    if (n.args.size() > 2) {
        Datum f = n.args[2]->eval(c);
        if (f.null) return f;
        from = int_value(f.i);
    }
    if (seek.s.empty()) return Datum::of_long(1);
    std::int64_t from_index = std::max<std::int64_t>(from - 1, 0);
    if (from_index > static_cast<std::int64_t>(bytes.s.size())) return Datum::of_long(0);
    auto p = bytes.s.find(seek.s, static_cast<std::size_t>(from_index));
    return Datum::of_long(p == std::string_view::npos ? 0 : static_cast<std::int64_t>(p) + 1);
}

}  // namespace

bool has_binary_operand(const CallSite& c) {
    for (std::size_t i = 0; i < 2 && i < c.args.size(); ++i)
        if (c.type(i).is_binary() && !c.args[i]->null_literal) return true;
    return false;
}

NodePtr build_binary_overlay(CallSite& c) {
    c.arity(3, 4);
    require_bytes(c, 0);
    require_bytes(c, 1);
    for (std::size_t i = 2; i < c.args.size(); ++i) c.require_integer(i);
    bool nullable = c.any_nullable();
    return make_node(eval_binary_overlay, DataType::bytes().with_nullable(nullable),
                     std::move(c.args));
}

NodePtr build_binary_position(CallSite& c) {
    c.arity(2, 3);
    require_bytes(c, 0);
    require_bytes(c, 1);
    if (c.args.size() > 2) c.require_integer(2);
    bool nullable = c.any_nullable();
    return make_node(eval_binary_position, DataType::int_().with_nullable(nullable),
                     std::move(c.args));
}

}  // namespace cdcd::transform
