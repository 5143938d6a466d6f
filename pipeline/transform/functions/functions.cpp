#include "pipeline/transform/functions/functions.h"

#include <set>

namespace cdcd::transform {

void CallSite::fail_arg(std::size_t i, const std::string& message) const {
    int pos = i < expr.args.size() ? expr.args[i]->pos : expr.pos;
    throw CompileError(pos, message);
}

void CallSite::arity(std::size_t min, std::size_t max) const {
    if (args.size() < min || args.size() > max) {
        std::string want =
            min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max);
        fail_arity("Invalid number of arguments to function '" + name + "'. Was expecting " + want +
                   " arguments, got " + std::to_string(args.size()));
    }
}

bool CallSite::any_nullable() const {
    for (const auto& a : args)
        if (a->type.nullable()) return true;
    return false;
}

void CallSite::note_never_equal(std::size_t i, std::size_t j, const std::string& what) const {
    if (args[i]->null_literal || args[j]->null_literal) return;
    if (java_class(type(i)) == java_class(type(j))) return;
    note(what + " compares " + type(i).with_nullable(true).to_string() + " with " +
         type(j).with_nullable(true).to_string() +
         ", which is never TRUE: Flink CDC's `=` is Java's equals, and a value of one of these "
         "types never equals one of the other (CAST one side to the other's type)");
}

std::string CallSite::signature() const {
    std::string s = name + "(";
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (i) s += ", ";
        s += args[i]->null_literal ? "NULL" : args[i]->type.with_nullable(true).to_string();
    }
    return s + ")";
}

void CallSite::require_text(std::size_t i) const {
    if (!is_text(args[i]->type) && !args[i]->null_literal)
        fail_arg(i, "Cannot apply '" + name + "' to arguments of type " + signature() +
                        ": argument " + std::to_string(i + 1) + " must be a string");
}

void CallSite::require_numeric(std::size_t i) const {
    if (!is_numeric(args[i]->type) && !args[i]->null_literal)
        fail_arg(i, "Cannot apply '" + name + "' to arguments of type " + signature() +
                        ": argument " + std::to_string(i + 1) + " must be numeric");
}

void CallSite::require_integer(std::size_t i) const {
    if (!is_integral(args[i]->type) && !args[i]->null_literal)
        fail_arg(i, "Cannot apply '" + name + "' to arguments of type " + signature() +
                        ": argument " + std::to_string(i + 1) + " must be an integer");
}

NodePtr make_node(EvalFn fn, DataType type, std::vector<NodePtr> args) {
    auto n = std::make_unique<Node>();
    n->fn = fn;
    n->type = std::move(type);
    n->args = std::move(args);
    return n;
}

namespace {

const Registry& registry() {
    static const Registry r = [] {
        Registry reg;
        register_logic(reg);
        register_arith(reg);
        register_string(reg);
        register_regex(reg);
        register_temporal(reg);
        register_cond(reg);
        register_cast(reg);
        register_struct(reg);
        return reg;
    }();
    return r;
}

}  // namespace

const Registry& functions() {
    return registry();
}

std::optional<FunctionRef> lookup_function(const std::string& name,
                                           const TransformFunctions* extra) {
    if (auto it = registry().find(name); it != registry().end())
        return FunctionRef{it->second, is_volatile(name), nullptr};
    if (extra)
        for (const auto& f : *extra)
            if (f.name == name) return FunctionRef{f.build, f.is_volatile, f.context, true};
    return std::nullopt;
}

bool is_volatile(std::string_view name) {
    return name == "UUID" || name == "NOW" || name == "LOCALTIME" || name == "LOCALTIMESTAMP" ||
           name == "CURRENT_TIME" || name == "CURRENT_DATE" || name == "CURRENT_TIMESTAMP" ||
           name == "UNIX_TIMESTAMP" || name == "RAND";
}

}  // namespace cdcd::transform
