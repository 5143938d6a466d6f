// Regular-expression functions (java.util.regex semantics on RE2): REGEXP_REPLACE,
// REGEXP_EXTRACT, REGEXP_EXTRACT_ALL, REGEXP_COUNT, REGEXP_INSTR, REGEXP_SUBSTR, LIKE, SIMILAR TO.
#include <memory>
#include <optional>
#include <string>

#include "pipeline/transform/functions/functions.h"
#include "regex/java_regex.h"
#include "regex/replacement.h"
#include "regex/sql_pattern.h"

namespace cdcd::transform {

namespace {

enum Flavor { kJava, kLike, kSimilar };

// A pattern compiled once when constant, or cached on its last text when it comes from a column.
// `re` is null when the pattern does not compile; `error` then says whether Java would have
// accepted it (cdcd cannot run it) or rejected it too.
struct PatternCache {
    Flavor flavor = kJava;
    // REGEXP_* functions: a pattern Java rejects makes the result NULL (Flink CDC's
    // StringFunctions catches the PatternSyntaxException); LIKE and SIMILAR TO fail instead.
    bool null_when_invalid = false;
    mutable std::string text;
    mutable char escape = 0;
    mutable std::unique_ptr<RE2> re;
    mutable regex::Error error;
    mutable bool cached = false;

    void compile(std::string_view pattern_text, char esc) const {
        error = {};
        switch (flavor) {
            case kJava:
                re = regex::compile_java(pattern_text, &error);
                break;
            case kLike:
                re = regex::compile_sql_like(pattern_text, esc, &error.detail);
                break;
            case kSimilar:
                re = regex::compile_similar(pattern_text, esc, &error.detail);
                break;
        }
        text = std::string(pattern_text);
        escape = esc;
        cached = true;
    }
    // Whether a pattern that did not compile fails the row (or the validation) rather than
    // giving NULL.
    bool fails() const { return !re && (error.unsupported() || !null_when_invalid); }
    std::string message() const { return regex::refusal(text, error); }
};

// The compiled pattern, or nullptr when Java rejects it and the function gives NULL for that.
const RE2* pattern(const Node& n, std::string_view p, char escape) {
    const auto& cache = n.st<PatternCache>();
    if (!cache.cached || cache.text != p || cache.escape != escape) cache.compile(p, escape);
    if (cache.fails()) throw EvalError(cache.message());
    return cache.re.get();
}

// Compiles constant patterns now, so that a pattern that would fail every row fails validation
// instead; one that only makes the result NULL is kept as such.
void prepare(CallSite& c, Node& n, std::size_t pattern_arg, Flavor f, bool null_when_invalid,
             char escape = 0) {
    auto cache = std::make_shared<PatternCache>();
    cache->flavor = f;
    cache->null_when_invalid = null_when_invalid;
    const Node& p = *n.args[pattern_arg];
    if (p.is_constant && !p.constant.null) {
        cache->compile(p.constant.s, escape);
        if (cache->fails()) c.fail_arg(pattern_arg, cache->message());
    }
    n.state = cache;
}

// A REGEXP_ function whose first `text_args` arguments are text (the rest, a group index);
// its pattern is argument 1.
NodePtr finish(CallSite& c, EvalFn fn, DataType t, std::size_t text_args) {
    for (std::size_t i = 0; i < text_args; ++i) c.require_text(i);
    auto n = make_node(fn, std::move(t), std::move(c.args));
    prepare(c, *n, 1, kJava, true);
    return n;
}

// The first match of `re` in `s` at or after `from`, with `n` - 1 capturing groups.
bool find_match(const RE2& re, std::string_view s, std::size_t from, re2::StringPiece* groups,
                int n) {
    return re.Match(re2::StringPiece(s.data(), s.size()), from, s.size(), RE2::UNANCHORED, groups,
                    n);
}

// REGEXP_EXTRACT's and REGEXP_EXTRACT_ALL's inputs: the string, its pattern and the group asked
// for (`default_group` when the call names none); nullopt when the result is NULL for them: any
// of them NULL, a pattern Java rejects, a negative group or one past the pattern's groups.
struct ExtractArgs {
    std::string_view s;
    const RE2* re;
    int group;
};
std::optional<ExtractArgs> extract_args(const Node& n, EvalContext& c, std::int64_t default_group) {
    Datum s = n.args[0]->eval(c);
    Datum p = n.args[1]->eval(c);
    std::int64_t group = default_group;
    if (n.args.size() > 2) {
        Datum i = n.args[2]->eval(c);
        if (i.null) return std::nullopt;
        group = i.i;
    }
    if (group < 0 || s.null || p.null) return std::nullopt;
    const RE2* re = pattern(n, p.s, 0);
    if (!re || group > re->NumberOfCapturingGroups()) return std::nullopt;
    return ExtractArgs{s.s, re, static_cast<int>(group)};
}

Datum eval_replace(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    Datum p = n.args[1]->eval(c);
    Datum r = n.args[2]->eval(c);
    if (s.null || p.null || r.null) return Datum{};
    const RE2* re = pattern(n, p.s, 0);
    if (!re) return Datum{};
    std::string out;
    // Flink: String.replaceAll(regex, Matcher.quoteReplacement(replacement)).
    regex::Replacement::literal(r.s).replace_all(*re, s.s, out);
    return Datum::of_string(c.arena.copy(out));
}
NodePtr b_replace(CallSite& c) {
    c.arity(3, 3);
    return finish(c, eval_replace, DataType::string(), 3);
}

Datum eval_extract(const Node& n, EvalContext& c) {
    auto a = extract_args(n, c, 0);
    if (!a) return Datum{};
    const int groups = a->re->NumberOfCapturingGroups();
    std::vector<re2::StringPiece> m(groups + 1);
    if (!find_match(*a->re, a->s, 0, m.data(), groups + 1)) return Datum{};
    if (m[a->group].data() == nullptr) return Datum{};
    return Datum::of_string(std::string_view(m[a->group].data(), m[a->group].size()));
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
    const int idx = a->group;
    std::vector<std::string_view> found;
    std::vector<bool> present;
    for_each_match(*a->re, a->s, a->re->NumberOfCapturingGroups(),
                   [&](const std::vector<re2::StringPiece>& m) {
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
    const RE2* re = pattern(n, p.s, 0);
    if (!re) return Datum{};
    std::int64_t k = 0;
    for_each_match(*re, s.s, 0, [&](const std::vector<re2::StringPiece>&) { ++k; });
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
    const RE2* re = pattern(n, p.s, 0);
    if (!re) return Datum{};
    re2::StringPiece m;
    if (!find_match(*re, s.s, 0, &m, 1)) return Datum::of_long(0);
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
    const RE2* re = pattern(n, p.s, 0);
    re2::StringPiece m;
    if (!re || !find_match(*re, s.s, 0, &m, 1)) return Datum{};
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
        RE2::PartialMatch(re2::StringPiece(s.s.data(), s.s.size()), *pattern(n, p.s, 0)));
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
        RE2::FullMatch(re2::StringPiece(s.s.data(), s.s.size()), *pattern(n, p.s, esc)));
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
        if (const Node& p = *c.args[1];
            p.is_constant && !p.constant.null && p.constant.s.find('%') != std::string_view::npos)
            c.note("LIKE '" + std::string(p.constant.s) +
                   "' has no ESCAPE, so it is a Java regular expression (as in Flink CDC), in "
                   "which `%` and `_` are plain characters: it matches text that contains them as "
                   "they are. For SQL's wildcards add an ESCAPE clause (LIKE 'a%' ESCAPE '!')");
        auto n = make_node(eval_like_find, DataType::boolean().not_null(), std::move(c.args));
        prepare(c, *n, 1, kJava, false);
        return n;
    }
    bool nullable = c.any_nullable();
    auto n =
        make_node(eval_like_full, DataType::boolean().with_nullable(nullable), std::move(c.args));
    prepare(c, *n, 1, f, false, esc);
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
