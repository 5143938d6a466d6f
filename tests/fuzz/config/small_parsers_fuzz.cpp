// The small parsers from hostile text, the first byte picking one: durations and memory sizes
// (Flink's spellings and ISO 8601), URLs, Retry-After, percent-encoding, base64, data types,
// table ids, decimals, secrets files, Java's sasl.jaas.config, JSON string escaping, cgroup CPU
// quotas (first byte 255), the Prometheus text `cdcd top` reads (first byte 254, drawn as a
// screen too) and the query string of the admin endpoint's GET /tap (first byte 253), after the
// others so their seeds keep their meaning. Each either
// refuses the text or gives a value that survives a round trip through its printer (JSON: a UTF-8
// text quoted by cdcd's writer reads back as itself).
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cmd/top/top_view.h"
#include "config/diagnostics.h"
#include "config/interpolation.h"
#include "config/units.h"
#include "kafka_client/kafka_properties.h"
#include "net/retry.h"
#include "net/url.h"
#include "pipeline/data/table_id.h"
#include "pipeline/data/values.h"
#include "pipeline/route/selectors.h"
#include "pipeline/runtime/available_cpus.h"
#include "pipeline/runtime/tap_request.h"
#include "pipeline/types/data_type.h"
#include "pipeline/util/base64.h"
#include "pipeline/util/json_escape.h"

using namespace cdcd;

namespace {

void check(bool ok) {
    if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    if (data[0] == 255) {  // a quota gives at least one CPU, or none
        if (auto cpus = cpus_of_cgroup2_max(text)) check(*cpus >= 1);
        const auto newline = text.find('\n');
        if (auto cpus = cpus_of_cgroup1_quota(
                text.substr(0, newline),
                newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1)))
            check(*cpus >= 1);
        return 0;
    }
    if (data[0] == 254) {  // what a daemon's /metrics may hold: samples, or an error
        top::Scrape now;
        try {
            now.samples = top::parse_prometheus_text(text);
        } catch (const top::ExpositionError&) {
            return 0;
        }
        top::Scrape before = now;
        now.at = 1;
        for (const auto& line : top::daemon_lines(now, &before, 80))
            check(top::fit(line, 80) == line);
        return 0;
    }
    if (data[0] == 253) {  // a tap's query: refused, or within its bounds with a valid selector
        try {
            TapRequest request = parse_tap_request(text);
            check(request.rate >= 1 && request.rate <= kMaxTapRate);
            check(request.limit <= 1'000'000'000);
            check(request.table.empty() || Selectors::parse(request.table, nullptr) != nullptr);
        } catch (const TapRequestError&) {
        }
        return 0;
    }
    switch (data[0] % 12) {
        case 0:
            if (auto d = config::parse_duration(text))
                check(config::parse_duration(config::format_duration(*d)) == d);
            break;
        case 1:
            if (auto bytes = config::parse_memory_size(text))
                check(config::parse_memory_size(std::to_string(*bytes) + "b") == bytes);
            break;
        case 2:
            if (auto url = net::parse_url(text)) {
                const bool ipv6 = url->host.find(':') != std::string::npos;
                auto again =
                    net::parse_url(url->scheme + "://" + (ipv6 ? "[" : "") + url->host +
                                   (ipv6 ? "]:" : ":") + std::to_string(url->port) + url->target());
                check(again && again->host == url->host && again->port == url->port &&
                      again->target() == url->target());
                (void)url->redacted();
            }
            break;
        case 3:
            (void)net::parse_retry_after(text);
            break;
        case 4:
            check(net::percent_decode(net::percent_encode(text)) == text);
            check(net::percent_decode(net::percent_encode(text, true)) == text);
            (void)net::percent_decode(text);
            break;
        case 5:
            check(base64_decode(base64_encode(text)) == std::string(text));
            if (auto bytes = base64_decode(text)) (void)base64_encode(*bytes);
            break;
        case 6:
            if (auto type = DataType::parse(text))
                check(DataType::parse(type->to_string())->to_string() == type->to_string());
            break;
        case 7:
            if (auto id = TableId::parse(text))
                check(TableId::parse(id->str())->str() == id->str());
            break;
        case 8: {
            Decimal d;
            int scale = text.empty() ? 0 : static_cast<unsigned char>(text[0]) % 39;
            std::string_view number = text.empty() ? text : text.substr(1);
            if (Decimal::parse(number, scale, d)) {
                Decimal again;
                check(Decimal::parse(d.to_string(scale), scale, again) && again == d);
            }
            break;
        }
        case 9:
            try {
                (void)config::Secrets::from_string(text, "secrets.env");
            } catch (const config::ConfigError&) {
            }
            break;
        case 10:
            try {
                (void)kafka::translate_properties({{"sasl.jaas.config", std::string(text)}},
                                                  kafka::ClientRole::Consumer);
            } catch (const kafka::PropertyError&) {
            }
            break;
        default:
            if (simdjson::validate_utf8(text.data(), text.size())) {
                simdjson::dom::parser parser;
                std::string_view back;
                check(!parser.parse(json::quoted(text)).get(back) && back == text);
            }
    }
    return 0;
}
