#include "sources/oss/event_decoder.h"

#include <simdjson.h>

#include "sources/oss/crypto.h"
#include "sources/oss/oss_client.h"
#include "sources/oss/xml.h"

namespace cdcd::oss {
namespace {

using simdjson::dom::element;

std::string str(element e, const char* field) {
    auto v = e[field];
    if (v.error()) return {};
    std::string_view s;
    if (!v.get(s)) return std::string(s);
    int64_t i;
    if (!v.get(i)) return std::to_string(i);
    return {};
}

std::optional<std::int64_t> num(element e, const char* field) {
    auto v = e[field];
    if (v.error()) return std::nullopt;
    int64_t i;
    if (!v.get(i)) return i;
    uint64_t u;
    if (!v.get(u)) return static_cast<std::int64_t>(u);
    double d;
    if (!v.get(d)) return static_cast<std::int64_t>(d);
    std::string_view s;
    if (!v.get(s)) {
        std::string t(s);
        char* end = nullptr;
        long long x = std::strtoll(t.c_str(), &end, 10);
        if (end && *end == '\0' && !t.empty()) return x;
    }
    return std::nullopt;
}

std::optional<element> sub(element e, const char* field) {
    auto v = e[field];
    if (v.error()) return std::nullopt;
    element out = v.value_unsafe();
    if (!out.is_object()) return std::nullopt;
    return out;
}

OssEvent record_of(element r) {
    OssEvent e;
    e.event_name = str(r, "eventName");
    e.event_source = str(r, "eventSource");
    std::string t = str(r, "eventTime");
    if (!t.empty()) e.event_time_ms = parse_iso8601_ms(t);
    e.event_version = str(r, "eventVersion");
    e.region = str(r, "region");
    if (auto oss_e = sub(r, "oss")) {
        element oss = *oss_e;
        if (auto b = sub(oss, "bucket")) {
            e.bucket_arn = str(*b, "arn");
            e.bucket_name = str(*b, "name");
            e.bucket_owner = str(*b, "ownerIdentity");
        }
        if (auto o_e = sub(oss, "object")) {
            element o = *o_e;
            e.key = str(o, "key");
            e.size = num(o, "size");
            e.delta_size = num(o, "deltaSize");
            e.read_from = num(o, "readFrom");
            e.read_to = num(o, "readTo");
            e.etag = str(o, "eTag");
            if (e.etag.size() >= 2 && e.etag.front() == '"' && e.etag.back() == '"')
                e.etag = e.etag.substr(1, e.etag.size() - 2);
        }
        e.schema_version = str(oss, "ossSchemaVersion");
        e.rule_id = str(oss, "ruleId");
    }
    if (auto rp = sub(r, "requestParameters")) e.source_ip = str(*rp, "sourceIPAddress");
    if (auto re = sub(r, "responseElements")) e.request_id = str(*re, "requestId");
    if (auto ui = sub(r, "userIdentity")) e.principal_id = str(*ui, "principalId");
    return e;
}

bool looks_json(const std::string& s) {
    auto p = s.find_first_not_of(" \t\r\n");
    return p != std::string::npos && s[p] == '{';
}
bool looks_xml(const std::string& s) {
    auto p = s.find_first_not_of(" \t\r\n");
    return p != std::string::npos && s[p] == '<';
}

std::vector<OssEvent> decode(const std::string& body, int depth) {
    if (depth > 3) throw EventDecodeError("OSS event: too many nested encodings");
    if (looks_json(body)) {
        simdjson::dom::parser parser;
        element doc;
        if (parser.parse(body).get(doc))
            throw EventDecodeError("OSS event: body is not valid JSON");
        auto events = doc["events"];
        if (!events.error()) {
            simdjson::dom::array arr;
            if (events.get(arr)) throw EventDecodeError("OSS event: `events` is not an array");
            std::vector<OssEvent> out;
            for (element r : arr) {
                OssEvent e = record_of(r);
                if (e.event_name.empty() || e.key.empty())
                    throw EventDecodeError("OSS event: record without eventName or oss.object.key");
                out.push_back(std::move(e));
            }
            return out;
        }
        std::string message = str(doc, "Message");
        if (!message.empty() || !doc["TopicOwner"].error()) {  // JSON topic envelope
            auto decoded = base64_decode(message);
            return decode(decoded ? *decoded : message, depth + 1);
        }
        throw EventDecodeError("OSS event: JSON without `events` or `Message`");
    }
    if (looks_xml(body)) {
        XmlElement root;
        try {
            root = parse_xml(body);
        } catch (const XmlError& e) {
            throw EventDecodeError(std::string("OSS event: ") + e.what());
        }
        if (root.name != "Notification")
            throw EventDecodeError("OSS event: XML root <" + root.name +
                                   ">, expected <Notification>");
        std::string message = root.child_text("Message");
        auto decoded = base64_decode(message);
        return decode(decoded ? *decoded : message, depth + 1);
    }
    auto decoded = base64_decode(body);
    if (!decoded) throw EventDecodeError("OSS event: body is neither JSON, XML nor base64");
    return decode(*decoded, depth + 1);
}

}  // namespace

std::vector<OssEvent> decode_message_body(const std::string& body) {
    return decode(body, 0);
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
