#include "pipeline/runtime/tap_request.h"

#include <charconv>
#include <set>

#include "pipeline/route/selectors.h"

namespace cdcd {

const char* to_string(TapPoint point) {
    switch (point) {
        case TapPoint::Source:
            return "source";
        case TapPoint::Transform:
            return "transform";
        case TapPoint::Sink:
            return "sink";
    }
    return "unknown";
}

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string percent_decode(std::string_view text, std::string_view what) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '+') {
            out.push_back(' ');
        } else if (c == '%') {
            bool complete = i + 2 < text.size();
            int hi = complete ? hex_digit(text[i + 1]) : -1;
            int lo = complete ? hex_digit(text[i + 2]) : -1;
            if (hi < 0 || lo < 0)
                throw TapRequestError("tap: bad percent-encoding in " + std::string(what));
            out.push_back(static_cast<char>(hi * 16 + lo));
            i += 2;
        } else {
            out.push_back(c);
        }
    }
    return out;
}

std::uint64_t number_of(const std::string& name, const std::string& value, std::uint64_t max) {
    std::uint64_t n = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() || n > max)
        throw TapRequestError("tap: parameter " + name + " must be a whole number from " +
                              (name == "rate" ? "1" : "0") + " to " + std::to_string(max) +
                              ", not '" + value + "'");
    return n;
}

}  // namespace

TapRequest parse_tap_request(std::string_view query) {
    TapRequest request;
    std::set<std::string> seen;
    while (!query.empty()) {
        auto amp = query.find('&');
        std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        if (pair.empty()) continue;
        auto eq = pair.find('=');
        std::string name = percent_decode(pair.substr(0, eq), "a parameter name");
        std::string value = eq == std::string_view::npos
                                ? std::string()
                                : percent_decode(pair.substr(eq + 1), "parameter " + name);
        if (!seen.insert(name).second)
            throw TapRequestError("tap: parameter " + name + " is given twice");
        if (name == "point") {
            if (value == "source")
                request.point = TapPoint::Source;
            else if (value == "transform")
                request.point = TapPoint::Transform;
            else if (value == "sink")
                request.point = TapPoint::Sink;
            else
                throw TapRequestError(
                    "tap: parameter point must be source, transform or sink, not '" + value + "'");
        } else if (name == "table") {
            std::string error;
            if (!Selectors::parse(value, &error))
                throw TapRequestError("tap: parameter table: " + error);
            request.table = value;
        } else if (name == "rate") {
            request.rate = static_cast<std::uint32_t>(number_of(name, value, kMaxTapRate));
            if (request.rate == 0)
                throw TapRequestError("tap: parameter rate must be a whole number from 1 to " +
                                      std::to_string(kMaxTapRate) + ", not '0'");
        } else if (name == "limit") {
            request.limit = number_of(name, value, 1'000'000'000);
        } else {
            throw TapRequestError("tap: unknown parameter '" + name +
                                  "' (known: point, table, rate, limit)");
        }
    }
    return request;
}

}  // namespace cdcd
