// Options, over every registered connector: each built-in source and sink has a harness; every
// declared option is listed by `cdcd describe` with a description and a sound declaration; the
// harness's minimal pipeline validates; and a bad value of every typed option (wrong type, not an
// allowed value, outside its range) is refused by validate at the option's YAML line, naming it.
#include <catch2/catch.hpp>
#include <cmath>

#include "config/diagnostics.h"
#include "config/option_spec.h"
#include "pipeline/connector/registry.h"
#include "tests/unit/conformance/connector_harness.h"
#include "tests/unit/conformance/harness_pipeline.h"

using namespace cdcd;
using namespace cdcd::conformance;

namespace {

const config::ConnectorOptionsSpec& spec_of(const ConnectorHarness& h) {
    auto& registry = ConnectorRegistry::builtin();
    if (h.role == Role::Source) return registry.source(h.type)->options;
    return registry.sink(h.type)->options;
}

std::string name_of(const ConnectorHarness& h) {
    return std::string(to_string(h.role)) + " " + h.type;
}

/// The bad values the suite tries for `option`: one of the wrong type (or not allowed), and one
/// just outside each bound of its range.
std::vector<std::string> bad_values(const ConnectorHarness& h, const config::OptionSpec& option) {
    std::vector<std::string> out;
    auto it = h.invalid_values.find(option.type);
    std::string wrong =
        it != h.invalid_values.end() ? it->second : default_invalid_value(option.type);
    if (!wrong.empty()) out.push_back(wrong);
    // Plain numbers are milliseconds for durations and bytes for memory sizes.
    auto number = [](double v) {
        return v == std::floor(v) ? std::to_string(static_cast<long long>(v)) : std::to_string(v);
    };
    constexpr double kExact = 1e15;  // beyond this, v ± 1 is not a different double
    if (option.min && std::fabs(*option.min) < kExact && option.type != config::OptionType::Enum)
        out.push_back(number(*option.min - 1));
    if (option.max && std::fabs(*option.max) < kExact && option.type != config::OptionType::Enum)
        out.push_back(number(*option.max + 1));
    return out;
}

}  // namespace

TEST_CASE("every built-in connector registers a conformance harness") {
    auto& registry = ConnectorRegistry::builtin();
    for (const auto& name : registry.source_names()) {
        INFO("source " << name
                       << ": add tests/unit/conformance/harnesses/source_<name>.cpp "
                          "(docs/adding-a-connector.md)");
        CHECK(find_harness(Role::Source, name) != nullptr);
    }
    for (const auto& name : registry.sink_names()) {
        INFO("sink " << name
                     << ": add tests/unit/conformance/harnesses/sink_<name>.cpp "
                        "(docs/adding-a-connector.md)");
        CHECK(find_harness(Role::Sink, name) != nullptr);
    }
    for (const auto& h : harnesses()) {
        INFO("harness of " << name_of(h) << " names no registered connector");
        CHECK((h.role == Role::Source
                   ? static_cast<const void*>(registry.source(h.type))
                   : static_cast<const void*>(registry.sink(h.type))) != nullptr);
    }
}

TEST_CASE("describe lists every declared option, each with a description") {
    for (const auto& h : harnesses()) {
        DYNAMIC_SECTION(name_of(h)) {
            const auto& spec = spec_of(h);
            CHECK(config::check_spec(spec).empty());
            std::string described = config::describe(spec, name_of(h));
            for (const auto& option : spec.options) {
                INFO("option " << option.key);
                CHECK(described.find(option.key) != std::string::npos);
                CHECK_FALSE(option.description.empty());
            }
            for (const auto& prefix : spec.prefixes) {
                INFO("prefix " << prefix.prefix);
                CHECK(described.find(prefix.prefix) != std::string::npos);
            }
        }
    }
}

TEST_CASE("the harness's minimal pipeline validates") {
    for (const auto& h : harnesses()) {
        DYNAMIC_SECTION(name_of(h)) {
            HarnessPipeline p = minimal_pipeline(h);
            INFO(p.yaml);
            try {
                plan(p);
                SUCCEED();
            } catch (const config::ConfigError& e) {
                FAIL(e.what());
            }
        }
    }
}

TEST_CASE("a bad value of any typed option is refused by validate at its line") {
    for (const auto& h : harnesses()) {
        DYNAMIC_SECTION(name_of(h)) {
            int tried = 0;
            for (const auto& option : spec_of(h).options) {
                for (const std::string& value : bad_values(h, option)) {
                    ++tried;
                    HarnessPipeline p = with_option(h, option.key, value);
                    INFO(p.yaml);
                    INFO("option " << option.key << " (" << config::to_string(option.type)
                                   << ") = '" << value << "' on line " << p.option_line);
                    bool refused_there = false;
                    try {
                        plan(p);
                    } catch (const config::ConfigError& e) {
                        for (const auto& d : e.diagnostics().items())
                            refused_there |=
                                d.where.line == p.option_line &&
                                d.message.find("`" + option.key + "`") != std::string::npos;
                        INFO(e.what());
                        CHECK(refused_there);
                        continue;
                    }
                    FAIL("accepted");
                }
            }
            // Every connector has typed options; none tried means the loop above is broken.
            CHECK(tried > 0);
        }
    }
}
