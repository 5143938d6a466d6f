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
                        base * static_cast<double>(1ULL << std::min(retry, 30)));
    std::uniform_real_distribution<double> jitter(d / 2, d);
    return std::chrono::milliseconds(static_cast<std::int64_t>(jitter(rng)));
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value) {
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
    if (value.empty()) return std::nullopt;
    double seconds = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec == std::errc{} && ptr == value.data() + value.size()) {
        if (seconds < 0) return std::nullopt;
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
    tm.tm_year = year - 1900;
    tm.tm_mon = mon;
    tm.tm_mday = day;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = s;
    std::time_t at = timegm(&tm);
    auto now = std::chrono::system_clock::now();
    auto when = std::chrono::system_clock::from_time_t(at);
    auto delta = std::chrono::duration_cast<std::chrono::milliseconds>(when - now);
    return std::max(delta, std::chrono::milliseconds(0));
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
    RetryResult result;
    for (int attempt = 0;; ++attempt) {
        if (attempt > 0 && policy.on_retry) policy.on_retry();
        if (limiter) {
            std::chrono::nanoseconds waited = co_await limiter->acquire();
            if (policy.on_limiter_wait) policy.on_limiter_wait(waited);
        }
        result.attempts = attempt + 1;
        bool last = attempt >= policy.max_retries || (policy.cancelled && policy.cancelled());
        std::chrono::milliseconds delay{0};
        bool transport_failed = false;
        HttpRequest request = make_request();  // named: no temporaries inside co_await (GCC 12)
        try {
            result.response = co_await client.send(std::move(request));
        } catch (const HttpError& e) {
            if (last || e.kind() == HttpError::Kind::InvalidUrl) throw;
            transport_failed = true;
        }
        if (transport_failed) {
            co_await sleep_for(policy.backoff(attempt), policy.cancelled);
            continue;
        }
        auto verdict = classify(result.response);
        result.outcome = verdict.outcome;
        if (verdict.outcome != Outcome::Success && policy.on_failure)
            policy.on_failure(result.response);
        if (verdict.outcome != Outcome::Retryable || last) co_return result;
        delay = std::max(policy.backoff(attempt), verdict.min_delay);
        if (const std::string* ra = result.response.headers.find("Retry-After")) {
            if (auto wait = parse_retry_after(*ra)) {
                if (*wait > policy.retry_after_cap) {
                    result.retry_after_too_long = true;
                    co_return result;
                }
                delay = std::max(delay, *wait);
            }
        }
        co_await sleep_for(delay, policy.cancelled);
    }
}

}  // namespace cdcd::net
