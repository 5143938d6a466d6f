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

Registry& registry() {
    static Registry r = [] {
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

std::set<std::string, std::less<>>& extension_volatiles() {
    static std::set<std::string, std::less<>> names;
    return names;
}

}  // namespace

const Registry& functions() {
    return registry();
}

bool register_extension_function(const std::string& name, Builder builder, bool volatile_) {
    if (!registry().emplace(name, builder).second) return false;
    if (volatile_) extension_volatiles().insert(name);
    return true;
}

bool is_volatile(std::string_view name) {
    if (extension_volatiles().count(name)) return true;
    return name == "UUID" || name == "NOW" || name == "LOCALTIME" || name == "LOCALTIMESTAMP" ||
           name == "CURRENT_TIME" || name == "CURRENT_DATE" || name == "CURRENT_TIMESTAMP" ||
           name == "UNIX_TIMESTAMP" || name == "RAND";
}

}  // namespace cdcd::transform
