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
