#include "cmd/top/top_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <unordered_map>

namespace cdcd::top {

std::string grouped(double value) {
    if (!std::isfinite(value)) return "-";
    if (std::fabs(value) >= 1e18) {  // beyond long long: scientific, as a gauge may hold anything
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g", value);
        return buf;
    }
    auto n = static_cast<long long>(value);
    std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

std::string span(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return "-";
    if (seconds >= 1e9) return "∞";  // 30 years: a rate near zero
    char buf[32];
    auto s = static_cast<long long>(seconds);
    if (s < 60) {
        std::snprintf(buf, sizeof buf, "%llds", s);
    } else if (s < 3600) {
        std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
    } else if (s < 86400) {
        std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, s % 3600 / 60);
    } else {
        std::snprintf(buf, sizeof buf, "%lldd%02lldh", s / 86400, s % 86400 / 3600);
    }
    return buf;
}

std::string bytes(double value) {
    if (!std::isfinite(value) || value < 0) return "-";
    char buf[32];
    static const char* const kUnits[] = {"kB", "MB", "GB", "TB"};
    if (value < 1000) {
        std::snprintf(buf, sizeof buf, "%.0f B", value);
        return buf;
    }
    int unit = -1;
    while (value >= 1000 && unit < 3) {
        value /= 1000;
        ++unit;
    }
    std::snprintf(buf, sizeof buf, value < 10 ? "%.1f %s" : "%.0f %s", value, kUnits[unit]);
    return buf;
}

namespace {

bool continuation_byte(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Terminal columns of `text`: one per UTF-8 code point (the screen has no wide characters).
std::size_t columns(const std::string& text) {
    return static_cast<std::size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return !continuation_byte(c); }));
}

}  // namespace

std::string fit(const std::string& text, std::size_t width) {
    std::size_t columns = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (continuation_byte(text[i])) continue;
        if (columns == width) return text.substr(0, i);
        ++columns;
    }
    return text;
}

namespace {

const Sample* find(const std::vector<Sample>& samples, const std::string& name) {
    for (const Sample& s : samples)
        if (s.name == name) return &s;
    return nullptr;
}

double value_of(const std::vector<Sample>& samples, const std::string& name, double fallback) {
    const Sample* s = find(samples, name);
    return s ? s->value : fallback;
}

/// Per-second rate of counter `name` summed over the samples `match` selects; nullopt without a
/// previous scrape, or when a counter went down (the daemon restarted).
template <typename Match>
std::optional<double> rate(const Scrape& now, const Scrape* before, const std::string& name,
                           Match match) {
    if (!before || before->error || now.at <= before->at) return std::nullopt;
    std::unordered_map<std::string, double> earlier;
    for (const Sample& s : before->samples)
        if (s.name == name && match(s)) earlier[s.series()] = s.value;
    double delta = 0;
    for (const Sample& s : now.samples) {
        if (s.name != name || !match(s)) continue;
        auto it = earlier.find(s.series());
        double previous = it == earlier.end() ? 0 : it->second;
        if (s.value < previous) return std::nullopt;
        delta += s.value - previous;
    }
    return delta / (now.at - before->at);
}

std::string shown(const std::optional<double>& r) {
    return r ? grouped(std::round(*r)) : "-";
}

std::string pad_left(const std::string& s, std::size_t n) {
    return s.size() >= n ? s : std::string(n - s.size(), ' ') + s;
}
std::string pad_right(const std::string& s, std::size_t n) {
    return s.size() >= n ? s : s + std::string(n - s.size(), ' ');
}

std::string title(const Scrape& now, const Scrape* before, std::size_t width) {
    std::string pipeline;
    if (!now.samples.empty()) pipeline = std::string(now.samples.front().label("pipeline"));
    std::string text = "── " + (pipeline.empty() ? std::string() : pipeline + " @ ") + now.address;
    if (now.error) {
        text += " ── unreachable: " + *now.error + " ";
    } else {
        double ready = value_of(now.samples, "cdcd_ready", -1);
        text += ready == 1 ? " ── ready" : ready == 0 ? " ── NOT READY" : " ──";
        double started = value_of(now.samples, "cdcd_process_start_time_seconds", -1);
        if (started > 0) text += " · up " + span(now.wall - started);
        auto cpu =
            rate(now, before, "cdcd_process_cpu_seconds_total", [](const Sample&) { return true; });
        if (cpu) {
            char buf[32];
            std::snprintf(buf, sizeof buf, " · cpu %.0f%%", *cpu * 100);
            text += buf;
        }
        double rss = value_of(now.samples, "cdcd_process_resident_memory_bytes", -1);
        if (rss >= 0) text += " · rss " + bytes(rss);
        text += " ";
    }
    // Ruled to the width: a daemon's part of the screen starts at its title.
    std::string rule;
    for (std::size_t i = columns(text); i < width; ++i) rule += "─";
    return fit(text + rule, width);
}

void stage_lines(const Scrape& now, const Scrape* before, std::vector<std::string>& out) {
    // Stages in the order events pass them: sources, then sinks; each by connector.
    std::vector<std::pair<std::string, std::string>> stages;
    for (const Sample& s : now.samples) {
        if (s.name != "cdcd_records_out_total" && s.name != "cdcd_records_in_total") continue;
        std::pair<std::string, std::string> stage{std::string(s.label("role")),
                                                  std::string(s.label("connector"))};
        if (std::find(stages.begin(), stages.end(), stage) == stages.end()) stages.push_back(stage);
    }
    std::stable_sort(stages.begin(), stages.end(), [](const auto& a, const auto& b) {
        return (a.first == "source" ? 0 : 1) < (b.first == "source" ? 0 : 1);
    });
    if (stages.empty()) return;
    out.push_back("  stage    connector       in/s      out/s     errors    retries");
    for (const auto& [role, connector] : stages) {
        auto match = [&role = role, &connector = connector](const Sample& s) {
            return s.label("role") == role && s.label("connector") == connector;
        };
        double errors = 0, retries = 0, read = 0;
        for (const Sample& s : now.samples) {
            if (!match(s)) continue;
            if (s.name == "cdcd_errors_total") errors += s.value;
            if (s.name == "cdcd_retries_total") retries += s.value;
            if (s.name == "cdcd_records_in_total") read += s.value;
        }
        // A source's input is the messages it reads, which not every source counts (a generator
        // reads nothing): "-" then, not a rate of 0.
        std::string in = role == "source" && read == 0
                             ? std::string("-")
                             : shown(rate(now, before, "cdcd_records_in_total", match));
        out.push_back("  " + pad_right(role, 8) + " " + pad_right(connector, 10) + " " +
                      pad_left(in, 10) + " " +
                      pad_left(shown(rate(now, before, "cdcd_records_out_total", match)), 10) +
                      " " + pad_left(grouped(errors), 10) + " " + pad_left(grouped(retries), 10));
    }
}

void checkpoint_line(const Scrape& now, std::vector<std::string>& out) {
    const Sample* id = find(now.samples, "cdcd_checkpoint_last_id");
    double failed = value_of(now.samples, "cdcd_checkpoints_failed_total", 0);
    double failures = value_of(now.samples, "cdcd_pipeline_failures_total", 0);
    std::string text = "  checkpoint ";
    if (!id || id->value <= 0) {
        text += "none yet";
    } else {
        text += "#" + grouped(id->value) + " · age " +
                span(value_of(now.samples, "cdcd_checkpoint_last_age_seconds", -1));
        double took = value_of(now.samples, "cdcd_checkpoint_last_duration_seconds", -1);
        if (took >= 0) {
            char buf[32];
            std::snprintf(buf, sizeof buf, took < 1 ? "%.0f ms" : "%.1f s",
                          took < 1 ? took * 1000 : took);
            text += std::string(" · took ") + buf;
        }
        double size = value_of(now.samples, "cdcd_checkpoint_last_size_bytes", -1);
        if (size >= 0) text += " · " + bytes(size);
    }
    text += " · failed " + grouped(failed) + " · pipeline failures " + grouped(failures);
    out.push_back(text);
}

void bad_record_line(const Scrape& now, const Scrape* before, std::vector<std::string>& out) {
    std::map<std::string, double> by_stage_action;
    for (const Sample& s : now.samples)
        if (s.name == "cdcd_bad_records_total")
            by_stage_action[std::string(s.label("stage")) + " " + std::string(s.label("action"))] +=
                s.value;
    if (by_stage_action.empty()) return;
    std::string text = "  bad records";
    for (const auto& [what, count] : by_stage_action) text += " · " + what + " " + grouped(count);
    auto r = rate(now, before, "cdcd_bad_records_total", [](const Sample&) { return true; });
    if (r) text += " · " + shown(r) + "/s";
    out.push_back(text);
}

void lag_line(const Scrape& now, std::size_t width, std::vector<std::string>& out) {
    std::vector<std::tuple<double, std::string>> lags;
    double total = 0;
    for (const Sample& s : now.samples) {
        if (s.name != "cdcd_kafka_consumer_lag") continue;
        lags.emplace_back(
            s.value, std::string(s.label("topic")) + "[" + std::string(s.label("partition")) + "]");
        total += s.value;
    }
    if (lags.empty()) return;
    // The largest first, as many as the line holds.
    std::stable_sort(lags.begin(), lags.end(),
                     [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
    std::string text = "  lag " + grouped(total) + " in " + grouped(double(lags.size())) +
                       (lags.size() == 1 ? " partition:" : " partitions:");
    std::size_t shown_count = 0;
    for (const auto& [lag, name] : lags) {
        std::string item = " " + name + " " + grouped(lag);
        if (text.size() + item.size() + 6 > width) break;
        text += item;
        ++shown_count;
    }
    if (shown_count < lags.size()) text += " …";
    out.push_back(text);
}

void progress_lines(const Scrape& now, const Scrape* before, std::size_t width,
                    std::vector<std::string>& out) {
    struct Phase {
        double done = -1, total = -1, per_second = -1;
    };
    std::vector<std::pair<std::string, Phase>> phases;
    auto phase = [&](const Sample& s) -> Phase& {
        std::string name = std::string(s.label("connector")) + " " + std::string(s.label("phase"));
        for (auto& [n, p] : phases)
            if (n == name) return p;
        return phases.emplace_back(name, Phase{}).second;
    };
    for (const Sample& s : now.samples) {
        if (s.name == "cdcd_progress_items_done") phase(s).done = s.value;
        if (s.name == "cdcd_progress_items_total") phase(s).total = s.value;
        if (s.name == "cdcd_progress_items_per_second") phase(s).per_second = s.value;
    }
    for (auto& [name, p] : phases) {
        if (p.per_second <= 0) {  // the phase's own figure, else measured between the scrapes
            auto measured =
                rate(now, before, "cdcd_progress_items_done", [&name = name](const Sample& s) {
                    return std::string(s.label("connector")) + " " +
                               std::string(s.label("phase")) ==
                           name;
                });
            if (measured) p.per_second = *measured;
        }
        std::string text = "  " + name;
        if (p.total > 0 && p.done >= 0) {
            double fraction = std::clamp(p.done / p.total, 0.0, 1.0);
            char percent[16];
            std::snprintf(percent, sizeof percent, " %3.0f%% ", fraction * 100);
            std::string tail = percent + grouped(p.done) + "/" + grouped(p.total);
            if (p.per_second > 0) {
                tail += " · " + grouped(p.per_second) + "/s · eta " +
                        span((p.total - p.done) / p.per_second);
            }
            // The bar takes what the line has left, between 10 and 30 columns.
            std::size_t room =
                width > text.size() + tail.size() + 3 ? width - text.size() - tail.size() - 3 : 0;
            std::size_t bar = std::min<std::size_t>(30, room);
            if (bar >= 10) {
                auto filled = static_cast<std::size_t>(fraction * static_cast<double>(bar));
                text += " [" + std::string(filled, '#') + std::string(bar - filled, '.') + "]";
            }
            text += tail;
        } else {
            text += " " + grouped(std::max(p.done, 0.0)) + " done";
            if (p.per_second > 0) text += " · " + grouped(p.per_second) + "/s";
        }
        out.push_back(text);
    }
}

// Label values and errors are the daemon's text: their control characters (a newline, an escape
// sequence) must not reach the terminal.
void make_printable(std::string& line) {
    for (char& c : line)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
}

}  // namespace

std::vector<std::string> daemon_lines(const Scrape& now, const Scrape* before, std::size_t width) {
    std::vector<std::string> out;
    out.push_back(title(now, before, width));
    if (now.error) {
        make_printable(out.front());
        return out;
    }
    stage_lines(now, before, out);
    checkpoint_line(now, out);
    bad_record_line(now, before, out);
    lag_line(now, width, out);
    progress_lines(now, before, width, out);
    for (auto& line : out) {
        make_printable(line);
        line = fit(line, width);
    }
    return out;
}

}  // namespace cdcd::top
