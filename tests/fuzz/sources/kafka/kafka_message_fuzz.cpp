// Kafka messages from hostile bytes through the decoder and schema inference. The first byte
// picks the value format (json, debezium-json with and without the Connect schema, canal-json)
// and the table-id mode (fixed, fields of the value, fields of the key); the rest is messages
// separated by "\n--\n", each "key\tvalue" or just a value. Schemas evolve across messages, so
// inference meets every widening. A message may be refused (ParseError, simdjson's errors);
// nothing else may escape, and every row printed against its table's schema as announced by the
// schema change events before it (as the values sink does), then the schemas after a checkpoint
// round trip.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string_view>

#include "pipeline/event/event_format.h"
#include "pipeline/schema/schema_change_apply.h"
#include "pipeline/schema/schema_json.h"
#include "sources/kafka/message_decoder.h"

using namespace cdcd;

namespace {

kafka::DecoderSettings settings_for(std::uint8_t mode) {
    kafka::DecoderSettings s;
    switch (mode % 4) {
        case 0:
            s.format = kafka::ValueFormat::Json;
            break;
        case 1:
            s.format = kafka::ValueFormat::DebeziumJson;
            break;
        case 2:
            s.format = kafka::ValueFormat::DebeziumJson;
            s.debezium_schema_include = true;
            break;
        default:
            s.format = kafka::ValueFormat::CanalJson;
            break;
    }
    switch ((mode / 4) % 4) {
        case 0:
            s.fixed_table = TableId::of("db", "t");
            break;
        case 1:
            s.table_fields = {"source.db", "source.table"};
            break;
        case 2:
            s.table_fields = {"database", "table"};
            break;
        default:
            s.table_from_key = true;
            s.table_fields = {"$.db", "tbl"};
            break;
    }
    // Topic, timestamps and headers need a real librdkafka message; these need none.
    if (mode & 0x10)
        s.metadata = {kafka::MetadataField::Partition, kafka::MetadataField::Offset,
                      kafka::MetadataField::Key};
    return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    kafka::MessageDecoder decoder(settings_for(data[0]));
    std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
    EventBatch out;
    std::int64_t offset = 0;
    while (true) {
        auto end = rest.find("\n--\n");
        std::string_view message = rest.substr(0, end);
        std::string_view key, value = message;
        if (auto tab = message.find('\t'); tab != std::string_view::npos) {
            key = message.substr(0, tab);
            value = message.substr(tab + 1);
        }
        rd_kafka_message_t m{};
        m.payload = const_cast<char*>(value.data());
        m.len = value.size();
        if (!key.empty()) {
            m.key = const_cast<char*>(key.data());
            m.key_len = key.size();
        }
        m.offset = offset++;
        try {
            decoder.decode(m, out);
        } catch (const kafka::ParseError&) {
        } catch (const simdjson::simdjson_error&) {
        }
        if (end == std::string_view::npos) break;
        rest.remove_prefix(end + 4);
    }
    std::map<TableId, Schema> schemas;
    for (const Event& e : out) {
        if (const auto* change = std::get_if<DataChangeEvent>(&e)) {
            (void)format_data_change(*change, schemas.at(change->table));
        } else {
            auto sc = *as_schema_change(e);
            Schema& schema = schemas[table_of(sc)];
            schema = apply_schema_change(schema, sc);
            (void)format_schema_change(sc);
        }
    }
    TableSchemas tables(schemas.begin(), schemas.end());
    std::string json = table_schemas_to_json(tables);
    if (table_schemas_to_json(table_schemas_from_json(json)) != json) std::abort();
    return 0;
}
