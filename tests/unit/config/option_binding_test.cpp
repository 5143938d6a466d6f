// Options bound to the members of a typed settings struct: the key is written once, in the
// declaration, and reading the options fills the struct.
#include "config/option_binding.h"

#include <catch2/catch.hpp>

using namespace cdcd::config;
using namespace std::chrono_literals;

namespace {

enum class Mode { Earliest, Latest };

struct Limits {
    std::size_t max_bytes = 0;
};

struct Settings {
    std::string topic;
    Mode mode = Mode::Earliest;
    int retries = 0;
    std::optional<long long> start;
    double ratio = 0;
    bool ssl = false;
    bool iso_timestamps = false;
    std::chrono::milliseconds timeout{0};
    Limits limits;
    std::vector<std::string> hosts;
    std::map<std::string, std::string> properties;
};

const OptionBindings<Settings>& bindings() {
    static const OptionBindings<Settings> b{
        {
            OptionSpec::string("topic").required().desc("Kafka topic").to(&Settings::topic),
            OptionSpec::enum_of<Mode>("mode",
                                      {{"earliest", Mode::Earliest}, {"latest", Mode::Latest}})
                .default_("latest")
                .to(&Settings::mode),
            OptionSpec::integer("retries").range(0, 10).default_("3").to(&Settings::retries),
            OptionSpec::long_("start").to(&Settings::start),
            OptionSpec::double_("ratio").default_("0.5").to(&Settings::ratio),
            OptionSpec::boolean("ssl").default_("false").to(&Settings::ssl),
            OptionSpec::enum_of<bool>("timestamps", {{"SQL", false}, {"ISO-8601", true}})
                .default_("SQL")
                .to(&Settings::iso_timestamps),
            OptionSpec::duration("timeout").default_("30s").to(&Settings::timeout),
            OptionSpec::memory_size("buffer").default_("64mb").to(&Settings::limits,
                                                                  &Limits::max_bytes),
            OptionSpec::list("hosts").default_("a, b").to(&Settings::hosts),
            OptionSpec::boolean("legacy.flag").default_("false").desc("Accepted, no effect"),
        },
        {PrefixSpec{"properties.", "passed to librdkafka"}.to(&Settings::properties)},
    };
    return b;
}

RawOptions raw(std::initializer_list<std::pair<std::string, std::string>> kv) {
    RawOptions out;
    int line = 6;
    for (const auto& [k, v] : kv) out.emplace(k, RawValue{v, SourceLocation{"p.yaml", line++, 3}});
    return out;
}

const SourceLocation kBlock{"p.yaml", 5, 1};

}  // namespace

TEST_CASE("binding: the declarations are the spec the validator and describe use") {
    const ConnectorOptionsSpec& spec = bindings().spec();
    REQUIRE(spec.options.size() == 11);
    CHECK(spec.options[0].key == "topic");
    CHECK(spec.options[1].enum_values == std::vector<std::string>{"earliest", "latest"});
    CHECK(spec.prefixes.at(0).prefix == "properties.");
    CHECK(check_spec(spec).empty());
}

TEST_CASE("binding: reading fills every member from the YAML or the default") {
    Diagnostics d;
    auto v = validate_options(bindings().spec(),
                              raw({{"topic", "orders"},
                                   {"mode", "EARLIEST"},
                                   {"start", "1700000000000"},
                                   {"buffer", "1kb"},
                                   {"timestamps", "iso-8601"},
                                   {"properties.acks", "all"}}),
                              kBlock, "source `kafka`", d);
    REQUIRE(d.ok());
    auto o = bindings().read(v);
    CHECK(o->topic == "orders");
    CHECK(o->mode == Mode::Earliest);
    CHECK(o->retries == 3);
    CHECK(o->start == 1700000000000LL);
    CHECK(o->ratio == 0.5);
    CHECK_FALSE(o->ssl);
    CHECK(o->iso_timestamps);
    CHECK(o->timeout == 30s);
    CHECK(o->limits.max_bytes == 1024);
    CHECK(o->hosts == std::vector<std::string>{"a", "b"});
    CHECK(o->properties == std::map<std::string, std::string>{{"acks", "all"}});
}

TEST_CASE("binding: an optional member stays empty when its option is not set") {
    Diagnostics d;
    auto v = validate_options(bindings().spec(), raw({{"topic", "t"}}), kBlock, "b", d);
    auto o = bindings().read(v);
    CHECK_FALSE(o->start.has_value());
    CHECK(o->mode == Mode::Latest);
}

TEST_CASE("binding: a hook finds a member's key, position and whether it was set") {
    Diagnostics d;
    auto v = validate_options(bindings().spec(), raw({{"retries", "5"}, {"topic", "t"}}), kBlock,
                              "b", d);
    auto o = bindings().read(v);
    CHECK(o.key(o->retries) == "retries");
    CHECK(o.key(o->limits.max_bytes) == "buffer");
    CHECK(o.key(o->properties) == "properties.");
    CHECK(o.is_set(o->retries));
    CHECK_FALSE(o.is_set(o->ratio));
    CHECK(o.where(o->retries).line == 6);
    CHECK(o.where(o->ratio).line == kBlock.line);
    CHECK(o.text(o->ratio) == "0.5");
    CHECK_THROWS_AS(o.key(o.values()), std::logic_error);
}

TEST_CASE("binding: a missing required option leaves its member as it was") {
    Diagnostics d;
    auto v = validate_options(bindings().spec(), raw({}), kBlock, "b", d);
    CHECK_FALSE(d.ok());
    CHECK(bindings().read(v)->topic.empty());
}

namespace {
struct Narrow {
    int small = 0;
    std::string text;
    std::optional<std::string> maybe;
    Mode mode = Mode::Earliest;
    int a = 0;
    std::vector<std::string> list;
};
}  // namespace

TEST_CASE("binding: a binding that could not hold its option is refused when made") {
    // A LONG option does not fit an int unless its range does.
    CHECK_THROWS_WITH(OptionSpec::long_("n").default_("1").to(&Narrow::small),
                      Catch::Contains("range does not fit"));
    CHECK_NOTHROW(OptionSpec::long_("n").default_("1").range(0, 100).to(&Narrow::small));
    CHECK_THROWS_WITH(OptionSpec::integer("n").default_("1").to(&Narrow::text),
                      Catch::Contains("does not fit its member"));
    // No default and not required: nothing to fill a plain member with.
    CHECK_THROWS_WITH(OptionSpec::string("s").to(&Narrow::text),
                      Catch::Contains("bind it to a std::optional member"));
    CHECK_NOTHROW(OptionSpec::string("s").to(&Narrow::maybe));
    CHECK_NOTHROW(OptionSpec::list("l").to(&Narrow::list));  // unset: empty
    // An enum option binds to a C++ enum only when declared with its values.
    CHECK_THROWS_WITH(OptionSpec::enum_of("m", {"earliest"}).default_("earliest").to(&Narrow::mode),
                      Catch::Contains("enum_of<Enum>(key, {{"));
    CHECK_NOTHROW(OptionSpec::enum_of("m", {"earliest"}).default_("earliest").to(&Narrow::text));
    // Two options filling one member.
    CHECK_THROWS_WITH((OptionBindings<Narrow>{{
                          OptionSpec::integer("a").default_("1").to(&Narrow::a),
                          OptionSpec::integer("b").default_("1").to(&Narrow::a),
                      }}),
                      Catch::Contains("another option fills"));
}
