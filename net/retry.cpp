#include "net/retry.h"

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <charconv>
#include <ctime>
#include <random>

namespace cdcd::net {

std::chrono::milliseconds RetryPolicy::backoff(int retry) const {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    double base = static_cast<double>(initial_backoff.count());
    double d = std::min(static_cast<double>(max_backoff.count()),
                        base * static_cast<double>(1ULL << std::clamp(retry, 0, 30)));
    double u = random ? std::clamp(random(), 0.0, 1.0)
                      : std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    return std::chrono::milliseconds(static_cast<std::int64_t>(d / 2 + u * d / 2));
}

std::optional<std::chrono::milliseconds> retry_delay(const RetryPolicy& policy, int retry,
                                                     std::chrono::milliseconds min_delay,
                                                     const HttpResponse& response) {
    auto delay = std::max(policy.backoff(retry), min_delay);
    if (const std::string* ra = response.headers.find("Retry-After")) {
        if (auto wait = parse_retry_after(*ra)) {
            if (*wait > policy.retry_after_cap) return std::nullopt;
            delay = std::max(delay, *wait);
        }
    }
    return delay;
}

std::chrono::milliseconds throttle_delay(const RetryPolicy& policy, const HttpResponse& response) {
    if (const std::string* ra = response.headers.find("Retry-After"))
        if (auto wait = parse_retry_after(*ra)) return std::min(*wait, policy.retry_after_cap);
    return std::chrono::milliseconds(0);
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value) {
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
    if (value.empty()) return std::nullopt;
    double seconds = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec == std::errc{} && ptr == value.data() + value.size()) {
        if (!(seconds >= 0)) return std::nullopt;  // negative or NaN
        // Past what milliseconds hold (1e40, inf): as long as can be, which any cap cuts.
        if (seconds * 1000 >= 9.2e18) return std::chrono::milliseconds::max();
        return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
    }
    // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
    std::tm tm{};
    char month[4] = {};
    char wday[4] = {};
    int day = 0, year = 0, h = 0, m = 0, s = 0;
    std::string text(value);
    if (std::sscanf(text.c_str(), "%3s, %d %3s %d %d:%d:%d GMT", wday, &day, month, &year, &h, &m,
                    &s) != 7)
        return std::nullopt;
    static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    int mon = -1;
    for (int i = 0; i < 12; ++i)
        if (kMonths[i] == month) mon = i;
    if (mon < 0) return std::nullopt;
    // An IMF-fixdate's fields are in range: anything else (a year of -1994, a day of 1e9) is no
    // date, and timegm of it could be past what system_clock holds.
    if (year < 1900 || year > 9999 || day < 1 || day > 31 || h < 0 || h > 23 || m < 0 || m > 59 ||
        s < 0 || s > 60)
        return std::nullopt;
    tm.tm_year = year - 1900;
    tm.tm_mon = mon;
    tm.tm_mday = day;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = s;
    // In whole seconds: a date past 2262 is more than system_clock's nanoseconds hold.
    const std::int64_t at = timegm(&tm);
    const std::int64_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    if (at <= now) return std::chrono::milliseconds(0);
    return std::chrono::milliseconds((at - now) * 1000);
}

boost::asio::awaitable<void> sleep_for(std::chrono::milliseconds delay,
                                       const std::function<bool()>& cancelled) {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
    auto until = std::chrono::steady_clock::now() + delay;
    while (std::chrono::steady_clock::now() < until) {
        if (cancelled && cancelled()) co_return;
        auto slice = std::min<std::chrono::steady_clock::duration>(
            until - std::chrono::steady_clock::now(), std::chrono::milliseconds(200));
        timer.expires_after(slice);
        co_await timer.async_wait(boost::asio::use_awaitable);
    }
}

boost::asio::awaitable<void> sleep_for(std::chrono::milliseconds delay) {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
    timer.expires_after(delay);
    co_await timer.async_wait(boost::asio::use_awaitable);
}

boost::asio::awaitable<RetryResult> send_with_retry(
    HttpClient& client, const std::function<HttpRequest()>& make_request,
    const Classifier& classify, const RetryPolicy& policy, RateLimiter* limiter) {
    using std::chrono::steady_clock;
    RetryResult result;
    const auto started = steady_clock::now();
    auto stamp = [&] {
        result.elapsed =
            std::chrono::duration_cast<std::chrono::milliseconds>(steady_clock::now() - started);
    };
    auto cancelled = [&] { return policy.cancelled && policy.cancelled(); };
    AdaptiveRate* rate = policy.adaptive_rate.get();
    int failures = 0;  // failed attempts so far: what max_retries bounds (throttles are not)
    bool after_failure = false;
    for (;;) {
        if (after_failure && policy.on_retry) policy.on_retry();
        if (limiter) {
            std::chrono::nanoseconds waited = co_await limiter->acquire();
            if (policy.on_limiter_wait) policy.on_limiter_wait(waited);
        }
        if (rate) {
            auto pace = std::chrono::ceil<std::chrono::milliseconds>(rate->reserve());
            if (pace.count() > 0) co_await sleep_for(pace, policy.cancelled);
        }
        const auto sent_at = rate ? rate->now() : AdaptiveRate::Clock::time_point{};
        ++result.attempts;
        bool last = failures >= policy.max_retries || cancelled();
        bool transport_failed = false;
        HttpRequest request = make_request();  // named: no temporaries inside co_await (GCC 12)
        try {
            result.response = co_await client.send(std::move(request));
        } catch (const HttpError& e) {
            // The same URL, or the same oversized answer, would fail again.
            if (last || e.kind() == HttpError::Kind::InvalidUrl ||
                e.kind() == HttpError::Kind::TooLarge)
                throw;
            transport_failed = true;
        }
        if (transport_failed) {
            co_await sleep_for(policy.backoff(failures), policy.cancelled);
            ++failures;
            after_failure = true;
            continue;
        }
        auto verdict = classify(result.response);
        if (verdict.outcome == Outcome::Throttled && !rate) verdict.outcome = Outcome::Retryable;
        result.outcome = verdict.outcome;
        stamp();
        if (verdict.outcome == Outcome::Throttled) {
            // An answer asking to slow down: slow down and ask again, for as long as it takes.
            ++result.throttled;
            rate->on_throttle(sent_at);
            if (policy.on_throttle) policy.on_throttle(result.response);
            if (cancelled()) co_return result;
            co_await sleep_for(throttle_delay(policy, result.response), policy.cancelled);
            after_failure = false;
            continue;
        }
        if (verdict.outcome == Outcome::Success && rate) rate->on_success();
        if (verdict.outcome != Outcome::Success && policy.on_failure)
            policy.on_failure(result.response);
        if (verdict.outcome != Outcome::Retryable || last) co_return result;
        auto delay = retry_delay(policy, failures, verdict.min_delay, result.response);
        if (!delay) {
            result.retry_after_too_long = true;
            co_return result;
        }
        co_await sleep_for(*delay, policy.cancelled);
        ++failures;
        after_failure = true;
    }
}

}  // namespace cdcd::net
