#include "pipeline/connector/registry.h"

#include <stdexcept>

namespace cdcd {

void ConnectorRegistry::add(SourceFactory factory) {
    std::string name = factory.name;
    if (!sources_.emplace(name, std::move(factory)).second)
        throw std::logic_error("source connector registered twice: " + name);
}

void ConnectorRegistry::add(SinkFactory factory) {
    std::string name = factory.name;
    if (!sinks_.emplace(name, std::move(factory)).second)
        throw std::logic_error("sink connector registered twice: " + name);
}

const SourceFactory* ConnectorRegistry::source(const std::string& name) const {
    auto it = sources_.find(name);
    return it == sources_.end() ? nullptr : &it->second;
}

const SinkFactory* ConnectorRegistry::sink(const std::string& name) const {
    auto it = sinks_.find(name);
    return it == sinks_.end() ? nullptr : &it->second;
}

bool ConnectorRegistry::is_template_option(const std::string& block, const std::string& type,
                                           const std::string& key) const {
    const config::ConnectorOptionsSpec* spec = nullptr;
    if (block == "source") {
        if (const auto* f = source(type)) spec = &f->options;
    } else if (block == "sink") {
        if (const auto* f = sink(type)) spec = &f->options;
    }
    if (!spec) return false;
    for (const auto& o : spec->options)
        if (o.key == key) return o.templated;
    return false;
}

std::vector<std::string> ConnectorRegistry::source_names() const {
    std::vector<std::string> names;
    for (const auto& [n, f] : sources_) names.push_back(n);
    return names;
}

std::vector<std::string> ConnectorRegistry::sink_names() const {
    std::vector<std::string> names;
    for (const auto& [n, f] : sinks_) names.push_back(n);
    return names;
}

}  // namespace cdcd
