#include "sources/oss/event_decoder.h"

#include <simdjson.h>

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "sources/oss/encoding.h"
#include "sources/oss/oss_client.h"
#include "sources/oss/xml.h"

namespace cdcd::oss {
namespace {

using simdjson::dom::element;

// Reads the fields of one `events` entry. The first field that is missing (when required) or of
// the wrong type is kept in `error`; later problems do not overwrite it.
class EntryReader {
  public:
    std::string error;

    /// A string field (numbers are accepted and printed, as OSS sends some ids as numbers).
    std::string text(element parent, const std::string& path, const char* field,
                     bool required = false) {
        auto v = present(parent, field);
        if (!v) {
            if (required) fail(path + " is missing");
            return {};
        }
        std::string_view s;
        if (!v->get(s)) {
            if (required && s.empty()) fail(path + " is empty");
            return std::string(s);
        }
        int64_t i;
        if (!v->get(i)) return std::to_string(i);
        uint64_t u;
        if (!v->get(u)) return std::to_string(u);
        fail(path + " is not a string");
        return {};
    }

    /// An integer field (a JSON number, or a string of digits).
    std::optional<std::int64_t> number(element parent, const std::string& path, const char* field) {
        auto v = present(parent, field);
        if (!v) return std::nullopt;
        int64_t i;
        if (!v->get(i)) return i;
        // Numbers past int64 (1e25, 2^64 - 1) are refused, not wrapped.
        uint64_t u;
        if (!v->get(u)) {
            if (u <= static_cast<uint64_t>(std::numeric_limits<std::int64_t>::max()))
                return static_cast<std::int64_t>(u);
            fail(path + " is out of range: " + std::to_string(u));
            return std::nullopt;
        }
        double d;
        if (!v->get(d)) {
            if (d >= -9.2233720368547758e18 && d < 9.2233720368547758e18)
                return static_cast<std::int64_t>(d);
            fail(path + " is out of range: " + std::to_string(d));
            return std::nullopt;
        }
        std::string_view s;
        if (!v->get(s)) {
            std::string t(s);
            char* end = nullptr;
            errno = 0;
            long long x = std::strtoll(t.c_str(), &end, 10);
            if (end && *end == '\0' && !t.empty() && errno != ERANGE) return x;
            fail(path + " is not a number: '" + t + "'");
            return std::nullopt;
        }
        fail(path + " is not a number");
        return std::nullopt;
    }

    std::optional<element> object(element parent, const std::string& path, const char* field,
                                  bool required = false) {
        auto v = present(parent, field);
        if (!v) {
            if (required) fail(path + " is missing");
            return std::nullopt;
        }
        if (!v->is_object()) {
            fail(path + " is not an object");
            return std::nullopt;
        }
        return *v;
    }

    void fail(std::string why) {
        if (error.empty()) error = std::move(why);
    }

  private:
    // The field's value; none when absent or JSON null.
    static std::optional<element> present(element parent, const char* field) {
        auto v = parent[field];
        if (v.error()) return std::nullopt;
        element out = v.value_unsafe();
        if (out.is_null()) return std::nullopt;
        return out;
    }
};

DecodedEntry entry_of(element r, std::size_t index) {
    DecodedEntry out;
    out.index = index;
    EntryReader rd;
    OssEvent e;
    if (!r.is_object()) {
        rd.fail("the entry is not a JSON object");
    } else {
        e.event_name = rd.text(r, "eventName", "eventName", true);
        e.event_source = rd.text(r, "eventSource", "eventSource");
        std::string t = rd.text(r, "eventTime", "eventTime");
        if (!t.empty()) {
            e.event_time_ms = parse_iso8601_ms(t);
            if (!e.event_time_ms) rd.fail("eventTime is not an ISO 8601 time: '" + t + "'");
        }
        e.event_version = rd.text(r, "eventVersion", "eventVersion");
        e.region = rd.text(r, "region", "region");
        if (auto oss = rd.object(r, "oss", "oss", true)) {
            if (auto b = rd.object(*oss, "oss.bucket", "bucket", true)) {
                e.bucket_arn = rd.text(*b, "oss.bucket.arn", "arn");
                e.bucket_name = rd.text(*b, "oss.bucket.name", "name", true);
                e.bucket_owner = rd.text(*b, "oss.bucket.ownerIdentity", "ownerIdentity");
            }
            if (auto o = rd.object(*oss, "oss.object", "object", true)) {
                e.key = rd.text(*o, "oss.object.key", "key", true);
                e.size = rd.number(*o, "oss.object.size", "size");
                e.delta_size = rd.number(*o, "oss.object.deltaSize", "deltaSize");
                e.read_from = rd.number(*o, "oss.object.readFrom", "readFrom");
                e.read_to = rd.number(*o, "oss.object.readTo", "readTo");
                e.etag = rd.text(*o, "oss.object.eTag", "eTag");
                if (e.etag.size() >= 2 && e.etag.front() == '"' && e.etag.back() == '"')
                    e.etag = e.etag.substr(1, e.etag.size() - 2);
            }
            e.schema_version = rd.text(*oss, "oss.ossSchemaVersion", "ossSchemaVersion");
            e.rule_id = rd.text(*oss, "oss.ruleId", "ruleId");
        }
        if (auto rp = rd.object(r, "requestParameters", "requestParameters"))
            e.source_ip = rd.text(*rp, "requestParameters.sourceIPAddress", "sourceIPAddress");
        if (auto re = rd.object(r, "responseElements", "responseElements"))
            e.request_id = rd.text(*re, "responseElements.requestId", "requestId");
        if (auto ui = rd.object(r, "userIdentity", "userIdentity"))
            e.principal_id = rd.text(*ui, "userIdentity.principalId", "principalId");
    }
    if (rd.error.empty()) {
        out.event = std::move(e);
    } else {
        out.error = std::move(rd.error);
        out.raw = simdjson::minify(r);
    }
    return out;
}

bool looks_json(const std::string& s) {
    auto p = s.find_first_not_of(" \t\r\n");
    return p != std::string::npos && s[p] == '{';
}
bool looks_xml(const std::string& s) {
    auto p = s.find_first_not_of(" \t\r\n");
    return p != std::string::npos && s[p] == '<';
}

// `where` names the layer being decoded ("the body", "the Message of its XML topic envelope"...)
// so that an error says which one is wrong.
std::vector<DecodedEntry> decode(const std::string& text, const std::string& where, int depth) {
    if (depth > 3)
        throw EventDecodeError("the body nests more than 3 encodings (base64, topic envelopes)");
    if (looks_json(text)) {
        simdjson::dom::parser parser;
        element doc;
        if (auto err = parser.parse(text).get(doc))
            throw EventDecodeError(where + " is not valid JSON (" + simdjson::error_message(err) +
                                   ")");
        auto events = doc["events"];
        if (!events.error()) {
            simdjson::dom::array arr;
            if (events.get(arr))
                throw EventDecodeError("`events` of " + where + " is not an array");
            std::vector<DecodedEntry> out;
            std::size_t index = 0;
            for (element r : arr) out.push_back(entry_of(r, index++));
            return out;
        }
        auto message = doc["Message"];
        if (!message.error() || !doc["TopicOwner"].error()) {  // JSON topic envelope
            std::string_view m;
            if (message.get(m))
                throw EventDecodeError("`Message` of " + where +
                                       " (a JSON topic envelope) is missing or not a string");
            auto decoded = base64_decode(m);
            return decode(decoded ? *decoded : std::string(m),
                          "the Message of its JSON topic envelope", depth + 1);
        }
        throw EventDecodeError(where + " is JSON without `events` or `Message`");
    }
    if (looks_xml(text)) {
        XmlElement root;
        try {
            root = parse_xml(text);
        } catch (const XmlError& e) {
            throw EventDecodeError(where + " is not valid XML (" + e.what() + ")");
        }
        if (root.name != "Notification")
            throw EventDecodeError(where + " has the XML root <" + root.name +
                                   ">, expected <Notification>");
        std::string message = root.child_text("Message");
        auto decoded = base64_decode(message);
        return decode(decoded ? *decoded : message, "the Message of its XML topic envelope",
                      depth + 1);
    }
    // base64_decode skips what is not base64, so any text "decodes": only JSON or XML inside
    // makes it a base64 form.
    auto decoded = base64_decode(text);
    if (!decoded || !(looks_json(*decoded) || looks_xml(*decoded)))
        throw EventDecodeError(where + " is neither JSON, XML nor base64 of JSON or XML");
    return decode(*decoded, "the base64-decoded " + where.substr(4), depth + 1);  // "the ..."
}

}  // namespace

std::vector<DecodedEntry> decode_message_entries(const std::string& body) {
    return decode(body, "the body", 0);
}

std::vector<OssEvent> decode_message_body(const std::string& body) {
    std::vector<OssEvent> out;
    for (auto& entry : decode_message_entries(body)) {
        if (!entry.event)
            throw EventDecodeError("event " + std::to_string(entry.index) + ": " + entry.error);
        out.push_back(std::move(*entry.event));
    }
    return out;
}

EventAction action_of(const std::string& n) {
    auto starts = [&](const char* p) { return n.rfind(p, 0) == 0; };
    if (starts("ObjectCreated:") || starts("ObjectModified:")) return EventAction::Upsert;
    if (starts("ObjectRemoved:")) return EventAction::Delete;
    if (n == "ObjectReplication:ObjectCreated" || n == "ObjectReplication:ObjectModified")
        return EventAction::Upsert;
    if (n == "ObjectReplication:ObjectRemoved") return EventAction::Delete;
    return EventAction::Ignore;
}

bool metadata_value(const OssEvent& e, const std::string& key, std::string& out) {
    auto s = [&](const std::string& v) {
        out = v;
        return !v.empty();
    };
    auto n = [&](const std::optional<std::int64_t>& v) {
        if (!v) return false;
        out = std::to_string(*v);
        return true;
    };
    if (key == "eventName") return s(e.event_name);
    if (key == "eventSource") return s(e.event_source);
    if (key == "eventTime") return n(e.event_time_ms);
    if (key == "eventVersion") return s(e.event_version);
    if (key == "ossBucketName") return s(e.bucket_name);
    if (key == "ossBucketArn") return s(e.bucket_arn);
    if (key == "ossBucketOwnerIdentity") return s(e.bucket_owner);
    if (key == "ossObjectKey") return s(e.key);
    if (key == "ossObjectSize") return n(e.size);
    if (key == "ossObjectETag") return s(e.etag);
    if (key == "ossObjectDeltaSize") return n(e.delta_size);
    if (key == "ossObjectReadFrom") return n(e.read_from);
    if (key == "ossObjectReadTo") return n(e.read_to);
    if (key == "ossOssSchemaVersion") return s(e.schema_version);
    if (key == "ossRuleId") return s(e.rule_id);
    if (key == "requestParametersSourceIPAddress") return s(e.source_ip);
    if (key == "responseElementsRequestId") return s(e.request_id);
    if (key == "userIdentityPrincipalId") return s(e.principal_id);
    return false;
}

}  // namespace cdcd::oss
