#include "cmd/checkpoints_command.h"

#include <simdjson.h>

#include <boost/asio/io_context.hpp>
#include <cstdio>
#include <ctime>
#include <stdexcept>

#include "config/pipeline_def.h"
#include "config/secrets.h"
#include "net/digest.h"
#include "pipeline/connector/registry.h"
#include "pipeline/runtime/pipeline_plan.h"
#include "pipeline/util/json_escape.h"
#include "state/checkpoint_store.h"

namespace cdcd::cli {

namespace {

constexpr std::size_t kMaxRawBytes = 4096;  // raw states longer than this are cut in the output

bool is_json(std::string_view text) {
    if (text.empty()) return false;
    simdjson::dom::parser parser;
    return !parser.parse(text.data(), text.size()).error();
}

bool printable(std::string_view s) {
    for (unsigned char c : s)
        if (c < 0x20 || c >= 0x7f) return false;
    return true;
}

std::string iso_time(std::int64_t ms) {
    std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>((ms % 1000 + 1000) % 1000));
    return buf;
}

/// A state blob as JSON: itself when it is JSON, else its text or (binary) hex, cut at 4 KiB.
std::string raw_part(std::string_view blob) {
    std::string out = "{\"bytes\":" + std::to_string(blob.size());
    if (is_json(blob)) return out + ",\"state\":" + std::string(blob) + "}";
    std::string_view shown = blob.substr(0, kMaxRawBytes);
    if (printable(shown)) {
        out += ",\"text\":" + json::quoted(shown);
    } else {
        out += ",\"hex\":\"" + net::hex_lower(shown) + "\"";
    }
    if (shown.size() < blob.size()) out += ",\"truncated\":true";
    return out + "}";
}

struct Context {
    std::optional<PipelinePlan> plan;
    std::unique_ptr<Source> source;  // built from --pipeline-file, for describe_state
    boost::asio::io_context io;
};

std::string checkpoint_json(const std::string& pipeline, const state::Checkpoint& c,
                            const Context& ctx) {
    std::string out = "{\"pipeline\":" + json::quoted(pipeline) +
                      ",\"id\":" + std::to_string(c.id) + ",\"created\":\"" +
                      iso_time(c.created_ms) + "\",\"created_ms\":" + std::to_string(c.created_ms) +
                      ",\"size_bytes\":" + std::to_string(c.size_bytes()) + ",\"fingerprint\":{";
    bool first = true;
    for (const auto& [k, v] : c.fingerprint) {
        out += (first ? "" : ",") + json::quoted(k) + ":" + json::quoted(v);
        first = false;
    }
    out += "},\"parts\":{";
    first = true;
    for (const auto& [name, blob] : c.parts) {
        out += (first ? "" : ",") + json::quoted(name) + ":";
        first = false;
        if (name == "source" && ctx.source) {
            std::string described = ctx.source->describe_state(blob);
            out += "{\"bytes\":" + std::to_string(blob.size()) +
                   ",\"state\":" + (is_json(described) ? described : json::quoted(described)) + "}";
        } else {
            out += raw_part(blob);
        }
    }
    return out + "}}";
}

void print(const std::string& text) {
    std::string safe = config::SecretRegistry::instance().redact(text);
    std::fwrite(safe.data(), 1, safe.size(), stdout);
}

}  // namespace

int checkpoints_command(const CliOptions& o) {
    const std::string action = o.argument.value_or("");
    if (action != "list" && action != "show" && action != "export")
        throw std::invalid_argument(
            "cdcd checkpoints needs list, show or export (see cdcd --help)");
    Context ctx;
    std::string name = o.pipeline_name;
    std::string dir = o.state_dir;
    if (!o.pipeline_file.empty()) {
        auto secrets =
            o.secrets_file.empty() ? config::Secrets() : config::Secrets::from_file(o.secrets_file);
        ctx.plan = plan_pipeline(config::load_pipeline(o.pipeline_file, secrets),
                                 ConnectorRegistry::builtin());
        if (name.empty()) name = ctx.plan->settings.name;
        if (dir.empty()) dir = ctx.plan->state_dir;
        ConnectorContext source_ctx{ctx.plan->source_options, ctx.plan->definition.source,
                                    ctx.plan->settings, ctx.io};
        ctx.source = ctx.plan->source_factory->create(source_ctx);
    }
    if (dir.empty())
        throw std::invalid_argument("cdcd checkpoints needs --state-dir DIR (or --pipeline-file)");
    // Read-only (a RocksDB secondary instance): works while a running cdcd holds the directory.
    std::unique_ptr<state::CheckpointStore> store = state::CheckpointStore::open_read_only(dir);
    std::vector<std::string> pipelines =
        name.empty() ? store->pipelines() : std::vector<std::string>{name};

    if (action == "list") {
        std::string out;
        char line[256];
        std::snprintf(line, sizeof line, "%-24s %8s  %-24s %10s  %s\n", "PIPELINE", "ID",
                      "CREATED (UTC)", "BYTES", "PARTS");
        out += line;
        for (const auto& p : pipelines) {
            for (const auto& stored : store->scan(p)) {
                // An undecodable one is listed too: its id is what --from-checkpoint skips.
                if (!stored.checkpoint) {
                    std::snprintf(line, sizeof line, "%-24s %8llu  %-24s %10s  ", p.c_str(),
                                  static_cast<unsigned long long>(stored.id), "-", "-");
                    out += line + std::string("UNDECODABLE: ") + stored.error + "\n";
                    continue;
                }
                const state::Checkpoint& c = *stored.checkpoint;
                std::string parts;
                for (const auto& [part, blob] : c.parts)
                    parts += (parts.empty() ? "" : " ") + part + ":" + std::to_string(blob.size());
                std::snprintf(line, sizeof line, "%-24s %8llu  %-24s %10zu  ", p.c_str(),
                              static_cast<unsigned long long>(c.id), iso_time(c.created_ms).c_str(),
                              c.size_bytes());
                out += line + parts + "\n";
            }
        }
        print(out);
        return 0;
    }
    if (action == "show") {
        if (pipelines.size() != 1) {
            std::string known;
            for (const auto& p : pipelines) known += (known.empty() ? "" : ", ") + p;
            throw std::invalid_argument("cdcd checkpoints show needs --pipeline NAME (stored: " +
                                        (known.empty() ? std::string("none") : known) + ")");
        }
        auto c = o.checkpoint_id ? store->get(pipelines[0], *o.checkpoint_id)
                                 : store->latest(pipelines[0]);
        if (!c) {
            std::fprintf(stderr, "cdcd: no checkpoint%s of pipeline '%s' in %s\n",
                         o.checkpoint_id ? (" " + std::to_string(*o.checkpoint_id)).c_str() : "",
                         pipelines[0].c_str(), dir.c_str());
            return 1;
        }
        print(checkpoint_json(pipelines[0], *c, ctx) + "\n");
        return 0;
    }
    std::string out = "[";
    for (const auto& p : pipelines) {
        for (const auto& c : store->list(p)) {
            out += (out.size() > 1 ? ",\n" : "\n") + checkpoint_json(p, c, ctx);
        }
    }
    print(out + "\n]\n");
    return 0;
}

}  // namespace cdcd::cli
