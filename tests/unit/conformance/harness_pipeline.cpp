// Pipelines around a harness's connector, for the conformance tests.
#include "tests/unit/conformance/harness_pipeline.h"

#include <sstream>

#include "config/pipeline_def.h"
#include "config/secrets.h"
#include "pipeline/connector/registry.h"

namespace cdcd::conformance {

namespace {

int count_lines(const std::string& text) {
    int n = 0;
    for (char c : text) n += c == '\n';
    return n;
}

/// The minimal options without the line of `key`.
std::string options_without(const std::string& options, const std::string& key) {
    std::istringstream in(options);
    std::string line, out;
    while (std::getline(in, line))
        if (line.rfind("  " + key + ":", 0) != 0) out += line + "\n";
    return out;
}

HarnessPipeline assemble(const ConnectorHarness& harness, const std::string& options,
                         const std::string& extra_line) {
    const std::string block = "  type: " + harness.type + "\n" + options + extra_line;
    const std::string values = "  type: values\n";
    HarnessPipeline p;
    if (harness.role == Role::Source) {
        p.yaml = "source:\n" + block + "sink:\n" + values;
        if (!extra_line.empty()) p.option_line = 2 + count_lines(options) + 1;
    } else {
        p.yaml = "source:\n" + values + "sink:\n" + block;
        if (!extra_line.empty()) p.option_line = 4 + count_lines(options) + 1;
    }
    p.yaml += "pipeline:\n  name: conformance-" + harness.type + "\n";
    return p;
}

}  // namespace

HarnessPipeline minimal_pipeline(const ConnectorHarness& harness) {
    return assemble(harness, harness.minimal_options, "");
}

HarnessPipeline with_option(const ConnectorHarness& harness, const std::string& key,
                            const std::string& value) {
    return assemble(harness, options_without(harness.minimal_options, key),
                    "  " + key + ": '" + value + "'\n");
}

PipelinePlan plan(const HarnessPipeline& pipeline) {
    auto& registry = ConnectorRegistry::builtin();
    auto templates = [&registry](const std::string& block, const std::string& type,
                                 const std::string& key) {
        return registry.is_template_option(block, type, key);
    };
    auto def = config::load_pipeline_string(pipeline.yaml, "conformance.yaml", config::Secrets(),
                                            config::process_env, templates);
    return plan_pipeline(std::move(def), registry);
}

}  // namespace cdcd::conformance
