// A replication stream from hostile bytes through the postgres source's decoding: the input is
// CopyData messages, each a 2-byte big-endian length and its bytes, as the server sends them
// during START_REPLICATION (XLogData carrying pgoutput messages, keepalives). Each message is
// decoded; pgoutput messages go through the change decoder (Relation columns mapped as the
// catalog would, domains resolved to base types, values parsed from text: bit strings, points
// and hstore too) and every data change
// is printed against its table's schema, as the values sink does. A message may be refused
// (PgoutputError) and the decoder may stop on a change before its Relation or a changed table
// (std::runtime_error); nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string_view>

#include "pipeline/event/event_format.h"
#include "sources/postgres/change_decoder.h"
#include "sources/postgres/replication_protocol.h"
#include "sources/postgres/type_mapping.h"

using namespace cdcd;
using namespace cdcd::postgres;

namespace {

// What the catalog would answer for a type created after initdb (resolve_types): picked by the
// oid, so that an input reaches each kind: domains over a base type with and without a typmod,
// over a refused type, an array of a domain, and types that are not domains, named as their Type
// message named them (hstore, ltree[], unknown ones).
PgColumnType resolved(Oid type, const std::map<Oid, std::string>& type_names) {
    auto name = type_names.find(type);
    PgColumnType own{type, -1, false, name == type_names.end() ? std::string() : name->second};
    switch (type % 8) {
        case 1:
            return {oid::kInt4, -1, false, "integer", "positive_int"};
        case 2:
            return {oid::kVarchar, 20 + 4, false, "character varying(20)", "code"};
        case 3:
            return {oid::kNumeric, ((10 << 16) | 2) + 4, false, "numeric(10,2)", "price"};
        case 4:
            return {oid::kBit, 8, false, "bit(8)", "flags"};
        case 5:
            return {oid::kTsvector, -1, false, "tsvector", "words"};
        case 6:
            return {type, -1, false, "positive_int[]", "", "positive_int", "integer"};
        case 7:
            own.is_enum = true;
            return own;
        default:
            return own;
    }
}

// What the catalog would answer: the Relation's columns, each type mapped (a type of its own
// resolved as above, with the column's typmod unless it is a domain), under `modes`, the key
// columns as the primary key; a refused type stops the decoder as table_schema() does.
Schema schema_of(const RelationMessage& m, const std::map<Oid, std::string>& type_names,
                 const ValueModes& modes) {
    std::vector<Column> columns;
    std::vector<std::string> keys;
    for (const RelationColumn& c : m.columns) {
        PgColumnType type{c.type_oid, c.type_modifier, false, ""};
        if (c.type_oid >= oid::kFirstNormalOid) {
            type = resolved(c.type_oid, type_names);
            if (type.domain.empty()) type.type_modifier = c.type_modifier;
        }
        auto mapped = map_type(type, modes);
        if (auto* refusal = std::get_if<TypeRefusal>(&mapped))
            throw std::runtime_error(refusal->reason);
        columns.push_back(Column{c.name, std::get<DataType>(mapped), {}, {}});
        if (c.part_of_key) keys.push_back(c.name);
    }
    return Schema(std::move(columns), std::move(keys));
}

/// Decodes the stream of length-prefixed replication messages in `input` under `modes`.
void decode_stream(const std::uint8_t* data, std::string_view input, const ValueModes& modes) {
    std::map<Oid, std::string> type_names;
    ChangeDecoder decoder(
        TableFilter("db", "db.\\.*.\\.*", std::nullopt, false),
        [&](const RelationMessage& m) { return schema_of(m, type_names, modes); }, false, modes);
    decoder.set_type_resolver([&](Oid type) { return resolved(type, type_names); });
    std::map<TableId, Schema> schemas;
    std::size_t pos = 0;
    try {
        while (pos + 2 <= input.size()) {
            const std::size_t length = (static_cast<std::size_t>(data[pos]) << 8) | data[pos + 1];
            pos += 2;
            const std::string_view message = input.substr(pos, length);
            pos += message.size();
            const ServerCopyMessage copy = decode_server_copy(message);
            const auto* xlog = std::get_if<XLogData>(&copy);
            if (!xlog) continue;
            const PgoutputMessage decoded = decode_pgoutput(xlog->payload);
            (void)message_tag(decoded);
            if (const auto* type = std::get_if<TypeMessage>(&decoded))
                type_names[type->type_oid] = type->namespace_name.empty()
                                                 ? type->type_name
                                                 : type->namespace_name + "." + type->type_name;
            EventBatch events;
            std::vector<BadRecord> bad;
            decoder.decode(decoded, events, bad);
            for (const Event& e : events) {
                if (const auto* create = std::get_if<CreateTableEvent>(&e)) {
                    schemas[create->table] = create->schema;
                    (void)format_schema_change(*create);
                } else if (const auto* change = std::get_if<DataChangeEvent>(&e)) {
                    (void)format_data_change(*change, schemas.at(change->table));
                } else {
                    (void)format_schema_change(*as_schema_change(e));
                }
            }
        }
    } catch (const PgoutputError&) {
    } catch (const std::runtime_error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    // Debezium's defaults, then every other value mode (debezium.*), so that each text form reads
    // the same hostile values.
    decode_stream(data, input, ValueModes{});
    decode_stream(data, input,
                  ValueModes{ValueModes::Decimal::String, ValueModes::Binary::Base64,
                             ValueModes::Interval::String, ValueModes::Hstore::Map, 0});
    decode_stream(data, input,
                  ValueModes{ValueModes::Decimal::Double, ValueModes::Binary::Hex,
                             ValueModes::Interval::Numeric, ValueModes::Hstore::Json, 38});
    return 0;
}
