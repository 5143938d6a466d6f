#include "sources/oss/records.h"

#include "sources/oss/service_call.h"

namespace cdcd::oss {

Schema object_schema() {
    return SchemaBuilder()
        .column("key", DataType::string().not_null())
        .column("url", DataType::string())
        .column("region", DataType::string())
        .column("bucket", DataType::string())
        .column("fileName", DataType::string())
        .column("size", DataType::bigint())
        .column("modificationTime", DataType::timestamp_ltz(3))
        .column("eTag", DataType::string())
        .primary_key({"key"})
        .build();
}

std::string file_name_of(const std::string& key) {
    auto slash = key.rfind('/');
    return slash == std::string::npos ? key : key.substr(slash + 1);
}

RecordBuilder::RecordBuilder(TableIdMapper mapper, std::string region,
                             std::shared_ptr<const Presigner> presigner,
                             std::vector<std::string> metadata)
    : mapper_(std::move(mapper)),
      region_(std::move(region)),
      presigner_(std::move(presigner)),
      metadata_(std::move(metadata)),
      schema_(object_schema()) {}

Row RecordBuilder::row(const std::string& bucket, const ObjectInfo& o,
                       const std::string& region) const {
    std::string url;
    if (presigner_) {
        url = presigner_->url(bucket, o.key, now_seconds());
    } else {
        url = "oss://" + bucket + "/" + o.key;
    }
    std::string file = file_name_of(o.key);
    RowBuilder b(
        8, o.key.size() + url.size() + region.size() + bucket.size() + file.size() + o.etag.size());
    b.set_string(0, o.key).set_string(1, url);
    if (region.empty())
        b.set_null(2);
    else
        b.set_string(2, region);
    b.set_string(3, bucket).set_string(4, file).set_long(5, o.size);
    b.set_timestamp(6, Timestamp{o.mtime_ms, 0});
    if (o.etag.empty())
        b.set_null(7);
    else
        b.set_string(7, o.etag);
    return std::move(b).build();
}

bool RecordBuilder::add(EventBatch& out, OpType op, const std::string& bucket,
                        const ObjectInfo& object, const OssEvent* event,
                        const std::string& region_override) {
    auto table = mapper_.map(bucket, object.key);
    if (!table) return false;
    if (announced_.insert(*table).second) out.emplace_back(CreateTableEvent{*table, schema_});
    EventMeta meta;
    if (event) {
        for (const auto& key : metadata_) {
            std::string value;
            if (metadata_value(*event, key, value)) meta.emplace_back(key, std::move(value));
        }
    }
    Row r = row(bucket, object, region_override.empty() ? region_ : region_override);
    switch (op) {
        case OpType::Delete:
            append_delete(out, *table, std::move(r), std::move(meta));
            break;
        case OpType::Replace:
            append_replace(out, *table, std::move(r), std::move(meta));
            break;
        default:
            append_insert(out, *table, std::move(r), std::move(meta));
            break;
    }
    return true;
}

}  // namespace cdcd::oss
