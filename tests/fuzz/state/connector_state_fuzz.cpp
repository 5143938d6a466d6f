// Connector checkpoint states from hostile bytes, as a restore reads them; the first byte picks
// the decoder: the Kafka source's offsets and inferred schemas, the Kafka sink's writer state
// (also merged, as at another parallelism),
// dingtalk-cdc's splits, oss-cdc's phases, the schema lists every sink writer and the schema
// operator restore, the file sink's writer state (its file's committed position and the files it
// carries from another parallelism, redistributed to other parallelisms), and the transform's
// upstream schemas
// (bound again to its rules on restore), the postgres source's position, and a Kafka split
// reader's state (its offsets and numbered schemas, merged at each barrier). Each refuses the bytes
// with its own error or decodes a state that encodes and decodes back to itself.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "pipeline/output/append_only_file.h"
#include "pipeline/schema/schema_json.h"
#include "pipeline/transform/transform_operator.h"
#include "sinks/file/writer_state.h"
#include "sinks/kafka/writer_state.h"
#include "sources/dingtalk/state_codec.h"
#include "sources/kafka/offsets_state.h"
#include "sources/kafka/split_reader.h"
#include "sources/oss/mns_reader.h"
#include "sources/oss/polling_state.h"
#include "sources/oss/snapshot_reader.h"
#include "sources/postgres/state_codec.h"

using namespace cdcd;

namespace {

void check(bool ok) {
    if (!ok) std::abort();
}

std::string oss_state(std::string_view bytes) {
    oss::ByteReader r(bytes);
    auto snapshot = oss::SnapshotProgress::decode(r);
    auto mns = oss::MnsState::decode(r);
    auto polling = oss::PollingState::decode(r);
    oss::ByteWriter w;
    snapshot.encode(w);
    mns.encode(w);
    polling.encode(w);
    return std::move(w.str());
}

// The file sink resumes a file it wrote: a 64-byte file of this process stands for it.
void append_only_file_state(std::string_view state) {
    static const std::string path = "/tmp/cdcd-fuzz-output-" + std::to_string(getpid());
    std::ofstream(path, std::ios::trunc) << std::string(64, 'x');
    try {
        auto file = output::AppendOnlyFile::resume(path, state);
        check(file.length() <= 64);
        (void)file.state();
    } catch (const output::OutputFileError&) {
    }
}

// The transform restores the upstream schema of each table and binds its rules to it again.
void transform_state(std::string_view state) {
    static const auto op = [] {
        config::TransformDef rule;
        rule.source_table = "db.\\.*";
        rule.projection = "*, UPPER(name) AS up, id + 1 AS next";
        rule.filter = "id > 0";
        config::Diagnostics diags;
        auto made = transform::TransformOperator::create({rule}, "UTC", diags);
        check(made != nullptr && diags.ok());
        return made;
    }();
    try {
        op->restore(state);
        auto again = op->snapshot_state();
        op->restore(again);
        check(op->snapshot_state() == again);
    } catch (const SchemaJsonError&) {
    } catch (const transform::TransformError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    switch (data[0] % 9) {
        case 0:
            try {
                auto blob = kafka::encode_state(kafka::decode_state(bytes));
                check(kafka::encode_state(kafka::decode_state(blob)) == blob);
                (void)kafka::describe_state_json(kafka::decode_state(blob));
            } catch (const std::runtime_error&) {
            }
            break;
        case 1:
            try {
                auto state = kafka::decode_writer_state(bytes);
                if (state.transactions) {
                    auto blob = kafka::encode_writer_state(state.schemas_json, *state.transactions);
                    // A state without tables re-encodes with an empty list: compare from there.
                    auto again = kafka::decode_writer_state(blob);
                    check(again.transactions &&
                          kafka::encode_writer_state(again.schemas_json, *again.transactions) ==
                              blob);
                }
                if (!state.schemas_json.empty()) (void)table_schemas_from_json(state.schemas_json);
                auto merged = kafka::decode_writer_state(
                    kafka::merge_writer_states({std::string(bytes), std::string(bytes)}));
                check(merged.transactions.has_value() == state.transactions.has_value());
            } catch (const std::runtime_error&) {
            }
            break;
        case 2:
            try {
                auto state = dingtalk::decode_state(bytes);
                check(dingtalk::decode_state(dingtalk::encode_state(state)) == state);
            } catch (const std::invalid_argument&) {
            }
            break;
        case 3:
            try {
                auto blob = oss_state(bytes);
                check(oss_state(blob) == blob);
            } catch (const oss::StateError&) {
            }
            break;
        case 4:
            try {
                auto json = table_schemas_to_json(table_schemas_from_json(bytes));
                check(table_schemas_to_json(table_schemas_from_json(json)) == json);
            } catch (const SchemaJsonError&) {
            }
            break;
        case 5:
            try {
                auto state = file::decode_writer_state(bytes);
                if (state.file) append_only_file_state(*state.file);
                for (const auto& retired : state.retired) append_only_file_state(retired.file);
                for (int parallelism : {1, 3}) {
                    auto states = file::rescale_writer_states("/tmp/cdcd-fuzz-rescaled",
                                                              {std::string(bytes)}, parallelism);
                    check(states.size() == static_cast<std::size_t>(parallelism));
                }
            } catch (const std::runtime_error&) {
            }
            break;
        case 6:
            transform_state(bytes);
            break;
        case 8:
            try {
                auto blob = kafka::encode_reader_state(kafka::decode_reader_state(bytes));
                check(kafka::encode_reader_state(kafka::decode_reader_state(blob)) == blob);
            } catch (const std::runtime_error&) {
            }
            break;
        default:
            try {
                auto blob = postgres::encode_state(postgres::decode_state(bytes));
                check(postgres::encode_state(postgres::decode_state(blob)) == blob);
                (void)postgres::describe_state_json(postgres::decode_state(blob));
            } catch (const std::runtime_error&) {
            }
    }
    return 0;
}
