#pragma once
// A small metrics registry for the admin endpoint's /metrics (Prometheus text exposition).
//
//   metrics::Registry registry({{"pipeline", "orders"}});          // constant labels
//   auto& rows = registry.counter("cdcd_records_out_total", "Records emitted",
//                                 {{"role", "source"}, {"connector", "kafka"}});
//   rows.inc(batch.size());                                       // one relaxed atomic add
//
// Looking a series up takes a mutex; updating it never does. Look series up once (at
// construction) and keep the reference: references stay valid for the registry's lifetime.
// Callback series (gauge_fn, counter_fn) are evaluated when /metrics is scraped, on the thread
// that scrapes (the pipeline's event loop), so they may read loop-owned state.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cdcd::metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;

class Counter {
  public:
    void inc(std::uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
    std::uint64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

  private:
    std::atomic<std::uint64_t> value_{0};
};

class Gauge {
  public:
    void set(double v) noexcept { value_.store(v, std::memory_order_relaxed); }
    void add(double v) noexcept { value_.fetch_add(v, std::memory_order_relaxed); }
    double value() const noexcept { return value_.load(std::memory_order_relaxed); }

  private:
    std::atomic<double> value_{0.0};
};

class Histogram {
  public:
    /// `bounds`: upper bounds of the buckets, ascending; +Inf is implicit.
    explicit Histogram(std::vector<double> bounds);
    void observe(double v) noexcept;

    const std::vector<double>& bounds() const { return bounds_; }
    /// Cumulative count of observations <= bounds()[i]; i == bounds().size() is +Inf.
    std::uint64_t cumulative(std::size_t i) const noexcept;
    std::uint64_t count() const noexcept { return count_.load(std::memory_order_relaxed); }
    double sum() const noexcept { return sum_.load(std::memory_order_relaxed); }

  private:
    std::vector<double> bounds_;
    std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;  // per bucket, not cumulative
    std::atomic<std::uint64_t> count_{0};
    std::atomic<double> sum_{0.0};
};

/// Bucket bounds for durations in seconds, 1 ms to 60 s.
std::vector<double> seconds_buckets();

enum class Type { Counter, Gauge, Histogram };

class Registry {
  public:
    explicit Registry(Labels constant_labels = {});
    ~Registry();
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;

    /// The series `name{labels}`, created on first use. Throws std::invalid_argument for an
    /// invalid name or label, or a name already registered with another type.
    Counter& counter(std::string_view name, std::string_view help, const Labels& labels = {});
    Gauge& gauge(std::string_view name, std::string_view help, const Labels& labels = {});
    Histogram& histogram(std::string_view name, std::string_view help, const Labels& labels = {},
                         std::vector<double> bounds = seconds_buckets());
    /// Series whose value is computed at scrape time; registering the same series again
    /// replaces the callback.
    void gauge_fn(std::string_view name, std::string_view help, const Labels& labels,
                  std::function<double()> value);
    void counter_fn(std::string_view name, std::string_view help, const Labels& labels,
                    std::function<double()> value);

    /// Every series in the Prometheus text exposition format (version 0.0.4), families sorted
    /// by name, series by labels.
    std::string expose() const;

    const Labels& constant_labels() const { return constant_; }

    /// A registry nobody scrapes: the default of ConnectorContext::metrics, so connectors built
    /// outside a pipeline run (unit tests, `cdcd checkpoints`) need no null checks.
    static Registry& detached();

    struct Series;
    struct Family;

  private:
    Series& series(std::string_view name, std::string_view help, Type type, const Labels& labels);

    Labels constant_;
    mutable std::mutex mutex_;
    std::map<std::string, std::unique_ptr<Family>, std::less<>> families_;
};

/// Content-Type of expose()'s output.
inline constexpr std::string_view kExpositionContentType =
    "text/plain; version=0.0.4; charset=utf-8";

}  // namespace cdcd::metrics
