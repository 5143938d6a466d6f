// Regular-expression functions (java.util.regex semantics on RE2): REGEXP_REPLACE,
// REGEXP_EXTRACT, REGEXP_EXTRACT_ALL, REGEXP_COUNT, REGEXP_INSTR, REGEXP_SUBSTR, LIKE, SIMILAR TO.
#include <memory>
#include <optional>
#include <string>

#include "pipeline/transform/functions.h"
#include "pipeline/transform/java_regex.h"

namespace cdcd::transform {

namespace {

enum Flavor { kJava, kLike, kSimilar };

// A pattern compiled once when constant, or cached on its last text when it comes from a column.
struct PatternCache {
    Flavor flavor = kJava;
    mutable std::string text;
    mutable char escape = 0;
    mutable std::unique_ptr<RE2> re;
    mutable bool valid = false;

    void keep(std::unique_ptr<RE2> compiled, std::string_view pattern_text, char esc) const {
        re = std::move(compiled);
        text = std::string(pattern_text);
        escape = esc;
        valid = true;
    }
};

std::unique_ptr<RE2> compile_flavor(Flavor f, std::string_view p, char escape, std::string* err) {
    switch (f) {
        case kJava:
            return compile_java_regex(p, err);
        case kLike:
            return compile_sql_like(p, escape, err);
        case kSimilar:
            return compile_similar(p, escape, err);
    }
    return nullptr;
}

const RE2& pattern(const Node& n, std::string_view p, char escape) {
    const auto& cache = n.st<PatternCache>();
    if (!cache.valid || cache.text != p || cache.escape != escape) {
        std::string err;
        auto re = compile_flavor(cache.flavor, p, escape, &err);
        if (!re) throw EvalError("invalid regular expression '" + std::string(p) + "': " + err);
        cache.keep(std::move(re), p, escape);
    }
    return *cache.re;
}

// Compiles constant patterns now, so that bad ones fail validation.
void prepare(CallSite& c, Node& n, std::size_t pattern_arg, Flavor f, char escape = 0) {
    auto cache = std::make_shared<PatternCache>();
    cache->flavor = f;
    const Node& p = *n.args[pattern_arg];
    if (p.is_constant && !p.constant.null) {
        std::string err;
        auto re = compile_flavor(f, p.constant.s, escape, &err);
        if (!re)
            c.fail_arg(pattern_arg,
                       "invalid regular expression '" + std::string(p.constant.s) + "': " + err);
        cache->keep(std::move(re), p.constant.s, escape);
    }
    n.state = cache;
}

// A REGEXP_ function whose first `text_args` arguments are text (the rest, a group index);
// its pattern is argument 1.
NodePtr finish(CallSite& c, EvalFn fn, DataType t, std::size_t text_args) {
    for (std::size_t i = 0; i < text_args; ++i) c.require_text(i);
    auto n = make_node(fn, std::move(t), std::move(c.args));
    prepare(c, *n, 1, kJava);
    return n;
}

// The first match of `re` in `s` at or after `from`, with `n` - 1 capturing groups.
bool find_match(const RE2& re, std::string_view s, std::size_t from, re2::StringPiece* groups,
                int n) {
    return re.Match(re2::StringPiece(s.data(), s.size()), from, s.size(), RE2::UNANCHORED, groups,
                    n);
}

// REGEXP_EXTRACT's and REGEXP_EXTRACT_ALL's inputs: the string, its pattern and the group asked
// for (`default_group` when the call names none); nullopt when any of them is NULL.
struct ExtractArgs {
    std::string_view s;
    const RE2* re;
    std::int64_t group;
};
std::optional<ExtractArgs> extract_args(const Node& n, EvalContext& c, std::int64_t default_group) {
    Datum s = n.args[0]->eval(c);
    Datum p = n.args[1]->eval(c);
    if (s.null || p.null) return std::nullopt;
    std::int64_t group = default_group;
    if (n.args.size() > 2) {
        Datum i = n.args[2]->eval(c);
        if (i.null) return std::nullopt;
        group = i.i;
    }
    return ExtractArgs{s.s, &pattern(n, p.s, 0), group};
}

Datum eval_replace(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum p = n.args[1]->eval(c);
    Datum r = n.args[2]->eval(c);
    if (s.null || p.null || r.null) return Datum{};
    std::string out, err;
    if (!java_replace_all(pattern(n, p.s, 0), s.s, r.s, out, &err)) throw EvalError(err);
    return Datum::of_string(c.arena.copy(out));
}
NodePtr b_replace(CallSite& c) {
    c.arity(3, 3);
    return finish(c, eval_replace, DataType::string(), 3);
}

Datum eval_extract(const Node& n, EvalContext& c) {
    auto a = extract_args(n, c, 0);
    if (!a) return Datum{};
    const std::int64_t idx = a->group;
    int groups = a->re->NumberOfCapturingGroups();
    if (idx < 0 || idx > groups) return Datum{};
    std::vector<re2::StringPiece> m(groups + 1);
    if (!find_match(*a->re, a->s, 0, m.data(), groups + 1)) return Datum{};
    if (m[idx].data() == nullptr) return Datum{};
    return Datum::of_string(std::string_view(m[idx].data(), m[idx].size()));
}
NodePtr b_extract(CallSite& c) {
    c.arity(2, 3);
    if (c.args.size() > 2) c.require_integer(2);
    return finish(c, eval_extract, DataType::string(), 2);
}

// Every match from the start; after an empty match the search moves one character on.
template <typename F>
void for_each_match(const RE2& re, std::string_view s, int ngroups, F f) {
    std::vector<re2::StringPiece> m(ngroups + 1);
    std::size_t pos = 0;
    while (pos <= s.size()) {
        if (!find_match(re, s, pos, m.data(), ngroups + 1)) break;
        f(m);
        std::size_t start = m[0].data() - s.data(), end = start + m[0].size();
        if (end == start) {
            if (start >= s.size()) break;
            std::size_t len = 1;
            while (start + len < s.size() &&
                   (static_cast<unsigned char>(s[start + len]) & 0xC0) == 0x80)
                ++len;
            pos = start + len;
        } else {
            pos = end;
        }
    }
}

Datum eval_extract_all(const Node& n, EvalContext& c) {
    auto a = extract_args(n, c, 1);
    if (!a) return Datum{};
    const std::int64_t idx = a->group;
    int groups = a->re->NumberOfCapturingGroups();
    if (idx < 0 || idx > groups)
        throw EvalError("Extract group index " + std::to_string(idx) + " is out of range");
    std::vector<std::string_view> found;
    std::vector<bool> present;
    for_each_match(*a->re, a->s, groups, [&](const std::vector<re2::StringPiece>& m) {
        found.push_back(std::string_view(m[idx].data(), m[idx].size()));
        present.push_back(m[idx].data() != nullptr);
    });
    RowBuilder b(found.size());
    for (std::size_t k = 0; k < found.size(); ++k)
        if (present[k]) b.set_string(k, found[k]);
    Row r = std::move(b).build();
    return Datum::of_string(c.arena.copy(r.bytes()));
}
NodePtr b_extract_all(CallSite& c) {
    c.arity(2, 3);
    if (c.args.size() > 2) c.require_integer(2);
    return finish(c, eval_extract_all, DataType::array(DataType::string()), 2);
}

Datum eval_count(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum p = n.args[1]->eval(c);
    if (s.null || p.null) return Datum{};
    const RE2& re = pattern(n, p.s, 0);
    std::int64_t k = 0;
    for_each_match(re, s.s, 0, [&](const std::vector<re2::StringPiece>&) { ++k; });
    return Datum::of_long(k);
}
NodePtr b_count(CallSite& c) {
    c.arity(2, 2);
    return finish(c, eval_count, DataType::int_(), 2);
}

Datum eval_instr(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum p = n.args[1]->eval(c);
    if (s.null || p.null) return Datum{};
    re2::StringPiece m;
    if (!find_match(pattern(n, p.s, 0), s.s, 0, &m, 1)) return Datum::of_long(0);
    std::int64_t chars = 0;
    for (const char* q = s.s.data(); q < m.data(); ++q)
        chars += (static_cast<unsigned char>(*q) & 0xC0) != 0x80;
    return Datum::of_long(chars + 1);
}
NodePtr b_instr(CallSite& c) {
    c.arity(2, 2);
    return finish(c, eval_instr, DataType::int_(), 2);
}

Datum eval_substr(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum p = n.args[1]->eval(c);
    if (s.null || p.null) return Datum{};
    re2::StringPiece m;
    if (!find_match(pattern(n, p.s, 0), s.s, 0, &m, 1)) return Datum{};
    return Datum::of_string(std::string_view(m.data(), m.size()));
}
NodePtr b_substr(CallSite& c) {
    c.arity(2, 2);
    return finish(c, eval_substr, DataType::string(), 2);
}

// LIKE: without ESCAPE a Java regex find(); with ESCAPE the SQL wildcard match. SIMILAR TO: SQL
// regex, whole string.
Datum eval_like_find(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum p = n.args[1]->eval(c);
    if (s.null || p.null) return Datum::of_bool(false);
    return Datum::of_bool(
        RE2::PartialMatch(re2::StringPiece(s.s.data(), s.s.size()), pattern(n, p.s, 0)));
}
Datum eval_like_full(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum p = n.args[1]->eval(c);
    if (s.null || p.null) return Datum{};
    char esc = 0;
    if (n.args.size() > 2) {
        Datum e = n.args[2]->eval(c);
        if (e.null) return Datum{};
        if (e.s.size() != 1) throw EvalError("Invalid escape character '" + std::string(e.s) + "'");
        esc = e.s[0];
    }
    return Datum::of_bool(
        RE2::FullMatch(re2::StringPiece(s.s.data(), s.s.size()), pattern(n, p.s, esc)));
}
NodePtr build_like(CallSite& c, Flavor f) {
    c.arity(2, 3);
    for (std::size_t i = 0; i < c.args.size(); ++i) c.require_text(i);
    char esc = 0;
    if (c.args.size() > 2) {
        const Node& e = *c.args[2];
        if (e.is_constant && !e.constant.null) {
            if (e.constant.s.size() != 1)
                c.fail_arg(2, "Invalid escape character '" + std::string(e.constant.s) + "'");
            esc = e.constant.s[0];
        }
    }
    if (f == kLike && c.args.size() == 2) {
        auto n = make_node(eval_like_find, DataType::boolean().not_null(), std::move(c.args));
        prepare(c, *n, 1, kJava);
        return n;
    }
    bool nullable = c.any_nullable();
    auto n =
        make_node(eval_like_full, DataType::boolean().with_nullable(nullable), std::move(c.args));
    prepare(c, *n, 1, f, esc);
    return n;
}
NodePtr b_like(CallSite& c) {
    return build_like(c, kLike);
}
NodePtr b_similar(CallSite& c) {
    return build_like(c, kSimilar);
}

}  // namespace

void register_regex(Registry& r) {
    r["REGEXP_REPLACE"] = b_replace;
    r["REGEXP_EXTRACT"] = b_extract;
    r["REGEXP_EXTRACT_ALL"] = b_extract_all;
    r["REGEXP_COUNT"] = b_count;
    r["REGEXP_INSTR"] = b_instr;
    r["REGEXP_SUBSTR"] = b_substr;
    r["LIKE"] = b_like;
    r["SIMILAR TO"] = b_similar;
}

}  // namespace cdcd::transform
