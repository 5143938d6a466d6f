// Constructors and accessors of nested values: ARRAY[...], MAP[...], ROW(...), a[i], m[k],
// CARDINALITY, ARRAY_CONTAINS, ARRAY_POSITION, ELEMENT.
#include <algorithm>
#include <cmath>
#include <vector>

#include "pipeline/data/decimal_arithmetic.h"
#include "pipeline/data/field_format.h"
#include "pipeline/transform/compile/types.h"
#include "pipeline/transform/functions/functions.h"

namespace cdcd::transform {

namespace {

// Calcite's leastRestrictive reaches into ARRAY, MAP and ROW (leastRestrictiveArrayMultisetType,
// leastRestrictiveMapType, leastRestrictiveStructuredType): the common type of the parts, field
// names from the first ROW. Scalars: least_restrictive.
std::optional<DataType> common_type(const std::vector<DataType>& types) {
    if (types.empty()) return std::nullopt;
    TypeRoot root = types.front().root();
    bool nested = types.front().is_nested();
    bool nullable = false;
    for (const auto& t : types) {
        if (t.root() != root) nested = false;
        nullable |= t.nullable();
    }
    if (!nested) return least_restrictive(types);
    auto part = [&](auto get) {
        std::vector<DataType> parts;
        parts.reserve(types.size());
        for (const auto& t : types) parts.push_back(get(t));
        return common_type(parts);
    };
    if (root == TypeRoot::Array) {
        auto e = part([](const DataType& t) { return t.element(); });
        if (!e) return std::nullopt;
        return DataType::array(*e).with_nullable(nullable);
    }
    if (root == TypeRoot::Map) {
        auto k = part([](const DataType& t) { return t.key(); });
        auto v = part([](const DataType& t) { return t.value(); });
        if (!k || !v) return std::nullopt;
        return DataType::map(*k, *v).with_nullable(nullable);
    }
    const auto& first = types.front().fields();
    for (const auto& t : types)
        if (t.fields().size() != first.size()) return std::nullopt;
    std::vector<RowField> fields;
    for (std::size_t i = 0; i < first.size(); ++i) {
        auto f = part([i](const DataType& t) { return *t.fields()[i].type; });
        if (!f) return std::nullopt;
        fields.push_back(RowField{first[i].name, std::make_shared<const DataType>(*f), ""});
    }
    return DataType::row(std::move(fields)).with_nullable(nullable);
}

// True when a nested value of type `from` has the bytes of the same value typed `to`: the types
// differ at most in nullability, integer width, CHAR/VARCHAR or BINARY/VARBINARY length. Other
// nested values would need converting element by element, which cdcd does not do.
bool same_nested_bytes(const DataType& from, const DataType& to) {
    if (from.equals_ignoring_nullability(to)) return true;
    if (from.root() != to.root() && !(from.is_integer() && to.is_integer()) &&
        !(is_text(from) && is_text(to)) && !(from.is_binary() && to.is_binary()))
        return false;
    switch (to.root()) {
        case TypeRoot::Array:
            return same_nested_bytes(from.element(), to.element());
        case TypeRoot::Map:
            return same_nested_bytes(from.key(), to.key()) &&
                   same_nested_bytes(from.value(), to.value());
        case TypeRoot::Row:
            if (from.fields().size() != to.fields().size()) return false;
            for (std::size_t i = 0; i < to.fields().size(); ++i)
                if (!same_nested_bytes(*from.fields()[i].type, *to.fields()[i].type)) return false;
            return true;
        default:
            if (from.is_integer()) return integer_digits(to.root()) >= integer_digits(from.root());
            return is_text(from) || from.is_binary();
    }
}

// Converts argument i to the common type `to` of a constructor's elements, keys or values.
void to_common(CallSite& c, std::size_t i, const DataType& to) {
    NodePtr& a = c.args[i];
    if (!a->null_literal && a->type.is_nested() && !a->type.equals_ignoring_nullability(to)) {
        if (!same_nested_bytes(a->type, to))
            c.fail_arg(i, "Cannot convert " + a->type.to_string() + " to " + to.to_string() +
                              " in " + c.signature() +
                              ": its elements would need converting one by one; CAST them to " +
                              "one type");
        a->type = to.with_nullable(a->type.nullable());
        return;
    }
    a = coerce(std::move(a), to, c.expr.args[i]->pos);
}

Datum eval_array(const Node& n, EvalContext& c) {
    const DataType& et = n.type.element();
    RowBuilder b(n.args.size());
    for (std::size_t i = 0; i < n.args.size(); ++i) write_field(b, i, n.args[i]->eval(c), et);
    Row r = std::move(b).build();
    return Datum::of_string(c.arena.copy(r.bytes()));
}
NodePtr b_array(CallSite& c) {
    if (c.args.empty()) c.fail_arity("ARRAY needs at least one element");
    std::vector<DataType> types;
    for (auto& a : c.args)
        if (!a->null_literal) types.push_back(a->type);
    auto et = types.empty() ? std::optional<DataType>(DataType::string()) : common_type(types);
    if (!et) c.fail("Cannot infer the element type of " + c.signature());
    if (types.size() < c.args.size()) et = et->with_nullable(true);  // a NULL element
    for (std::size_t i = 0; i < c.args.size(); ++i) to_common(c, i, *et);
    return make_node(eval_array, DataType::array(*et).not_null(), std::move(c.args));
}

// StructFunctions.map fills a LinkedHashMap: a repeated key keeps its first place and takes the
// last value.
Datum eval_map(const Node& n, EvalContext& c) {
    const std::size_t pairs = n.args.size() / 2;
    std::vector<std::pair<Datum, Datum>> entries;
    entries.reserve(pairs);
    for (std::size_t i = 0; i < pairs; ++i) {
        Datum key = n.args[2 * i]->eval(c);
        Datum value = n.args[2 * i + 1]->eval(c);
        auto same = std::find_if(entries.begin(), entries.end(), [&](const auto& e) {
            return e.first.null
                       ? key.null
                       : !key.null && values_equal(e.first, n.type.key(), key, n.type.key());
        });
        if (same != entries.end())
            same->second = value;
        else
            entries.emplace_back(key, value);
    }
    const std::size_t k = entries.size();
    RowBuilder keys(k), values(k);
    for (std::size_t i = 0; i < k; ++i) {
        write_field(keys, i, entries[i].first, n.type.key());
        write_field(values, i, entries[i].second, n.type.value());
    }
    Row kr = std::move(keys).build(), vr = std::move(values).build();
    RowBuilder holder(1);
    holder.set_map(0, kr.view(), vr.view());
    Row h = std::move(holder).build();
    return Datum::of_string(c.arena.copy(h.view().get_bytes(0)));
}
NodePtr b_map(CallSite& c) {
    if (c.args.empty() || c.args.size() % 2) c.fail_arity("MAP needs key/value pairs");
    std::vector<DataType> kt, vt;
    for (std::size_t i = 0; i < c.args.size(); ++i)
        if (!c.args[i]->null_literal) (i % 2 ? vt : kt).push_back(c.type(i));
    auto k = kt.empty() ? std::optional<DataType>(DataType::string()) : common_type(kt);
    auto v = vt.empty() ? std::optional<DataType>(DataType::string()) : common_type(vt);
    if (!k || !v) c.fail("Cannot infer the key/value types of " + c.signature());
    if (kt.size() < c.args.size() / 2) k = k->with_nullable(true);  // a NULL key
    if (vt.size() < c.args.size() / 2) v = v->with_nullable(true);  // a NULL value
    for (std::size_t i = 0; i < c.args.size(); ++i) to_common(c, i, i % 2 ? *v : *k);
    return make_node(eval_map, DataType::map(*k, *v).not_null(), std::move(c.args));
}

Datum eval_row(const Node& n, EvalContext& c) {
    RowBuilder b(n.args.size());
    for (std::size_t i = 0; i < n.args.size(); ++i)
        write_field(b, i, n.args[i]->eval(c), n.args[i]->type);
    Row r = std::move(b).build();
    return Datum::of_string(c.arena.copy(r.bytes()));
}
NodePtr b_row(CallSite& c) {
    if (c.args.empty()) c.fail_arity("ROW needs at least one field");
    std::vector<RowField> fields;
    for (std::size_t i = 0; i < c.args.size(); ++i)
        fields.push_back(
            RowField{"f" + std::to_string(i), std::make_shared<const DataType>(c.type(i)), ""});
    return make_node(eval_row, DataType::row(std::move(fields)).not_null(), std::move(c.args));
}

// param: 0 array, 1 map, 2 row
Datum eval_item(const Node& n, EvalContext& c) {
    Datum v = n.args[0]->eval(c);
    if (v.null) return v;
    Datum k = n.args[1]->eval(c);
    if (k.null) return k;
    const DataType& t = n.args[0]->type;
    if (n.param == 0) {
        RowView a(v.s);
        if (k.i < 1 || k.i > a.arity()) return Datum{};
        return read_field(a, k.i - 1, t.element());
    }
    if (n.param == 2) return read_field(RowView(v.s), n.param2, n.type);
    RowBuilder holder(1);
    holder.set_bytes(0, v.s);
    Row h = std::move(holder).build();
    RowView keys = h.view().get_map_keys(0), values = h.view().get_map_values(0);
    for (std::size_t i = 0; i < keys.arity(); ++i) {
        Datum key = read_field(keys, i, t.key());
        if (values_equal(key, t.key(), k, n.args[1]->type)) {
            Datum r = read_field(values, i, t.value());
            if (!r.null && is_variable_length(t.value())) r.s = c.arena.copy(r.s);
            return r;
        }
    }
    return Datum{};
}

NodePtr b_item(CallSite& c) {
    c.arity(2, 2);
    const DataType& t = c.type(0);
    if (t.root() == TypeRoot::Array) {
        c.require_integer(1);
        auto et = t.element().with_nullable(true);
        return make_node(eval_item, et, std::move(c.args));
    }
    if (t.root() == TypeRoot::Map) {
        auto vt = t.value().with_nullable(true);
        auto n = make_node(eval_item, vt, std::move(c.args));
        n->param = 1;
        return n;
    }
    if (t.root() == TypeRoot::Row) {
        // Calcite types a ROW subscript from its literal value (SqlItemOperator): anything else,
        // even a constant expression such as 1 + 1, is rejected ("Cannot infer type of field at
        // position null", specs/nested.yaml:319).
        const Expr& at = *c.expr.args[1];
        const Node& idx = *c.args[1];
        if (at.kind != ExprKind::Literal || at.literal != LiteralKind::Integer ||
            !idx.is_constant || !is_integral(idx.type))
            c.fail_arg(1,
                       "ROW subscript must be an integer literal: the field's type cannot be "
                       "inferred from a computed position");
        std::int64_t i = idx.constant.i;
        if (i < 1 || i > static_cast<std::int64_t>(t.fields().size()))
            c.fail_arg(1, "ROW subscript " + std::to_string(i) + " out of range");
        auto ft = t.fields()[i - 1].type->with_nullable(true);
        auto n = make_node(eval_item, ft, std::move(c.args));
        n->param = 2;
        n->param2 = i - 1;
        return n;
    }
    c.fail("Cannot apply 'ITEM' to arguments of type " + c.signature());
}

Datum eval_cardinality(const Node& n, EvalContext& c) {
    Datum v = n.args[0]->eval(c);
    if (v.null) return v;
    if (n.param) {
        RowBuilder holder(1);
        holder.set_bytes(0, v.s);
        Row h = std::move(holder).build();
        return Datum::of_long(h.view().get_map_keys(0).arity());
    }
    return Datum::of_long(RowView(v.s).arity());
}
NodePtr b_cardinality(CallSite& c) {
    c.arity(1, 1);
    auto r = c.type(0).root();
    if (r != TypeRoot::Array && r != TypeRoot::Map)
        c.fail("Cannot apply 'CARDINALITY' to arguments of type " + c.signature());
    bool nullable = c.any_nullable();
    auto n =
        make_node(eval_cardinality, DataType::int_().with_nullable(nullable), std::move(c.args));
    n->param = r == TypeRoot::Map;
    return n;
}

// StructFunctions.valueEquals: numbers are equal across types (Double.compare when either is
// FLOAT/DOUBLE, else the exact value), anything else as `=`.
bool element_equals(const Datum& a, const DataType& ta, const Datum& b, const DataType& tb) {
    if (!ta.is_numeric() || !tb.is_numeric()) return values_equal(a, ta, b, tb);
    auto floating = [](const DataType& t) {
        return t.root() == TypeRoot::Float || t.root() == TypeRoot::Double;
    };
    if (floating(ta) || floating(tb)) {
        double x = to_double(a, ta), y = to_double(b, tb);
        return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
    }
    if (ta.is_integer() && tb.is_integer()) return a.i == b.i;
    // DECIMAL with DECIMAL or an integer: compared at the larger scale.
    __int128 x = ta.is_integer() ? static_cast<__int128>(a.i) : a.dec;
    __int128 y = tb.is_integer() ? static_cast<__int128>(b.i) : b.dec;
    int sx = ta.is_integer() ? 0 : ta.scale(), sy = tb.is_integer() ? 0 : tb.scale();
    return compare_decimals(x, sx, y, sy) == 0;
}

// param 0: ARRAY_CONTAINS, 1: ARRAY_POSITION
Datum eval_array_search(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return a;
    Datum x = n.args[1]->eval(c);
    // ARRAY_POSITION of NULL is NULL; ARRAY_CONTAINS finds a NULL element.
    if (x.null && n.param) return Datum{};
    RowView arr(a.s);
    const DataType& et = n.args[0]->type.element();
    for (std::size_t i = 0; i < arr.arity(); ++i) {
        Datum e = read_field(arr, i, et);
        bool hit = e.null ? x.null : !x.null && element_equals(e, et, x, n.args[1]->type);
        if (hit)
            return n.param ? Datum::of_long(static_cast<std::int64_t>(i) + 1)
                           : Datum::of_bool(true);
    }
    return n.param ? Datum::of_long(0) : Datum::of_bool(false);
}
NodePtr build_array_search(CallSite& c, bool position) {
    c.arity(2, 2);
    if (c.type(0).root() != TypeRoot::Array)
        c.fail("Cannot apply '" + c.name + "' to arguments of type " + c.signature());
    bool nullable = c.type(0).nullable() || (position && c.type(1).nullable());
    auto n = make_node(eval_array_search,
                       (position ? DataType::int_() : DataType::boolean()).with_nullable(nullable),
                       std::move(c.args));
    n->param = position;
    return n;
}
NodePtr b_array_contains(CallSite& c) {
    return build_array_search(c, false);
}
NodePtr b_array_position(CallSite& c) {
    return build_array_search(c, true);
}

Datum eval_element(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return a;
    RowView arr(a.s);
    if (arr.arity() == 0) return Datum{};
    if (arr.arity() > 1) throw EvalError("ELEMENT of an array with more than one element");
    return read_field(arr, 0, n.type);
}
NodePtr b_element(CallSite& c) {
    c.arity(1, 1);
    if (c.type(0).root() != TypeRoot::Array)
        c.fail("Cannot apply 'ELEMENT' to arguments of type " + c.signature());
    auto t = c.type(0).element().with_nullable(true);
    return make_node(eval_element, t, std::move(c.args));
}

}  // namespace

void register_struct(Registry& r) {
    r["ARRAY"] = b_array;
    r["MAP"] = b_map;
    r["ROW"] = b_row;
    r["ITEM"] = b_item;
    r["CARDINALITY"] = b_cardinality;
    r["ARRAY_CONTAINS"] = b_array_contains;
    r["ARRAY_POSITION"] = b_array_position;
    r["ELEMENT"] = b_element;
}

}  // namespace cdcd::transform
