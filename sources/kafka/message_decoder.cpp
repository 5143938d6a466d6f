#include "sources/kafka/message_decoder.h"

#include <cstdint>

#include "formats/json/json_writer.h"

namespace cdcd::kafka {

namespace {
const char* const kMetadataNames[] = {"topic",          "partition", "offset", "timestamp",
                                      "timestamp-type", "key",       "headers"};
}

std::optional<MetadataField> metadata_field(const std::string& name) {
    for (int i = 0; i < 7; ++i)
        if (name == kMetadataNames[i]) return static_cast<MetadataField>(i);
    return std::nullopt;
}

const char* metadata_name(MetadataField field) {
    return kMetadataNames[static_cast<int>(field)];
}

DataType metadata_type(MetadataField field) {
    switch (field) {
        case MetadataField::Partition:
            return DataType::int_();
        case MetadataField::Offset:
            return DataType::bigint();
        case MetadataField::Timestamp:
            return DataType::timestamp_ltz(3);
        case MetadataField::Topic:
        case MetadataField::TimestampType:
        case MetadataField::Key:
        case MetadataField::Headers:
            break;
    }
    return DataType::string();
}

namespace {

[[noreturn]] void throw_in_table(const LimitError& e, TableId table) {
    throw LimitError("table " + table.str() + ": " + e.what());
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

}  // namespace

bool padding_readable_in_place(const void* data, std::size_t size) {
    // simdjson reads up to SIMDJSON_PADDING bytes past a document's end, whatever they hold (its
    // results do not depend on them; simdjson's own dom parser makes this same test before it
    // copies). Bytes in the page of the last byte are readable, so such a message is parsed
    // where librdkafka keeps it instead of being copied (the copy was 1.2 % of the relay's CPU).
    // Sanitizers would report the read past the allocation: they always get the copy.
    constexpr std::uintptr_t kPage = 4096;  // the smallest page size; larger ones hold it too
    if (kSanitized || size == 0) return false;
    const auto last = reinterpret_cast<std::uintptr_t>(data) + size - 1;
    return last % kPage + simdjson::SIMDJSON_PADDING < kPage;
}

MessageDecoder::MessageDecoder(const DecoderSettings& settings)
    : settings_(settings),
      parser_(make_format_parser(settings.format, settings.canal)),
      inference_(settings.limits) {
    if (!settings_.fixed_table)
        extractor_.emplace(
            settings_.table_fields,
            settings_.format == ValueFormat::DebeziumJson && !settings_.table_from_key,
            settings_.limits.max_tables);
    parsed_.max_json_depth = settings_.limits.max_json_depth;
    parsed_.connect_schema =
        settings_.format == ValueFormat::DebeziumJson && settings_.debezium_schema_include;
}

void MessageDecoder::restore(const TableSchemas& schemas) {
    inference_.restore(schemas);
    if (extractor_)
        for (const auto& [table, schema] : schemas) extractor_->remember(table);
}

void MessageDecoder::parse_value(simdjson::ondemand::document& doc, std::optional<TableId> table) {
    try {
        parser_->parse(doc, parsed_);
    } catch (const LimitError& e) {
        if (!table) throw;
        throw_in_table(e, *table);
    }
}

simdjson::ondemand::document& MessageDecoder::iterate(simdjson::ondemand::parser& parser,
                                                      const void* data, std::size_t size,
                                                      std::string& buffer,
                                                      simdjson::ondemand::document& doc) {
    simdjson::error_code error;
    if (padding_readable_in_place(data, size)) {
        error =
            parser.iterate(static_cast<const char*>(data), size, size + simdjson::SIMDJSON_PADDING)
                .get(doc);
    } else {
        if (buffer.size() < size + simdjson::SIMDJSON_PADDING)
            buffer.resize(size + simdjson::SIMDJSON_PADDING);
        std::memcpy(buffer.data(), data, size);
        std::memset(buffer.data() + size, ' ', simdjson::SIMDJSON_PADDING);
        error = parser.iterate(buffer.data(), size, buffer.size()).get(doc);
    }
    if (error) throw ParseError(std::string("invalid JSON: ") + simdjson::error_message(error));
    return doc;
}

std::vector<std::string> MessageDecoder::key_primary_keys(const rd_kafka_message_t& m) {
    if (!m.key || m.key_len == 0) return {};
    try {
        auto& doc = iterate(key_parser_, m.key, m.key_len, key_buffer_, key_doc_);
        return debezium_key_fields(doc);
    } catch (const std::exception&) {
        return {};  // a key that is not JSON carries no primary key
    }
}

EventMeta MessageDecoder::metadata(const rd_kafka_message_t& m) const {
    EventMeta meta;
    meta.reserve(settings_.metadata.size());
    for (MetadataField f : settings_.metadata) {
        std::string value;
        switch (f) {
            case MetadataField::Topic:
                value = rd_kafka_topic_name(m.rkt);
                break;
            case MetadataField::Partition:
                value = std::to_string(m.partition);
                break;
            case MetadataField::Offset:
                value = std::to_string(m.offset);
                break;
            case MetadataField::Timestamp:
            case MetadataField::TimestampType: {
                rd_kafka_timestamp_type_t type;
                std::int64_t ts = rd_kafka_message_timestamp(&m, &type);
                if (f == MetadataField::Timestamp) {
                    value = std::to_string(ts);
                } else {
                    value = type == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? "CreateTime"
                            : type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? "LogAppendTime"
                                                                         : "NoTimestampType";
                }
                break;
            }
            case MetadataField::Key:
                if (!m.key) continue;  // no key: absent, NULL in a transform
                value.assign(static_cast<const char*>(m.key), m.key_len);
                break;
            case MetadataField::Headers: {
                json::Writer w(value);
                w.begin_object();
                rd_kafka_headers_t* headers = nullptr;
                if (rd_kafka_message_headers(&m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
                    const char* name;
                    const void* v;
                    size_t size;
                    for (size_t i = 0; rd_kafka_header_get_all(headers, i, &name, &v, &size) == 0;
                         ++i) {
                        w.key(name);
                        if (v) {
                            w.string(std::string_view(static_cast<const char*>(v), size));
                        } else {
                            w.null();
                        }
                    }
                }
                w.end_object();
                break;
            }
        }
        meta.emplace_back(metadata_name(f), std::move(value));
    }
    return meta;
}

void MessageDecoder::decode(const rd_kafka_message_t& m, EventBatch& out) {
    if (!m.payload) return;  // tombstone
    // Checked before anything is parsed or copied (librdkafka holds the message already).
    if (const std::size_t bytes = m.len + m.key_len; bytes > settings_.limits.max_message_bytes) {
        LimitError e("the message is " + std::to_string(bytes) +
                     " bytes (key and value), more than the limit of " +
                     std::to_string(settings_.limits.max_message_bytes) + "; raise " +
                     MessageLimits::kMessageBytesOption + " to accept such messages");
        if (settings_.fixed_table) throw_in_table(e, *settings_.fixed_table);
        throw e;
    }
    try {
        decode_json(m, out);
    } catch (const LimitError&) {
        throw;  // true of the message whatever else is wrong with it
    } catch (const std::exception&) {
        // The On-Demand parser checks only what it reads, so a value that is not JSON at all
        // (truncated, say) fails wherever reading stopped, with whatever error that met there. A
        // full parse, on this path only, says what is wrong with it; the key is read first.
        if (!settings_.fixed_table && settings_.table_from_key && m.key)
            if (auto why = not_json(m.key, m.key_len))
                throw ParseError("the message key is not valid JSON: " + *why);
        if (auto why = not_json(m.payload, m.len))
            throw ParseError("the message value is not valid JSON: " + *why);
        throw;
    }
}

std::optional<std::string> MessageDecoder::not_json(const void* data, std::size_t size) {
    simdjson::dom::element ignored;
    // realloc_if_needed: copies the bytes into a padded buffer first.
    auto error = dom_parser_.parse(static_cast<const char*>(data), size, true).get(ignored);
    if (!error) return std::nullopt;
    return std::string(simdjson::error_message(error));
}

void MessageDecoder::decode_json(const rd_kafka_message_t& m, EventBatch& out) {
    // canal-json.*.include: a skipped message is not read further (its table id included).
    if (parser_->filters() &&
        parser_->excluded(iterate(value_parser_, m.payload, m.len, value_buffer_, value_doc_)))
        return;
    // (No default-constructed TableId: that would take the interner's lock per message.)
    std::optional<TableId> key_table;
    if (!settings_.fixed_table && settings_.table_from_key) {
        if (!m.key) throw ParseError("no key to read the table id from");
        key_table =
            extractor_->extract(iterate(key_parser_, m.key, m.key_len, key_buffer_, key_doc_));
    }
    auto& doc = iterate(value_parser_, m.payload, m.len, value_buffer_, value_doc_);
    simdjson::ondemand::json_type top;
    if (auto error = doc.type().get(top))
        throw ParseError(std::string("invalid JSON: ") + simdjson::error_message(error));
    if (top == simdjson::ondemand::json_type::null) {
        bool null = false;
        if (doc.is_null().get(null) || !null) throw ParseError("invalid JSON");
        return;  // a JSON null value: a tombstone
    }
    // debezium-json reads `source.db`/`source.table` while it parses, instead of a walk of its
    // own; the extractor runs (and reports what is wrong) only when that did not find them.
    const bool capture = !settings_.fixed_table && !key_table && extractor_ &&
                         settings_.format == ValueFormat::DebeziumJson &&
                         !extractor_->capture_key().empty();
    std::optional<TableId> value_table;
    if (!settings_.fixed_table && !key_table && !capture) value_table = extractor_->extract(doc);
    // debezium-json.schema-include: the parser requires the envelope (and its schema) as it
    // reads the message, without a walk of its own.
    parsed_.clear();
    if (capture) {
        parsed_.capture_key = extractor_->capture_key();
        parsed_.capture_leaves = &extractor_->leaves();
        try {
            parser_->parse(doc, parsed_);
        } catch (const LimitError& e) {
            rewind(doc);
            throw_in_table(e, extractor_->extract(doc));  // or the table id's own error
        } catch (...) {
            rewind(doc);
            extractor_->extract(doc);  // a table id error comes first, as without capture
            throw;
        }
        if (parsed_.captured_count == extractor_->leaves().size()) {
            value_table = extractor_->from_parts(parsed_.captured);
        } else {
            // Rewinding reuses simdjson's string buffer, which the images point into: read the
            // table id the general way, then parse again.
            rewind(doc);
            value_table = extractor_->extract(doc);
            rewind(doc);
            parsed_.clear();
            parsed_.capture_key = {};
            parse_value(doc, value_table);
        }
    } else {
        parse_value(doc, settings_.fixed_table ? settings_.fixed_table
                         : key_table           ? key_table
                                               : value_table);
    }
    const TableId table = settings_.fixed_table ? *settings_.fixed_table
                          : key_table           ? *key_table
                                                : *value_table;
    if (parsed_.changes.empty()) return;

    images_.clear();
    for (const auto& c : parsed_.changes) {
        if (c.before >= 0) images_.push_back(&parsed_.images[static_cast<std::size_t>(c.before)]);
        if (c.after >= 0) images_.push_back(&parsed_.images[static_cast<std::size_t>(c.after)]);
    }
    std::vector<std::string> keys;
    const std::vector<std::string>* pk = nullptr;
    if (!inference_.knows(table)) {
        if (parsed_.has_pk_names) {
            pk = &parsed_.pk_names;
        } else if (settings_.format == ValueFormat::DebeziumJson) {
            keys = key_primary_keys(m);
            pk = &keys;
        }
    }
    if (!changes_) {
        inference_.evolve(table, images_, pk, out);
    } else if (!inference_.fits_as_is(table,
                                      images_)) {  // fits_as_is() sets the fields' columns too
        if (!changes_->begin()) throw SchemaChangeElsewhere();
        inference_.evolve(table, images_, pk, out);
        if (const Schema* schema = inference_.schema(table)) changes_->changed(table, *schema);
    }

    std::string error;
    auto row = [&](int index) -> Row {
        auto r = inference_.build(table, parsed_.images[static_cast<std::size_t>(index)], &error);
        if (!r) throw ParseError(error);
        return std::move(*r);
    };
    std::size_t first = out.size();
    try {
        for (const auto& c : parsed_.changes) {
            EventMeta meta = settings_.metadata.empty() ? EventMeta{} : metadata(m);
            switch (c.op) {
                case OpType::Insert:
                    append_insert(out, table, row(c.after), std::move(meta));
                    break;
                case OpType::Replace:
                    append_replace(out, table, row(c.after), std::move(meta));
                    break;
                case OpType::Delete:
                    append_delete(out, table, row(c.before), std::move(meta));
                    break;
                case OpType::Update: {
                    Row before = row(c.before);
                    append_update(out, table, std::move(before), row(c.after), std::move(meta));
                    break;
                }
            }
        }
    } catch (...) {
        out.erase(out.begin() + static_cast<std::ptrdiff_t>(first),
                  out.end());  // keep the schema changes, drop this message's rows
        throw;
    }
}

}  // namespace cdcd::kafka
