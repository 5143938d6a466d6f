#pragma once
// Turns Kafka messages into events: table id, value format, schema inference, rows, metadata.
// Runs on the consumer thread; owns its simdjson parsers and reused buffers.
#include <librdkafka/rdkafka.h>
#include <simdjson.h>

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/json/message_parser.h"
#include "pipeline/types/data_type.h"
#include "sources/kafka/schema_inference.h"
#include "sources/kafka/table_id_extractor.h"

namespace cdcd::kafka {

enum class MetadataField { Topic, Partition, Offset, Timestamp, TimestampType, Key, Headers };
/// "topic" → Topic, …; nullopt for unknown names.
std::optional<MetadataField> metadata_field(const std::string& name);
const char* metadata_name(MetadataField field);
/// The type a transform sees the field as (Flink's Kafka metadata columns; `headers` is the JSON
/// object text of the headers, `key` the key's bytes as a string, NULL without a key).
DataType metadata_type(MetadataField field);

struct DecoderSettings {
    ValueFormat format = ValueFormat::Json;
    bool debezium_schema_include = false;  // envelope required
    std::optional<TableId> fixed_table;
    bool table_from_key = false;
    std::vector<std::string> table_fields;
    std::vector<MetadataField> metadata;
    CanalFilter canal;
    MessageLimits limits;
};

/// How a decoder that shares its inferred schemas with other readers' (split readers:
/// pipeline/connector/schema_change_gate.h) changes them.
class SchemaChanges {
  public:
    virtual ~SchemaChanges() = default;
    /// A message does not fit its table's schema: true once this reader may change it.
    virtual bool begin() = 0;
    /// The table's schema after this reader changed it.
    virtual void changed(TableId table, const Schema& schema) = 0;
};

/// Thrown by MessageDecoder::decode when SchemaChanges::begin() says another reader is changing
/// schemas: nothing was changed or appended; decode the message again once the reader has paused
/// for that change and taken its schemas.
struct SchemaChangeElsewhere : std::exception {
    const char* what() const noexcept override {
        return "another reader is changing the inferred schemas";
    }
};

/// Whether simdjson can parse the `size` bytes at `data` where they lie: the padding it reads past
/// a document's end is in the page of its last byte. Always false under ASan and TSan.
bool padding_readable_in_place(const void* data, std::size_t size);

class MessageDecoder {
  public:
    explicit MessageDecoder(const DecoderSettings& settings);
    void restore(const TableSchemas& schemas);
    /// Changes of the inferred schemas go through `changes` (not owned; null: this decoder's
    /// alone).
    void share_schemas(SchemaChanges* changes) { changes_ = changes; }

    /// Appends the message's events (schema changes first) to `out`. Throws ParseError (or a
    /// simdjson error) with the reason, "the message value is not valid JSON: …" for bytes that
    /// are not JSON, LimitError naming the limit (and the table, once known) for a message over
    /// one of settings.limits; events of a failed message are not appended, except schema
    /// changes already applied to the inferred schema.
    void decode(const rd_kafka_message_t& message, EventBatch& out);

  private:
    void decode_json(const rd_kafka_message_t& message, EventBatch& out);
    /// Parses the value into parsed_; a LimitError comes back naming `table`.
    void parse_value(simdjson::ondemand::document& doc, std::optional<TableId> table);
    /// Why these bytes are not one valid JSON document; nullopt when they are.
    std::optional<std::string> not_json(const void* data, std::size_t size);
    simdjson::ondemand::document& iterate(simdjson::ondemand::parser& parser, const void* data,
                                          std::size_t size, std::string& buffer,
                                          simdjson::ondemand::document& doc);
    EventMeta metadata(const rd_kafka_message_t& m) const;
    std::vector<std::string> key_primary_keys(const rd_kafka_message_t& m);

    DecoderSettings settings_;
    std::unique_ptr<FormatParser> parser_;
    std::optional<TableIdExtractor> extractor_;
    SchemaInference inference_;
    simdjson::ondemand::parser value_parser_, key_parser_;
    simdjson::dom::parser dom_parser_;  // error path only: is the message JSON at all
    simdjson::ondemand::document value_doc_, key_doc_;
    std::string value_buffer_, key_buffer_;
    ParsedMessage parsed_;
    std::vector<const Image*> images_;
    SchemaChanges* changes_ = nullptr;
};

}  // namespace cdcd::kafka
