// String functions: ||, CONCAT, CONCAT_WS, CHAR_LENGTH, UPPER, LOWER, TRIM family, SUBSTR,
// OVERLAY, POSITION/LOCATE/INSTR, LPAD/RPAD, REPLACE, REPEAT, LEFT/RIGHT, STARTSWITH/ENDSWITH,
// base64. Positions and lengths count characters (code points), not bytes.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>
#include <optional>

#include "pipeline/transform/compile/operand.h"
#include "pipeline/transform/functions/functions.h"
#include "pipeline/transform/functions/java_bytes.h"
#include "pipeline/transform/functions/java_case.h"
#include "pipeline/util/base64.h"
#include "pipeline/util/integer_text.h"

namespace cdcd::transform {

namespace {

bool is_cont(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Number.intValue() of an integer argument: Java narrows BIGINT to int by wrapping.
std::int32_t java_int(std::int64_t v) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
}

std::int64_t char_count(std::string_view s) {
    std::int64_t n = 0;
    for (char c : s) n += !is_cont(c);
    return n;
}

// Byte offset of character k (0-based), clamped to the end.
std::size_t byte_at(std::string_view s, std::int64_t k) {
    if (k <= 0) return 0;
    std::size_t i = 0;
    std::int64_t seen = 0;
    // ASCII runs have one byte per character: skipped eight bytes at a time.
    while (k - seen >= 8 && s.size() - i >= 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        if (w & 0x8080808080808080ULL) break;
        i += 8;
        seen += 8;
    }
    while (i < s.size()) {
        if (!is_cont(s[i])) {
            if (seen == k) return i;
            ++seen;
        }
        ++i;
    }
    return s.size();
}

// Whether the first n bytes of p are ASCII, eight at a time.
[[gnu::always_inline]] inline bool ascii_prefix(const char* p, std::size_t n) {
    std::size_t i = 0;
    std::uint64_t seen = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        seen |= w;
    }
    for (; i < n; ++i) seen |= static_cast<unsigned char>(p[i]);
    return (seen & 0x8080808080808080ULL) == 0;
}

// Inlined: called per row by SUBSTR's batch loop, where the call cost as much as the cut.
[[gnu::always_inline]] inline std::string_view substr_chars(std::string_view s, std::int64_t from,
                                                            std::int64_t count) {
    // Text that is ASCII up to the part's end has one byte per character (unless a stray
    // continuation byte follows, which byte_at counts with the character before it).
    if (from >= 0 && count >= 0) {
        const auto f = static_cast<std::uint64_t>(from), c = static_cast<std::uint64_t>(count);
        const std::size_t end = c >= s.size() || f >= s.size() - c ? s.size() : f + c;
        if (ascii_prefix(s.data(), end) && (end == s.size() || !is_cont(s[end]))) {
            const std::size_t b = std::min<std::uint64_t>(f, end);
            return s.substr(b, end - b);
        }
    }
    std::size_t b = byte_at(s, from);
    std::size_t e = count < 0 ? s.size() : byte_at(s, from + count);
    return s.substr(b, e - b);
}

DataType string_result(const std::vector<DataType>& types, bool nullable) {
    long long len = 0;
    bool all_char = true;
    for (const auto& t : types) {
        if (!is_text(t)) return DataType::string().with_nullable(nullable);
        len += t.length();
        all_char &= t.root() == TypeRoot::Char;
    }
    if (len >= DataType::kMaxLength) return DataType::string().with_nullable(nullable);
    return (all_char ? DataType::char_(static_cast<int>(len))
                     : DataType::varchar(static_cast<int>(len)))
        .with_nullable(nullable);
}

// What CONCAT writes for a NULL operand (Java's String.join("", ...) writes "null").
constexpr std::string_view kConcatNullText = "null";

std::string_view text_of(const Node& arg, const Datum& d, EvalContext& c) {
    if (d.null) return kConcatNullText;
    return to_java_string(d, arg.type, c.arena);
}

// How CONCAT reads each operand, decided when it is compiled (no type tests per row).
enum class ConcatKind : std::uint8_t { kIntColumn, kIntNode, kText, kBytesColumn, kOther };
struct ConcatPart {
    ConcatKind kind = ConcatKind::kOther;
    const Node* node = nullptr;
};
struct ConcatPlan {
    std::vector<ConcatPart> parts;
};

// Trivially constructible: the array of them on the stack costs nothing to set up.
struct ConcatValue {
    const char* data;  // text of non-integer operands
    std::size_t size;
    std::int64_t i;  // integer operands
    bool null;
    void set_text(std::string_view t) {
        data = t.data();
        size = t.size();
    }
};

// An integer operand's text at p (NULL's is kConcatNullText); its end.
inline char* write_int_operand(char* p, bool null, std::int64_t v) {
    if (!null) return write_int64(p, v);
    std::memcpy(p, kConcatNullText.data(), kConcatNullText.size());
    return p + kConcatNullText.size();
}

// The text written at [begin, end) of an alloc(bound) becomes the value; the arena gets the rest.
inline Datum concat_result(Arena& arena, char* begin, char* end, std::size_t bound) {
    const auto size = static_cast<std::size_t>(end - begin);
    arena.give_back(bound - size);
    return Datum::of_string(std::string_view(begin, size));
}

// CONCAT's text from its operands' values (bound: an upper bound of its length), written
// straight into the arena, which gets the unused rest of the bound back.
Datum write_concat(const std::vector<ConcatPart>& parts, const ConcatValue* v, std::size_t bound,
                   Arena& arena) {
    char* const begin = arena.alloc(bound);
    char* p = begin;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (parts[i].kind == ConcatKind::kIntColumn || parts[i].kind == ConcatKind::kIntNode) {
            p = write_int_operand(p, v[i].null, v[i].i);
        } else {
            copy_bytes(p, v[i].data, v[i].size);
            p += v[i].size;
        }
    }
    return concat_result(arena, begin, p, bound);
}

Datum eval_concat(const Node& n, EvalContext& c) {
    // Java String.join("", ...): a NULL operand becomes the text "null".
    const auto& parts = n.st<ConcatPlan>().parts;
    ConcatValue local[8];
    std::unique_ptr<ConcatValue[]> many;
    ConcatValue* v = local;
    if (parts.size() > 8) {
        many.reset(new ConcatValue[parts.size()]);
        v = many.get();
    }
    // Every operand in argument order (a failing one fails as it would alone), and an upper
    // bound of the length: integers are formatted in place later, at most 20 characters.
    std::size_t bound = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const Node& arg = *parts[i].node;
        switch (parts[i].kind) {
            case ConcatKind::kIntColumn:
                v[i].null = !fetch_long<kOperandColumn>(arg, c, v[i].i);
                bound += kMaxInt64Text;
                break;
            case ConcatKind::kIntNode:
                v[i].null = !fetch_long<kOperandNode>(arg, c, v[i].i);
                bound += kMaxInt64Text;
                break;
            case ConcatKind::kText:
                v[i].set_text(arg.constant.s);
                bound += v[i].size;
                break;
            case ConcatKind::kBytesColumn:
                v[i].set_text(c.row.is_null(arg.column) ? kConcatNullText
                                                        : c.row.get_bytes(arg.column));
                bound += v[i].size;
                break;
            case ConcatKind::kOther: {
                Datum d = arg.eval(c);
                v[i].set_text(text_of(arg, d, c));
                bound += v[i].size;
                break;
            }
        }
    }
    return write_concat(parts, v, bound, c.arena);
}

// An operand's text in a batch of CONCAT. Trivial, so an array of them is left uninitialized
// (one of std::string_view would zero its 16 KiB on every call).
struct ConcatText {
    const char* data;
    std::size_t size;
    void set(std::string_view v) {
        data = v.data();
        size = v.size();
    }
};

// CONCAT over a batch: operands that are expressions are evaluated a column at a time first;
// then each row's text is written by write_concat, as per row: straight into the arena,
// integers formatted in place, so every byte is written once. Every operand of every row is
// evaluated, as per row.
void batch_concat(const Node& n, BatchContext& b, Selection sel, Datum* out) {
    const auto& parts = n.st<ConcatPlan>().parts;
    constexpr std::size_t kMaxParts = 8;
    if (parts.size() > kMaxParts) {
        eval_rows(n, b, sel, out);
        return;
    }
    Arena& arena = b.c.arena;
    // The values of the integer operands that are expressions, a scratch column each for the
    // rest of this call; the other expressions' texts.
    std::optional<ScratchColumn> integer_columns[kMaxParts];
    Datum* values[kMaxParts] = {};
    ConcatText texts[kMaxParts][BatchRows::kMaxRows];  // kOther's text; left uninitialized
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const Node& arg = *parts[k].node;
        if (parts[k].kind == ConcatKind::kIntNode) {
            values[k] = integer_columns[k].emplace(b).get();
            eval_batch(arg, b, sel, values[k]);
        } else if (parts[k].kind == ConcatKind::kOther) {
            ScratchColumn column(b);
            eval_batch(arg, b, sel, column.get());
            for (std::uint32_t i : sel) texts[k][i].set(text_of(arg, column[i], b.c));
        }
    }
    // Integers and constant texts only: every row's text has the same bound, and each operand
    // is written as it is read, in one pass.
    // (Read into locals first: the text written through a char* could alias the plan's fields,
    // which would then be read again for every operand of every row.)
    struct FixedPart {
        ConcatKind kind;
        std::size_t column;     // kIntColumn
        std::string_view text;  // kText
    };
    FixedPart fixed_parts[kMaxParts];
    std::size_t fixed_bound = 0;
    bool fixed = true;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const Node& arg = *parts[k].node;
        fixed_parts[k] = {parts[k].kind, 0, {}};
        if (parts[k].kind == ConcatKind::kIntColumn)
            fixed_parts[k].column = static_cast<std::size_t>(arg.column);
        if (parts[k].kind == ConcatKind::kIntColumn || parts[k].kind == ConcatKind::kIntNode) {
            fixed_bound += kMaxInt64Text;
        } else if (parts[k].kind == ConcatKind::kText) {
            fixed_parts[k].text = arg.constant.s;
            fixed_bound += arg.constant.s.size();
        } else {
            fixed = false;
        }
    }
    if (fixed) {
        const std::size_t count = parts.size();
        for (std::uint32_t i : sel) {
            const RowView& row = b.rows.rows[i];
            char* const begin = arena.alloc(fixed_bound);
            char* p = begin;
            for (std::size_t k = 0; k < count; ++k) {
                const FixedPart& part = fixed_parts[k];
                if (part.kind == ConcatKind::kIntColumn) {
                    const bool null = row.is_null(part.column);
                    p = write_int_operand(p, null, null ? 0 : row.get_long(part.column));
                } else if (part.kind == ConcatKind::kIntNode) {
                    p = write_int_operand(p, values[k][i].null, values[k][i].i);
                } else {
                    copy_bytes(p, part.text.data(), part.text.size());
                    p += part.text.size();
                }
            }
            ::new (at(out, i)) Datum(concat_result(arena, begin, p, fixed_bound));
        }
        return;
    }
    // Each row's operands as eval_concat reads them, then its text, written as it writes it.
    ConcatValue v[kMaxParts];
    for (std::uint32_t i : sel) {
        const RowView& row = b.rows.rows[i];
        std::size_t bound = 0;
        for (std::size_t k = 0; k < parts.size(); ++k) {
            const Node& arg = *parts[k].node;
            switch (parts[k].kind) {
                case ConcatKind::kIntColumn: {
                    const auto column = static_cast<std::size_t>(arg.column);
                    v[k].null = row.is_null(column);
                    if (!v[k].null) v[k].i = row.get_long(column);
                    bound += kMaxInt64Text;
                    break;
                }
                case ConcatKind::kIntNode:
                    v[k].null = values[k][i].null;
                    v[k].i = values[k][i].i;
                    bound += kMaxInt64Text;
                    break;
                case ConcatKind::kText:
                    v[k].set_text(arg.constant.s);
                    bound += v[k].size;
                    break;
                case ConcatKind::kBytesColumn: {
                    const auto column = static_cast<std::size_t>(arg.column);
                    v[k].set_text(row.is_null(column) ? kConcatNullText : row.get_bytes(column));
                    bound += v[k].size;
                    break;
                }
                case ConcatKind::kOther:
                    v[k].set_text(std::string_view(texts[k][i].data, texts[k][i].size));
                    bound += v[k].size;
                    break;
            }
        }
        ::new (at(out, i)) Datum(write_concat(parts, v, bound, arena));
    }
}

NodePtr b_concat(CallSite& c) {
    if (c.args.empty()) c.arity(1, 1000);
    std::vector<DataType> types;
    for (auto& a : c.args) types.push_back(a->type);
    auto t = string_result(types, c.any_nullable());
    // CONCAT(CAST(id AS STRING), ...): the text of the operand is the text of the cast.
    for (auto& a : c.args)
        if (is_text_cast(*a)) a = std::move(a->args[0]);
    auto n = make_node(eval_concat, t, std::move(c.args));
    n->batch = batch_concat;
    auto plan = std::make_shared<ConcatPlan>();
    for (const auto& a : n->args) {
        ConcatPart part;
        part.node = a.get();
        if (a->type.is_integer())
            part.kind = long_operand_kind(*a) == kOperandColumn ? ConcatKind::kIntColumn
                                                                : ConcatKind::kIntNode;
        else if (a->is_constant && !a->constant.null && is_text(a->type))
            part.kind = ConcatKind::kText;
        else if (is_text(a->type) && is_bytes_column(*a))
            part.kind = ConcatKind::kBytesColumn;
        plan->parts.push_back(part);
    }
    n->state = std::move(plan);
    return n;
}
// `1 || 'Alice'` is `1Alice`: Flink CDC compiles `||` to CONCAT of the operands' texts, so any
// scalar operand is written as CAST(x AS STRING) writes it (and NULL as `null`). Only ARRAY, MAP
// and ROW operands are refused, as Calcite refuses them.
NodePtr b_pipes(CallSite& c) {
    c.arity(2, 2);
    for (std::size_t i = 0; i < 2; ++i)
        if (c.type(i).is_nested() && !c.args[i]->null_literal)
            c.fail("Cannot apply '||' to arguments of type " + c.signature());
    return b_concat(c);
}

Datum eval_concat_ws(const Node& n, EvalContext& c) {
    Datum sep = n.args[0]->eval(c);
    if (sep.null) return sep;
    std::string out;
    bool first = true;
    for (std::size_t i = 1; i < n.args.size(); ++i) {
        Datum d = n.args[i]->eval(c);
        if (d.null) continue;
        if (!first) out.append(sep.s);
        first = false;
        out.append(to_java_string(d, n.args[i]->type, c.arena));
    }
    return Datum::of_string(c.arena.copy(out));
}
NodePtr b_concat_ws(CallSite& c) {
    c.arity(2, 1000);
    c.require_text(0);
    bool nullable = c.type(0).nullable();
    return make_node(eval_concat_ws, DataType::string().with_nullable(nullable), std::move(c.args));
}

Datum eval_char_length(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return a;
    return Datum::of_long(char_count(a.s));
}
NodePtr b_char_length(CallSite& c) {
    c.arity(1, 1);
    c.require_text(0);
    bool nullable = c.any_nullable();
    return make_node(eval_char_length, DataType::int_().with_nullable(nullable), std::move(c.args));
}

// UPPER (n.param) or LOWER of text with a byte past ASCII, in `arena`: mapped as Java maps it
// (java_case).
[[gnu::noinline]] Datum case_map_unicode(const Node& n, std::string_view s, Arena& arena) {
    const std::size_t cap = java_case_capacity(s.size());
    char* p = arena.alloc(cap);
    std::size_t len = n.param ? java_to_upper(s, p) : java_to_lower(s, p);
    arena.give_back(cap - len);
    return Datum::of_string(std::string_view(p, len));
}

// UPPER (n.param) or LOWER of s, in `arena`. Inlined into UPPER/LOWER's batch loop: the ASCII
// path is a few instructions a byte, and the call cost about as much.
[[gnu::always_inline]] inline Datum case_map(const Node& n, std::string_view s, Arena& arena) {
    const std::size_t size = s.size();
    char* p = arena.alloc(size);
    const char* src = s.data();
    // ASCII first, one loop per direction without a per-byte test of the direction; the bytes
    // seen are or-ed together, and text with a byte past ASCII is mapped again as UTF-8.
    unsigned char seen = 0;
    std::size_t i = 0;
    // Eight ASCII bytes at a time: 0x80 marks each byte in the letter range, turned into the
    // 0x20 that moves it to the other case (SWAR; no byte's sum carries into the next).
    const std::uint64_t from = n.param ? 0x61 : 0x41;  // 'a' or 'A'
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
    constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
    for (; i + 8 <= size; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, src + i, 8);
        if (w & kHigh) break;
        std::uint64_t at_least = w + (0x80 - from) * kOnes;   // high bit: byte >= from
        std::uint64_t past = w + (0x80 - from - 26) * kOnes;  // high bit: byte >= from + 26
        std::uint64_t letters = (at_least & ~past) & kHigh;
        std::uint64_t mapped = n.param ? w - (letters >> 2) : w + (letters >> 2);
        std::memcpy(p + i, &mapped, 8);
    }
    if (n.param) {
        for (; i < size; ++i) {
            char ch = src[i];
            seen |= static_cast<unsigned char>(ch);
            p[i] = static_cast<char>(ch - ((ch >= 'a' && ch <= 'z') ? 32 : 0));
        }
    } else {
        for (; i < size; ++i) {
            char ch = src[i];
            seen |= static_cast<unsigned char>(ch);
            p[i] = static_cast<char>(ch + ((ch >= 'A' && ch <= 'Z') ? 32 : 0));
        }
    }
    if (seen < 0x80) return Datum::of_string(std::string_view(p, size));
    arena.give_back(size);
    return case_map_unicode(n, s, arena);
}
Datum eval_case_map(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return a;
    return case_map(n, a.s, c.arena);
}
void batch_case_map(const Node& n, BatchContext& b, Selection sel, Datum* out) {
    ScratchColumn a(b);
    eval_batch(*n.args[0], b, sel, a.get());
    for (std::uint32_t i : sel) {
        if (a[i].null)
            ::new (at(out, i)) Datum();
        else
            ::new (at(out, i)) Datum(case_map(n, a[i].s, b.c.arena));
    }
}
NodePtr build_case_map(CallSite& c, bool up) {
    c.arity(1, 1);
    c.require_text(0);
    DataType t = c.args[0]->null_literal ? DataType::string() : c.type(0);
    auto n = make_node(eval_case_map, t, std::move(c.args));
    n->batch = batch_case_map;
    n->param = up;
    return n;
}
NodePtr b_upper(CallSite& c) {
    return build_case_map(c, true);
}
NodePtr b_lower(CallSite& c) {
    return build_case_map(c, false);
}

// Trims characters of `chars` (code points) from the ends: param bit 1 = leading, bit 2 = trailing.
std::string_view trim_chars(std::string_view s, std::string_view chars, int where) {
    auto in_set = [&](std::string_view ch) { return chars.find(ch) != std::string_view::npos; };
    if (where & 1) {
        while (!s.empty()) {
            std::size_t len = 1;
            while (len < s.size() && is_cont(s[len])) ++len;
            if (!in_set(s.substr(0, len))) break;
            s.remove_prefix(len);
        }
    }
    if (where & 2) {
        while (!s.empty()) {
            std::size_t start = s.size() - 1;
            while (start > 0 && is_cont(s[start])) --start;
            if (!in_set(s.substr(start))) break;
            s.remove_suffix(s.size() - start);
        }
    }
    return s;
}

// SQL TRIM: Flink CDC's trim(symbol, chars, s) is Java's s.trim() whatever the BOTH/LEADING/
// TRAILING and the characters say (StringFunctions.trim): every character up to U+0020 goes from
// both ends. Those are single bytes in UTF-8. The characters are still evaluated, as Java does
// with every argument.
Datum eval_trim_sql(const Node& n, EvalContext& c) {
    if (!n.args[1]->is_constant) n.args[1]->eval(c);
    Datum s = n.args[2]->eval(c);
    if (s.null) return Datum{};
    std::string_view t = s.s;
    while (!t.empty() && static_cast<unsigned char>(t.front()) <= 0x20) t.remove_prefix(1);
    while (!t.empty() && static_cast<unsigned char>(t.back()) <= 0x20) t.remove_suffix(1);
    return Datum::of_string(t);
}
NodePtr b_trim(CallSite& c) {
    // Parsed as TRIM(<BOTH|LEADING|TRAILING>, chars, s).
    c.arity(3, 3);
    c.require_text(1);
    c.require_text(2);
    DataType t =
        DataType::varchar(c.args[2]->null_literal ? DataType::kMaxLength : c.type(2).length())
            .with_nullable(c.any_nullable());
    return make_node(eval_trim_sql, t, std::move(c.args));
}

Datum eval_trim_fn(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    if (s.null) return s;
    std::string_view chars = " ";
    if (n.args.size() > 1) {
        Datum ch = n.args[1]->eval(c);
        if (ch.null) return ch;
        chars = ch.s;
    }
    return Datum::of_string(trim_chars(s.s, chars, static_cast<int>(n.param)));
}
NodePtr build_trim_fn(CallSite& c, int where) {
    c.arity(1, 2);
    for (std::size_t i = 0; i < c.args.size(); ++i) c.require_text(i);
    bool nullable = c.any_nullable();
    DataType t =
        DataType::varchar(c.args[0]->null_literal ? DataType::kMaxLength : c.type(0).length())
            .with_nullable(nullable);
    auto n = make_node(eval_trim_fn, t, std::move(c.args));
    n->param = where;
    return n;
}
NodePtr b_ltrim(CallSite& c) {
    return build_trim_fn(c, 1);
}
NodePtr b_rtrim(CallSite& c) {
    return build_trim_fn(c, 2);
}
NodePtr b_btrim(CallSite& c) {
    return build_trim_fn(c, 3);
}

// Flink CDC's StringFunctions.substring: 1-based; 0 is the first character too; a negative start
// counts from the end, and one before the start gives the empty string; len >= 0.
[[gnu::always_inline]] inline std::string_view substring(std::string_view s, std::int64_t start,
                                                         std::int64_t len) {
    // Only a negative start needs the length in characters; otherwise positions past the end
    // clamp to it (substr_chars), which gives the same result without scanning the whole string.
    std::int64_t from = start > 0 ? start - 1 : 0;
    if (start < 0) {
        from = char_count(s) + start;
        if (from < 0) return {};
    }
    return substr_chars(s, from, len);
}

Datum eval_substr(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    if (s.null) return s;
    Datum from = n.args[1]->eval(c);
    if (from.null) return from;
    std::int64_t len = INT32_MAX;
    if (n.args.size() > 2) {
        Datum l = n.args[2]->eval(c);
        if (l.null) return l;
        len = l.i;
        if (len < 0)
            throw EvalError(
                "length of 'substring(str, beginIndex, length)' must be >= 0 and Int type, but "
                "length = " +
                std::to_string(len));
    }
    return Datum::of_string(substring(s.s, from.i, len));
}
// SUBSTR(column, constant[, constant]): start in param, length in param2; the column is read
// from the row directly.
Datum eval_substr_column_const(const Node& n, EvalContext& c) {
    const Node& a = *n.args[0];
    if (c.row.is_null(a.column)) return Datum{};
    return Datum::of_string(substring(c.row.get_bytes(a.column), n.param, n.param2));
}
void batch_substr_column_const(const Node& n, BatchContext& b, Selection sel, Datum* out) {
    const auto column = static_cast<std::size_t>(n.args[0]->column);
    for (std::uint32_t i : sel) {
        const RowView& r = b.rows.rows[i];
        if (r.is_null(column))
            ::new (at(out, i)) Datum();
        else
            ::new (at(out, i))
                Datum(Datum::of_string(substring(r.get_bytes(column), n.param, n.param2)));
    }
}
NodePtr b_substr(CallSite& c) {
    c.arity(2, 3);
    c.require_text(0);
    for (std::size_t i = 1; i < c.args.size(); ++i) c.require_integer(i);
    bool nullable = c.any_nullable();
    DataType t =
        DataType::varchar(c.args[0]->null_literal ? DataType::kMaxLength : c.type(0).length())
            .with_nullable(nullable);
    auto known = [&](std::size_t i) {
        const Node& a = *c.args[i];
        return a.is_constant && a.interval == 0 && !a.constant.null;
    };
    bool fast = is_bytes_column(*c.args[0]) && known(1) &&
                (c.args.size() < 3 || (known(2) && c.args[2]->constant.i >= 0));
    std::int64_t start = fast ? c.args[1]->constant.i : 0;
    std::int64_t len = fast && c.args.size() > 2 ? c.args[2]->constant.i : INT32_MAX;
    auto n = make_node(fast ? eval_substr_column_const : eval_substr, t, std::move(c.args));
    if (fast) n->batch = batch_substr_column_const;
    n->param = start;
    n->param2 = len;
    return n;
}

Datum eval_overlay(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum r = n.args[1]->eval(c);
    Datum from = n.args[2]->eval(c);
    if (s.null || r.null || from.null) return Datum{};
    std::int64_t len = char_count(r.s);
    if (n.args.size() > 3) {
        Datum l = n.args[3]->eval(c);
        if (l.null) return l;
        len = java_int(l.i);
    }
    // StringFunctions.overlay: a start before the first character or past the last one leaves
    // the string as it is; the rest after the replaced part is kept only for a positive length
    // that ends inside the string.
    const std::int64_t start = java_int(from.i);
    const std::int64_t have = char_count(s.s);
    if (start <= 0 || start > have) return s;
    if (start + len > INT32_MAX)  // Java's int sum wraps, and substring() then fails
        throw EvalError("OVERLAY start " + std::to_string(start) + " + length " +
                        std::to_string(len) + " overflows an INT");
    std::string out(substr_chars(s.s, 0, start - 1));
    out.append(r.s);
    if (len > 0 && start + len <= have) out.append(substr_chars(s.s, start - 1 + len, -1));
    return Datum::of_string(c.arena.copy(out));
}
// OVERLAY of bytes (StringFunctions.overlay(byte[], ...)): positions count bytes; a length of 0
// or less keeps nothing after the replacement.
Datum eval_overlay_bytes(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum r = n.args[1]->eval(c);
    Datum from = n.args[2]->eval(c);
    if (s.null || r.null || from.null) return Datum{};
    std::int64_t len = static_cast<std::int64_t>(r.s.size());
    if (n.args.size() > 3) {
        Datum l = n.args[3]->eval(c);
        if (l.null) return l;
        len = java_int(l.i);
    }
    const std::int64_t start = java_int(from.i);
    const auto have = static_cast<std::int64_t>(s.s.size());
    if (start <= 0 || start > have) return s;
    const std::int64_t rest = start - 1 + std::max<std::int64_t>(len, 0);
    std::string out(s.s.substr(0, start - 1));
    out.append(r.s);
    if (len > 0 && rest < have) out.append(s.s.substr(rest));
    return Datum::of_string(c.arena.copy(out));
}
// Both operands text, or both bytes (then the result is bytes).
bool binary_operands(CallSite& c) {
    if (c.type(0).is_binary() && c.type(1).is_binary()) return true;
    c.require_text(0);
    c.require_text(1);
    return false;
}
NodePtr b_overlay(CallSite& c) {
    c.arity(3, 4);
    const bool bytes = binary_operands(c);
    for (std::size_t i = 2; i < c.args.size(); ++i) c.require_integer(i);
    bool nullable = c.any_nullable();
    if (bytes)
        return make_node(eval_overlay_bytes, DataType::bytes().with_nullable(nullable),
                         std::move(c.args));
    return make_node(eval_overlay, DataType::string().with_nullable(nullable), std::move(c.args));
}

// 1-based character position of `needle` in `hay` at or after character `from` (1-based); 0 if
// none. As StringFunctions.position: an empty needle is at 1 wherever the search starts, and a
// start before 1 searches from 1.
std::int64_t position(std::string_view needle, std::string_view hay, std::int64_t from) {
    if (needle.empty()) return 1;
    const std::int32_t from0 = std::max<std::int32_t>(
        static_cast<std::int32_t>(static_cast<std::uint32_t>(java_int(from)) - 1U), 0);
    // A start past the end finds nothing: byte_at clamps to the end.
    auto p = hay.find(needle, byte_at(hay, from0));
    if (p == std::string_view::npos) return 0;
    return char_count(hay.substr(0, p)) + 1;
}

// POSITION of bytes in bytes (StringFunctions.position(byte[], ...)): as position(), in bytes.
std::int64_t position_bytes(std::string_view needle, std::string_view hay, std::int64_t from) {
    if (needle.empty()) return 1;
    const std::int32_t from0 = std::max<std::int32_t>(
        static_cast<std::int32_t>(static_cast<std::uint32_t>(java_int(from)) - 1U), 0);
    if (static_cast<std::size_t>(from0) > hay.size()) return 0;
    auto p = hay.find(needle, static_cast<std::size_t>(from0));
    return p == std::string_view::npos ? 0 : static_cast<std::int64_t>(p) + 1;
}

// param: 0 = (needle, hay[, from]), 1 = INSTR(hay, needle), 2 = (needle, hay[, from]) in bytes
Datum eval_position(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    Datum b = n.args[1]->eval(c);
    if (a.null || b.null) return Datum{};
    std::int64_t from = 1;
    if (n.args.size() > 2) {
        Datum f = n.args[2]->eval(c);
        if (f.null) return f;
        from = f.i;
    }
    if (n.param == 1) return Datum::of_long(position(b.s, a.s, 1));
    if (n.param == 2) return Datum::of_long(position_bytes(a.s, b.s, from));
    return Datum::of_long(position(a.s, b.s, from));
}
// kind: 0 = POSITION (text or bytes), 1 = INSTR, 3 = LOCATE (text only, as its Calcite operand
// types say).
NodePtr build_position(CallSite& c, int kind) {
    c.arity(2, kind == 1 ? 2 : 3);
    if (kind == 0 && binary_operands(c)) {
        kind = 2;
    } else {
        c.require_text(0);
        c.require_text(1);
        if (kind == 3) kind = 0;
    }
    if (c.args.size() > 2) c.require_integer(2);
    bool nullable = c.any_nullable();
    auto n = make_node(eval_position, DataType::int_().with_nullable(nullable), std::move(c.args));
    n->param = kind;
    return n;
}
NodePtr b_position(CallSite& c) {
    return build_position(c, 0);
}
NodePtr b_locate(CallSite& c) {
    return build_position(c, 3);
}
NodePtr b_instr(CallSite& c) {
    return build_position(c, 1);
}

// param 1 = left pad
Datum eval_pad(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum len = n.args[1]->eval(c);
    Datum pad = n.args[2]->eval(c);
    if (s.null || len.null || pad.null) return Datum{};
    // StringFunctions.pad: a negative length or an empty pad is NULL, before anything else.
    const std::int64_t want = java_int(len.i);
    if (want < 0 || pad.s.empty()) return Datum{};
    std::int64_t have = char_count(s.s);
    if (have >= want) return Datum::of_string(substr_chars(s.s, 0, want));
    const std::int64_t need = want - have;
    // Whole copies of the pad, then the first characters of one more. A pad of bytes that start
    // no character (stray UTF-8 continuation bytes) counts as one character: counted as none,
    // it never filled anything, and the loop that added it did not end.
    const std::int64_t pad_chars = std::max<std::int64_t>(1, char_count(pad.s));
    const auto copies = static_cast<std::size_t>(need / pad_chars);
    const std::string_view rest = substr_chars(pad.s, 0, need % pad_chars);
    const std::size_t fill = copies * pad.s.size() + rest.size();
    const std::size_t total = fill + s.s.size();
    if (total > (1U << 30))
        throw EvalError(n.param ? "LPAD result too large" : "RPAD result too large");
    char* const out = c.arena.alloc(total);
    char* p = n.param ? out : out + s.s.size();
    for (std::size_t i = 0; i < copies; ++i, p += pad.s.size())
        std::memcpy(p, pad.s.data(), pad.s.size());
    if (!rest.empty()) std::memcpy(p, rest.data(), rest.size());
    if (!s.s.empty()) std::memcpy(n.param ? out + fill : out, s.s.data(), s.s.size());
    return Datum::of_string(std::string_view(out, total));
}
NodePtr build_pad(CallSite& c, bool left) {
    c.arity(3, 3);
    c.require_text(0);
    c.require_integer(1);
    c.require_text(2);
    auto n = make_node(eval_pad, DataType::string(), std::move(c.args));
    n->param = left;
    return n;
}
NodePtr b_lpad(CallSite& c) {
    return build_pad(c, true);
}
NodePtr b_rpad(CallSite& c) {
    return build_pad(c, false);
}

Datum eval_replace(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum a = n.args[1]->eval(c);
    Datum b = n.args[2]->eval(c);
    if (s.null || a.null || b.null) return Datum{};
    std::string out;
    if (a.s.empty()) {
        // Java: "abc".replace("", "x") = "xaxbxcx"
        out.append(b.s);
        for (std::size_t i = 0; i < s.s.size(); ++i) {
            out.push_back(s.s[i]);
            if (i + 1 == s.s.size() || !is_cont(s.s[i + 1])) out.append(b.s);
        }
        return Datum::of_string(c.arena.copy(out));
    }
    std::size_t pos = 0;
    while (true) {
        auto f = s.s.find(a.s, pos);
        if (f == std::string_view::npos) break;
        out.append(s.s.substr(pos, f - pos));
        out.append(b.s);
        pos = f + a.s.size();
    }
    if (pos == 0) return s;
    out.append(s.s.substr(pos));
    return Datum::of_string(c.arena.copy(out));
}
NodePtr b_replace(CallSite& c) {
    c.arity(3, 3);
    for (std::size_t i = 0; i < 3; ++i) c.require_text(i);
    return make_node(eval_replace, DataType::string(), std::move(c.args));
}

Datum eval_repeat(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum k = n.args[1]->eval(c);
    if (s.null || k.null) return Datum{};
    const std::int64_t count = java_int(k.i);
    if (count <= 0 || s.s.empty()) return Datum::of_string({});
    std::size_t total = s.s.size() * static_cast<std::size_t>(count);
    if (total > (1U << 30)) throw EvalError("REPEAT result too large");
    char* p = c.arena.alloc(total);
    for (std::int64_t i = 0; i < count; ++i)
        std::memcpy(p + i * s.s.size(), s.s.data(), s.s.size());
    return Datum::of_string(std::string_view(p, total));
}
NodePtr b_repeat(CallSite& c) {
    c.arity(2, 2);
    c.require_text(0);
    c.require_integer(1);
    return make_node(eval_repeat, DataType::string(), std::move(c.args));
}

// param 1 = LEFT
Datum eval_left_right(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum k = n.args[1]->eval(c);
    if (s.null || k.null) return Datum{};
    const std::int64_t want = java_int(k.i);
    if (want <= 0) return Datum::of_string({});
    std::int64_t len = char_count(s.s);
    if (want >= len) return s;
    if (n.param) return Datum::of_string(substr_chars(s.s, 0, want));
    return Datum::of_string(substr_chars(s.s, len - want, -1));
}
NodePtr build_left_right(CallSite& c, bool left) {
    c.arity(2, 2);
    c.require_text(0);
    c.require_integer(1);
    auto n = make_node(eval_left_right, DataType::string(), std::move(c.args));
    n->param = left;
    return n;
}
NodePtr b_left(CallSite& c) {
    return build_left_right(c, true);
}
NodePtr b_right(CallSite& c) {
    return build_left_right(c, false);
}

// param 1 = starts
Datum eval_starts_ends(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum p = n.args[1]->eval(c);
    if (s.null || p.null) return Datum{};
    return Datum::of_bool(n.param ? s.s.starts_with(p.s) : s.s.ends_with(p.s));
}
NodePtr build_starts_ends(CallSite& c, bool starts) {
    c.arity(2, 2);
    for (std::size_t i = 0; i < 2; ++i)
        if (!is_text(c.type(i)) && !c.type(i).is_binary() && !c.args[i]->null_literal)
            c.fail("Cannot apply '" + c.name + "' to arguments of type " + c.signature());
    auto n = make_node(eval_starts_ends, DataType::boolean(), std::move(c.args));
    n->param = starts;
    return n;
}
NodePtr b_startswith(CallSite& c) {
    return build_starts_ends(c, true);
}
NodePtr b_endswith(CallSite& c) {
    return build_starts_ends(c, false);
}

Datum eval_to_base64(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    if (s.null) return s;
    return Datum::of_string(c.arena.copy(base64_encode(s.s)));
}
NodePtr b_to_base64(CallSite& c) {
    c.arity(1, 1);
    if (!is_text(c.type(0)) && !c.type(0).is_binary() && !c.args[0]->null_literal)
        c.fail("Cannot apply 'TO_BASE64' to arguments of type " + c.signature());
    return make_node(eval_to_base64, DataType::string(), std::move(c.args));
}
// FROM_BASE64: Java's Base64 decoder, then the bytes as Java's new String(bytes, UTF_8) reads
// them (malformed sequences become U+FFFD). FROM_BASE64_BINARY (param 1): the bytes.
Datum eval_from_base64(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    if (s.null) return s;
    std::string error;
    auto d = java_base64_decode(s.s, &error);
    if (!d) throw EvalError("Illegal base64 input '" + std::string(s.s) + "': " + error);
    if (n.param == 1 || is_utf8(*d)) return Datum::of_string(c.arena.copy(*d));
    std::string text;
    java_utf8_decode(*d, text);
    return Datum::of_string(c.arena.copy(text));
}
NodePtr b_from_base64(CallSite& c) {
    c.arity(1, 1);
    c.require_text(0);
    return make_node(eval_from_base64, DataType::string(), std::move(c.args));
}
NodePtr b_from_base64_binary(CallSite& c) {
    c.arity(1, 1);
    c.require_text(0);
    // VARBINARY at Calcite's maximum precision, nullable as its argument (TransformSqlOperatorTable
    // FROM_BASE64_BINARY: explicit(VARBINARY, 65536) cascaded with TO_NULLABLE).
    DataType t = DataType::varbinary(65536).with_nullable(c.any_nullable());
    auto n = make_node(eval_from_base64, t, std::move(c.args));
    n->param = 1;
    return n;
}

}  // namespace

void register_string(Registry& r) {
    r["||"] = b_pipes;
    r["CONCAT"] = b_concat;
    r["CONCAT_WS"] = b_concat_ws;
    r["CHAR_LENGTH"] = b_char_length;
    r["CHARACTER_LENGTH"] = b_char_length;
    r["UPPER"] = b_upper;
    r["LOWER"] = b_lower;
    r["TRIM"] = b_trim;
    r["LTRIM"] = b_ltrim;
    r["RTRIM"] = b_rtrim;
    r["BTRIM"] = b_btrim;
    r["SUBSTR"] = b_substr;
    r["SUBSTRING"] = b_substr;
    r["OVERLAY"] = b_overlay;
    r["POSITION"] = b_position;
    r["LOCATE"] = b_locate;
    r["INSTR"] = b_instr;
    r["LPAD"] = b_lpad;
    r["RPAD"] = b_rpad;
    r["REPLACE"] = b_replace;
    r["REPEAT"] = b_repeat;
    r["LEFT"] = b_left;
    r["RIGHT"] = b_right;
    r["STARTSWITH"] = b_startswith;
    r["ENDSWITH"] = b_endswith;
    r["TO_BASE64"] = b_to_base64;
    r["FROM_BASE64"] = b_from_base64;
    r["FROM_BASE64_BINARY"] = b_from_base64_binary;
}

}  // namespace cdcd::transform
