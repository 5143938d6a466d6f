#include "sinks/vikingdb/collection_validator.h"

#include <map>
#include <set>

namespace cdcd::vikingdb {

namespace {

/// An inferred type that may be written into a collection field of type `existing`.
bool adoptable(const FieldMapping& f, VType existing) {
    if (f.overridden) return false;
    const DataType& t = f.source;
    switch (existing) {
        case VType::Text:
        case VType::Image:
        case VType::GeoPoint:
        case VType::Video:
        case VType::DateTime:
            return t.is_character();
        case VType::String:
            return f.type == VType::JsonString;
        case VType::Vector:
            return t.root() == TypeRoot::Array && (f.type == VType::ListInt64);
        case VType::SparseVector:
            return t.root() == TypeRoot::Map && t.key().is_character() && t.value().is_numeric();
        case VType::Float32:
            return f.type == VType::Int64 && !f.primary_key;
        default:
            return false;
    }
}

}  // namespace

ValidationResult validate_collection(const CollectionSpec& wanted, const CollectionInfo& existing) {
    ValidationResult out;
    out.spec = wanted;
    std::map<std::string, const ExistingField*> by_name;
    for (const auto& f : existing.fields) by_name[f.name] = &f;
    std::set<std::string> seen;
    for (auto& f : out.spec.fields) {
        seen.insert(f.name);
        auto it = by_name.find(f.name);
        if (it == by_name.end()) {
            out.mismatches.push_back("column `" + f.name + "` (" + wire_name(f.type) +
                                     ") has no field in the collection");
            continue;
        }
        const ExistingField& e = *it->second;
        auto etype = parse_wire_type(e.type);
        std::string want = wire_name(f.type);
        if (!etype) {
            out.mismatches.push_back("field `" + f.name + "` has type '" + e.type +
                                     "', unknown to the sink");
        } else if (want != e.type) {
            if (adoptable(f, *etype)) {
                f.type = *etype;
            } else {
                out.mismatches.push_back("field `" + f.name + "`: the collection has type " +
                                         e.type + ", the table's column " + f.source.to_string() +
                                         " maps to " + want);
                continue;
            }
        }
        if (f.type == VType::Vector) {
            if (f.dim && e.dim && *f.dim != *e.dim)
                out.mismatches.push_back("field `" + f.name +
                                         "`: the collection's vector dimension is " +
                                         std::to_string(*e.dim) + ", vikingdb.field." + f.name +
                                         ".dim is " + std::to_string(*f.dim));
            else if (e.dim)
                f.dim = e.dim;
        }
    }
    const std::string& pk = wanted.pk().name;
    if (existing.primary_key != pk)
        out.mismatches.push_back("primary key: the collection's is `" + existing.primary_key +
                                 "`, the table's is `" + pk + "`");
    for (const auto& e : existing.fields) {
        if (seen.count(e.name) || e.primary_key) continue;
        auto etype = parse_wire_type(e.type);
        if (etype && requires_value(*etype) && !existing.vectorize)
            out.mismatches.push_back(
                "field `" + e.name + "` (" + e.type +
                ") needs a value in every upsert but the table has no such column");
    }
    return out;
}

std::string mismatch_message(const std::string& collection, const std::string& table,
                             const std::vector<std::string>& mismatches) {
    std::string out = "VikingDB sink: existing collection '" + collection +
                      "' is not compatible with table " + table + " (" +
                      std::to_string(mismatches.size()) + " mismatch" +
                      (mismatches.size() == 1 ? "" : "es") + "):";
    for (const auto& m : mismatches) out += "\n  - " + m;
    out +=
        "\nChange the transform or the field options (vikingdb.field.<f>.type/.dim), or prepare a "
        "compatible "
        "collection.";
    return out;
}

}  // namespace cdcd::vikingdb
