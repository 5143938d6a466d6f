#include "metrics/registry.h"

#include <algorithm>
#include <stdexcept>

#include "metrics/exposition.h"

namespace cdcd::metrics {

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), buckets_(new std::atomic<std::uint64_t>[bounds_.size() + 1]) {
    if (!std::is_sorted(bounds_.begin(), bounds_.end()) ||
        std::adjacent_find(bounds_.begin(), bounds_.end()) != bounds_.end())
        throw std::invalid_argument("histogram bucket bounds must be strictly ascending");
    for (std::size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0);
}

void Histogram::observe(double v) noexcept {
    auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);
    buckets_[static_cast<std::size_t>(it - bounds_.begin())].fetch_add(1,
                                                                       std::memory_order_relaxed);
    count_.fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(v, std::memory_order_relaxed);
}

std::uint64_t Histogram::cumulative(std::size_t i) const noexcept {
    std::uint64_t total = 0;
    for (std::size_t b = 0; b <= i && b <= bounds_.size(); ++b)
        total += buckets_[b].load(std::memory_order_relaxed);
    return total;
}

std::vector<double> seconds_buckets() {
    return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

struct Registry::Series {
    Labels labels;  // constant labels first, then the series' own
    std::unique_ptr<Counter> counter;
    std::unique_ptr<Gauge> gauge;
    std::unique_ptr<Histogram> histogram;
    std::function<double()> callback;
};

struct Registry::Family {
    Type type;
    std::string help;
    std::map<std::string, Series> series;  // by rendered labels
};

Registry::Registry(Labels constant_labels) : constant_(std::move(constant_labels)) {
    for (const auto& [k, v] : constant_)
        if (!valid_label_name(k))
            throw std::invalid_argument("invalid metric label name '" + k + "'");
}

Registry::~Registry() = default;

Registry& Registry::detached() {
    static Registry* registry = new Registry();
    return *registry;
}

Registry::Series& Registry::series(std::string_view name, std::string_view help, Type type,
                                   const Labels& labels) {
    if (!valid_metric_name(name))
        throw std::invalid_argument("invalid metric name '" + std::string(name) + "'");
    Labels all = constant_;
    for (const auto& [k, v] : labels) {
        if (!valid_label_name(k) || k == "le" || k == "quantile")
            throw std::invalid_argument("invalid label name '" + k + "' on metric " +
                                        std::string(name));
        for (const auto& [ck, cv] : all)
            if (ck == k)
                throw std::invalid_argument("label '" + k + "' given twice on metric " +
                                            std::string(name));
        all.emplace_back(k, v);
    }
    auto it = families_.find(name);
    if (it == families_.end()) {
        auto family = std::make_unique<Family>();
        family->type = type;
        family->help = std::string(help);
        it = families_.emplace(std::string(name), std::move(family)).first;
    } else if (it->second->type != type) {
        throw std::invalid_argument("metric " + std::string(name) +
                                    " is already registered with another type");
    }
    std::string key = format_labels(all);
    auto [pos, inserted] = it->second->series.try_emplace(key);
    if (inserted) pos->second.labels = std::move(all);
    return pos->second;
}

Counter& Registry::counter(std::string_view name, std::string_view help, const Labels& labels) {
    std::lock_guard lock(mutex_);
    Series& s = series(name, help, Type::Counter, labels);
    if (s.callback)
        throw std::invalid_argument("metric " + std::string(name) + " is a callback series");
    if (!s.counter) s.counter = std::make_unique<Counter>();
    return *s.counter;
}

Gauge& Registry::gauge(std::string_view name, std::string_view help, const Labels& labels) {
    std::lock_guard lock(mutex_);
    Series& s = series(name, help, Type::Gauge, labels);
    if (s.callback)
        throw std::invalid_argument("metric " + std::string(name) + " is a callback series");
    if (!s.gauge) s.gauge = std::make_unique<Gauge>();
    return *s.gauge;
}

Histogram& Registry::histogram(std::string_view name, std::string_view help, const Labels& labels,
                               std::vector<double> bounds) {
    std::lock_guard lock(mutex_);
    Series& s = series(name, help, Type::Histogram, labels);
    if (!s.histogram) s.histogram = std::make_unique<Histogram>(std::move(bounds));
    return *s.histogram;
}

void Registry::gauge_fn(std::string_view name, std::string_view help, const Labels& labels,
                        std::function<double()> value) {
    std::lock_guard lock(mutex_);
    Series& s = series(name, help, Type::Gauge, labels);
    if (s.gauge)
        throw std::invalid_argument("metric " + std::string(name) + " is not a callback series");
    s.callback = std::move(value);
}

void Registry::counter_fn(std::string_view name, std::string_view help, const Labels& labels,
                          std::function<double()> value) {
    std::lock_guard lock(mutex_);
    Series& s = series(name, help, Type::Counter, labels);
    if (s.counter)
        throw std::invalid_argument("metric " + std::string(name) + " is not a callback series");
    s.callback = std::move(value);
}

namespace {

const char* type_name(Type t) {
    switch (t) {
        case Type::Counter:
            return "counter";
        case Type::Gauge:
            return "gauge";
        case Type::Histogram:
            return "histogram";
    }
    return "untyped";
}

void append_sample(std::string& out, std::string_view name, const Labels& labels, double value) {
    out += name;
    out += format_labels(labels);
    out += ' ';
    append_value(out, value);
    out += '\n';
}

void append_histogram(std::string& out, const std::string& name, const Labels& labels,
                      const Histogram& h) {
    Labels with_le = labels;
    with_le.emplace_back("le", "");
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i <= h.bounds().size(); ++i) {
        cumulative = h.cumulative(i);
        std::string le;
        if (i == h.bounds().size()) {
            le = "+Inf";
        } else {
            append_value(le, h.bounds()[i]);
        }
        with_le.back().second = le;
        append_sample(out, name + "_bucket", with_le, static_cast<double>(cumulative));
    }
    append_sample(out, name + "_sum", labels, h.sum());
    append_sample(out, name + "_count", labels, static_cast<double>(cumulative));
}

}  // namespace

std::string Registry::expose() const {
    std::lock_guard lock(mutex_);
    std::string out;
    out.reserve(4096);
    for (const auto& [name, family] : families_) {
        out += "# HELP " + name + " " + escape_help(family->help) + "\n";
        out += "# TYPE " + name + " " + type_name(family->type) + "\n";
        for (const auto& [key, s] : family->series) {
            if (s.callback) {
                append_sample(out, name, s.labels, s.callback());
            } else if (s.counter) {
                append_sample(out, name, s.labels, static_cast<double>(s.counter->value()));
            } else if (s.gauge) {
                append_sample(out, name, s.labels, s.gauge->value());
            } else if (s.histogram) {
                append_histogram(out, name, s.labels, *s.histogram);
            }
        }
    }
    return out;
}

}  // namespace cdcd::metrics
