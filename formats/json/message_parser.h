#pragma once
// Parsing of one Kafka message value into row images (simdjson On-Demand: one pass, strings and
// numbers viewed in place, no allocation per field), one parser per `value.format`:
//   json           a flat object → one INSERT
//   debezium-json  {"before","after","op":c|r|u|d,"source"} optionally inside
//                  {"schema":…,"payload":…}; u without before → REPLACE; with
//                  ParsedMessage::connect_schema the schema's types (connect_value.h)
//   canal-json     {"data":[…],"old":[…],"type":INSERT|UPDATE|DELETE,"database","table",
//                  "pkNames":[…]}: one change per row of `data`; an UPDATE's before image is the
//                  row with the changed columns from `old` put back (Canal's `old` holds only the
//                  columns that changed); DDL messages (isDdl, other types) are skipped.
#include <simdjson.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/json/field_value.h"
#include "formats/json/message_limits.h"
#include "pipeline/event/events.h"

namespace cdcd::kafka {

enum class ValueFormat { Json, DebeziumJson, CanalJson };

struct ParseError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A message over one of the source's MessageLimits; the message names the limit and the option
/// that raises it.
struct LimitError : ParseError {
    using ParseError::ParseError;
};

struct ParsedChange {
    OpType op = OpType::Insert;
    int before = -1;  // index into ParsedMessage::images, -1 = none
    int after = -1;
};

/// Reused across messages: images keep their capacity.
struct ParsedMessage {
    std::vector<Image> images;
    std::size_t image_count = 0;
    std::vector<ParsedChange> changes;
    std::vector<std::string> pk_names;  // canal pkNames
    bool has_pk_names = false;
    /// MessageLimits::max_json_depth, for read_image (set by the caller).
    std::size_t max_json_depth = MessageLimits::kDefaultJsonDepth;
    /// debezium-json.schema-include: the images' types come from the envelope's Connect schema
    /// (FieldValue::declared), which every message must then carry (set by the caller).
    bool connect_schema = false;

    // Table id fields read on the way (TableIdExtractor::capture_key): set by the caller, filled
    // by parsers that meet that object (debezium-json's `source`, at the top or under `payload`).
    std::string_view capture_key;  // empty: off
    const std::vector<std::string>* capture_leaves = nullptr;
    std::string_view captured[3];  // views into the parser's buffers
    std::size_t captured_count = 0;
    bool captured_top = false;  // from the top level, which wins over `payload`

    void clear() {
        image_count = 0;
        changes.clear();
        has_pk_names = false;
        captured_count = 0;
        captured_top = false;
    }
    Image& new_image() {
        if (image_count == images.size()) images.emplace_back();
        Image& img = images[image_count++];
        img.clear();
        return img;
    }
};

/// Reads a JSON object's fields into `image` (nested objects and arrays kept as raw JSON).
/// `depth` is the object's nesting level in the message (the top-level object is 1); throws
/// LimitError when a field's JSON nests deeper than `max_depth` from the message's top.
void read_image(simdjson::ondemand::object object, Image& image, std::size_t depth,
                std::size_t max_depth);

/// How deep the objects and arrays of one JSON value nest (0 for a scalar, 1 for `[1]`), read
/// from its text: strings are skipped, the text is not validated.
std::size_t json_nesting_depth(std::string_view json);

/// doc.rewind() for a document that may have met an error. simdjson 3.0 abandons a document on
/// an error such as a truncated object, and rewinding it then dereferences a null pointer
/// (SIGSEGV): this throws ParseError instead (the caller reports why the value is not JSON).
void rewind(simdjson::ondemand::document& doc);

/// "an object", "a number", … for error messages.
const char* json_type_name(simdjson::ondemand::json_type type);

class FormatParser {
  public:
    virtual ~FormatParser() = default;
    /// Parses the document (already iterated by the caller); throws ParseError or
    /// simdjson::simdjson_error. Leaves out.changes empty for messages to skip (DDL, tombstones).
    virtual void parse(simdjson::ondemand::document& doc, ParsedMessage& out) = 0;
    /// Whether the format filters messages (canal-json's include patterns).
    virtual bool filters() const { return false; }
    /// Whether the message is filtered out; reads the document (the caller rewinds or iterates
    /// again). Called before the table id is read, so skipped tables never count as tracked.
    virtual bool excluded(simdjson::ondemand::document&) { return false; }
};

/// canal-json.database.include / canal-json.table.include: Java regexes the message's
/// `database` / `table` must match whole (empty: no filter); other messages are skipped.
struct CanalFilter {
    std::string database_include, table_include;
};

/// Throws std::invalid_argument for a filter pattern that is not a valid regex.
std::unique_ptr<FormatParser> make_format_parser(ValueFormat format, const CanalFilter& canal = {});

/// The primary-key field names of a debezium key document ({"id":1} or with a schema envelope).
std::vector<std::string> debezium_key_fields(simdjson::ondemand::document& doc);

}  // namespace cdcd::kafka
