// `cdcd test` cases from hostile text: parsed, and every case that parses run through a fixed
// pipeline's transform, route and schema operator (values → values; tables app.orders and
// app.ratios have transforms, app.orders a route), as `cdcd test` does. Mistakes in the cases
// and pipeline errors are outcomes; nothing may escape or crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cmd/test/case_runner.h"
#include "config/pipeline_def.h"
#include "config/secrets.h"
#include "pipeline/connector/registry.h"

using namespace cdcd;

namespace {

const PipelinePlan& plan() {
    static const PipelinePlan p = [] {
        config::Secrets secrets;
        return plan_pipeline(config::load_pipeline_string(R"(source:
  type: values
transform:
  - source-table: app.orders
    projection: id, amount * 100 AS cents, UPPER(status) AS status, CAST(day AS STRING) AS d
    filter: id > 0
  - source-table: app.ratios
    projection: \*, 10 / d AS ratio
route:
  - source-table: app.orders
    sink-table: dw.orders
sink:
  type: values
pipeline:
  schema.change.behavior: evolve
)",
                                                          "fuzz-pipeline.yaml", secrets),
                             ConnectorRegistry::builtin());
    }();
    return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    config::Diagnostics diags;
    auto doc = config::load_yaml_string(text, "fuzz.yaml", diags);
    if (!doc) return 0;
    const config::ConfigNode* list = doc->root.find("tests");
    if (!list) return 0;
    for (const auto& tc : cmd_test::parse_test_cases(*list, diags)) cmd_test::run_case(plan(), tc);
    return 0;
}
