#include "pipeline/transform/compile/schema_free_check.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

#include "config/suggest.h"
#include "pipeline/transform/compile/compiler.h"
#include "pipeline/transform/functions/functions.h"

namespace cdcd::transform {

namespace {

// The registry name a node compiles through ("" for leaves).
std::string function_name(const Expr& e) {
    switch (e.kind) {
        case ExprKind::Call:
            return e.name;
        case ExprKind::Case:
            return "CASE";
        case ExprKind::Cast:
            return e.try_cast ? "TRY_CAST" : "CAST";
        default:
            return "";
    }
}

// Function names a user can call as NAME(...): operators ("IS NOT NULL", "AND", "ITEM" for
// `x[i]`, ...) are left out.
const std::vector<std::string>& callable_names() {
    static const std::vector<std::string> names = [] {
        static const std::set<std::string, std::less<>> kOperators = {
            "AND", "OR", "NOT", "IN", "LIKE", "BETWEEN", "CASE", "ITEM", "NEGATE"};
        std::vector<std::string> v;
        for (const auto& [name, builder] : functions()) {
            (void)builder;
            if (!kOperators.count(name) && std::all_of(name.begin(), name.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                }))
                v.push_back(name);
        }
        std::sort(v.begin(), v.end());
        return v;
    }();
    return names;
}

class Checker {
  public:
    Checker(const Zone* zone, const TransformFunctions* functions) {
        scope_.zone = zone;
        scope_.fold_constants = false;
        scope_.functions = functions;
    }

    std::vector<ExpressionProblem> run(const Expr& e) {
        mark_closed(e);
        check(e);
        std::stable_sort(problems_.begin(), problems_.end(),
                         [](const auto& a, const auto& b) { return a.pos < b.pos; });
        return std::move(problems_);
    }

  private:
    // Reports unknown functions and records the sub-expressions that compile without a schema
    // (no column, no unknown function). Returns whether `e` is one.
    bool mark_closed(const Expr& e) {
        bool closed = e.kind != ExprKind::Column;
        for (const auto& a : e.args) closed = mark_closed(*a) && closed;
        std::string name = function_name(e);
        if (!name.empty() && !lookup_function(name, scope_.functions)) {
            std::vector<std::string> names = callable_names();
            if (scope_.functions)
                for (const auto& f : *scope_.functions) names.push_back(f.name);
            // No name is longer than 64: a longer one is no typo (and costs its length squared).
            std::string hint = name.size() <= 64 ? config::did_you_mean(name, names) : "";
            problems_.push_back(
                {e.pos, "No match found for function signature " + name + "(...)" + hint});
            closed = false;
        }
        if (closed) closed_.insert(&e);
        return closed;
    }

    // Compiles what compiles without a schema; returns its node (null for the rest). A call
    // over columns is built with NULL literals in their place, to check its argument count.
    NodePtr check(const Expr& e) {
        if (closed_.count(&e)) {
            try {
                return compile(e, scope_);
            } catch (const CompileError& err) {
                problems_.push_back({err.pos, err.what()});
                return nullptr;
            }
        }
        std::vector<NodePtr> args;
        for (const auto& a : e.args) args.push_back(check(*a));
        std::string name = function_name(e);
        std::optional<FunctionRef> fn =
            name.empty() ? std::nullopt : lookup_function(name, scope_.functions);
        if (!fn) return nullptr;
        CallSite site{e, name, {}};
        site.context = fn->context;
        for (auto& a : args) site.args.push_back(a ? std::move(a) : null_literal());
        try {
            fn->build(site);
        } catch (const ArityError& err) {
            problems_.push_back({err.pos, err.what()});
        } catch (const CompileError&) {
            // Depends on the types of the columns standing in as NULL: checked at run.
        }
        return nullptr;
    }

    NodePtr null_literal() const {
        Expr null;
        null.kind = ExprKind::Literal;
        null.literal = LiteralKind::Null;
        return compile(null, scope_);
    }

    Scope scope_;
    std::unordered_set<const Expr*> closed_;
    std::vector<ExpressionProblem> problems_;
};

}  // namespace

std::vector<ExpressionProblem> check_without_schema(const Expr& e, const Zone* zone,
                                                    const TransformFunctions* functions) {
    return Checker(zone, functions).run(e);
}

}  // namespace cdcd::transform
