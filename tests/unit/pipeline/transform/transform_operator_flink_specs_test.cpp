// Flink CDC's transform specs (flink-cdc-composer/src/test/resources/specs/*.yaml, run there by
// TransformSpecsITCase) run through cdcd's TransformOperator: the same input table and events,
// every case's output printed as the values sink prints it and compared line by line with the
// lines Flink CDC expects. Cases cdcd does not match yet are listed in
// flink_specs/known_differences.txt; see flink_specs/README.md.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pipeline/data/temporal.h"
#include "pipeline/event/event_format.h"
#include "pipeline/transform/transform_operator.h"

using namespace cdcd;
using namespace cdcd::transform;
namespace fs = std::filesystem;

namespace {

// The spec files TransformSpecsITCase runs (its EXPECTED_SPECS).
const std::vector<std::string> kSpecFiles = {"arithmetic.yaml", "basic.yaml",     "casting.yaml",
                                             "comparison.yaml", "condition.yaml", "decimal.yaml",
                                             "logical.yaml",    "meta.yaml",      "nested.yaml",
                                             "regression.yaml", "string.yaml",    "temporal.yaml"};

fs::path data_dir() {
    // ctest sets CDCD_SOURCE_DIR; __FILE__ may be relative to the build folder (ccache base_dir).
    if (const char* src = std::getenv("CDCD_SOURCE_DIR"))
        return fs::path(src) / "tests/unit/pipeline/transform/flink_specs";
    return fs::path(__FILE__).parent_path() / "flink_specs";
}

std::vector<std::string> split_lines(const std::string& text) {
    // Java's String.split drops trailing empty strings.
    std::vector<std::string> lines;
    std::string::size_type start = 0;
    while (true) {
        auto nl = text.find('\n', start);
        lines.push_back(text.substr(start, nl == std::string::npos ? nl : nl - start));
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    while (lines.size() > 1 && lines.back().empty()) lines.pop_back();
    return lines;
}

// ---------------------------------------------------------------------------------------------
// The input: TransformSpecsITCase's testInputSchema and its three records, without variant_
// (cdcd has no VARIANT type).

const TableId kTable = TableId::of("foo", "bar", "baz");

Schema input_schema() {
    auto col = [](std::string name, DataType type, std::string comment = {},
                  std::optional<std::string> default_value = std::nullopt) {
        return Column{std::move(name), std::move(type), std::move(comment),
                      std::move(default_value)};
    };
    std::vector<Column> columns = {
        col("id_", DataType::bigint().not_null(), "Identifier"),
        col("bool_", DataType::boolean(), "George", "false"),
        col("tinyint_", DataType::tinyint()),
        col("smallint_", DataType::smallint()),
        col("int_", DataType::int_()),
        col("bigint_", DataType::bigint()),
        col("float_", DataType::float_()),
        col("double_", DataType::double_()),
        col("decimal_10_0_", DataType::decimal(10, 0)),
        col("decimal_20_2_", DataType::decimal(20, 2)),
        col("char_", DataType::char_(140), "Let's Tweet", "..."),
        col("varchar_", DataType::varchar(140)),
        col("string_", DataType::string()),
        col("binary_", DataType::binary(640)),
        col("varbinary_", DataType::varbinary(640)),
        col("bytes_", DataType::bytes()),
        col("timestamp_0_", DataType::timestamp(0)),
        col("timestamp_6_", DataType::timestamp(6)),
        col("timestamp_9_", DataType::timestamp(9)),
        col("timestamp_tz_0_", DataType::timestamp_tz(0)),
        col("timestamp_tz_6_", DataType::timestamp_tz(6)),
        col("timestamp_tz_9_", DataType::timestamp_tz(9)),
        col("timestamp_ltz_0_", DataType::timestamp_ltz(0)),
        col("timestamp_ltz_6_", DataType::timestamp_ltz(6)),
        col("timestamp_ltz_9_", DataType::timestamp_ltz(9)),
        col("date_", DataType::date()),
        col("time_0_", DataType::time(0)),
        col("time_6_", DataType::time(6)),
        col("time_9_", DataType::time(9)),
        col("array_int_", DataType::array(DataType::int_())),
        col("array_string_", DataType::array(DataType::string())),
        col("map_int_string_", DataType::map(DataType::int_(), DataType::string())),
        col("map_string_array_string_",
            DataType::map(DataType::string(), DataType::array(DataType::string()))),
        col("complex_row_",
            DataType::row(
                {RowField{"name", std::make_shared<const DataType>(DataType::string()), ""},
                 RowField{"length", std::make_shared<const DataType>(DataType::int_()), ""}})),
    };
    return Schema(std::move(columns));
}

Row int_array(const std::vector<std::int64_t>& values) {
    RowBuilder b(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) b.set_long(i, values[i]);
    return std::move(b).build();
}

Row string_array(const std::vector<std::string>& values) {
    RowBuilder b(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) b.set_string(i, values[i]);
    return std::move(b).build();
}

Row row_array(const std::vector<Row>& values) {
    RowBuilder b(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) b.set_row(i, values[i]);
    return std::move(b).build();
}

std::int64_t nanos_of_day(int h, int m, int s) {
    return ((h * 60LL + m) * 60 + s) * 1'000'000'000LL;
}

// ZonedTimestampData.of(millis, nanos, zone) takes `millis` as the local date-time in `zone`;
// cdcd's ZonedTimestamp keeps the instant and the offset (the zone id itself is not kept).
ZonedTimestamp zoned(std::int64_t local_millis, std::int32_t nanos, std::int32_t offset_hours) {
    const std::int32_t offset = offset_hours * 3600;
    return ZonedTimestamp{Timestamp{local_millis - offset * 1000LL, nanos}, offset};
}

// The UTC offsets of TransformSpecsITCase's zones in January 1970, when every input value lies.
constexpr int kShanghai = 8, kBerlin = 1, kPuertoRico = -4;

struct Values {
    std::int64_t id;
    bool boolean;
    std::int64_t tinyint, smallint, int_, bigint;
    float float_;
    double double_;
    std::string decimal_10_0, decimal_20_2;
    std::string char_, varchar, string, binary, varbinary, bytes;
    std::int64_t ts_millis[3];
    std::int32_t ts_nanos[3];
    int year, month, day;
    int times[3][3];
    std::vector<std::int64_t> array_int;
    std::vector<std::string> array_string;
    std::vector<std::pair<std::int64_t, std::string>> map_int_string;
    std::vector<std::pair<std::string, std::vector<std::string>>> map_string_array_string;
    std::string row_name;
    std::int64_t row_length;
};

Row record(const Values& v) {
    RowBuilder b(34);
    b.set_long(0, v.id);
    b.set_bool(1, v.boolean);
    b.set_long(2, v.tinyint);
    b.set_long(3, v.smallint);
    b.set_long(4, v.int_);
    b.set_long(5, v.bigint);
    b.set_double(6, static_cast<double>(v.float_));
    b.set_double(7, v.double_);
    Decimal d10, d20;
    REQUIRE(Decimal::parse(v.decimal_10_0, 0, d10));
    REQUIRE(Decimal::parse(v.decimal_20_2, 2, d20));
    b.set_decimal(8, d10);
    b.set_decimal(9, d20);
    b.set_string(10, v.char_);
    b.set_string(11, v.varchar);
    b.set_string(12, v.string);
    b.set_bytes(13, v.binary);
    b.set_bytes(14, v.varbinary);
    b.set_bytes(15, v.bytes);
    const int offsets[3] = {kShanghai, kBerlin, kPuertoRico};
    for (int k = 0; k < 3; ++k) {
        b.set_timestamp(16 + k, Timestamp{v.ts_millis[k], v.ts_nanos[k]});
        b.set_zoned_timestamp(19 + k, zoned(v.ts_millis[k], v.ts_nanos[k], offsets[k]));
        b.set_timestamp(22 + k, Timestamp{v.ts_millis[k], v.ts_nanos[k]});
    }
    b.set_long(25, temporal::days_from_civil(v.year, static_cast<unsigned>(v.month),
                                             static_cast<unsigned>(v.day)));
    for (int k = 0; k < 3; ++k)
        b.set_long(26 + k, nanos_of_day(v.times[k][0], v.times[k][1], v.times[k][2]));
    Row array_int = int_array(v.array_int);
    b.set_row(29, array_int);
    Row array_string = string_array(v.array_string);
    b.set_row(30, array_string);
    // Maps keep the insertion order of the test's LinkedHashMap.
    std::vector<std::int64_t> int_keys;
    std::vector<std::string> int_values;
    for (const auto& [k, s] : v.map_int_string) {
        int_keys.push_back(k);
        int_values.push_back(s);
    }
    Row keys1 = int_array(int_keys), values1 = string_array(int_values);
    b.set_map(31, keys1, values1);
    std::vector<std::string> string_keys;
    std::vector<Row> array_values;
    for (const auto& [k, a] : v.map_string_array_string) {
        string_keys.push_back(k);
        array_values.push_back(string_array(a));
    }
    Row keys2 = string_array(string_keys), values2 = row_array(array_values);
    b.set_map(32, keys2, values2);
    RowBuilder nested(2);
    nested.set_string(0, v.row_name);
    nested.set_long(1, v.row_length);
    Row complex = std::move(nested).build();
    b.set_row(33, complex);
    return std::move(b).build();
}

Row record1() {
    return record(Values{
        1,
        true,
        2,
        3,
        4,
        5,
        7.7F,
        88.88,
        "1234567890",
        "123456789012345678.90",
        "Alice",
        "Zorro",
        "From A to Z is Lie",
        "Lorem ipsum",
        "dolor sit amet",
        "amet consectetuer",
        {123456789, 234567891, 345678912},
        {123456, 234561, 345612},
        2000,
        12,
        31,
        {{19, 43, 17}, {21, 45, 3}, {3, 59, 59}},
        {1, 1, 2, 3, 5, 8, 13},
        {"one", "one", "two", "three", "five"},
        {{1, "one"}, {2, "two"}, {3, "three"}},
        {{"one", {"O", "N", "E"}}, {"two", {"T", "W", "O"}}, {"three", {"T", "H", "R", "E", "E"}}},
        "Alice",
        5});
}

Row record2() {
    return record(Values{-1,
                         false,
                         -2,
                         -3,
                         -4,
                         -5,
                         -7.7F,
                         -88.88,
                         "-9876543210",
                         "-987654321098765432.10",
                         "爱丽丝",
                         "疯帽子",
                         "天地玄黄宇宙洪荒",
                         "一二三四五",
                         "六七八九十",
                         "吾輩は猫である",
                         {723456789, 834567891, 945678912},
                         {723456, 834561, 945612},
                         2001,
                         1,
                         1,
                         {{12, 34, 45}, {23, 45, 7}, {2, 30, 5}},
                         {2, 3, 5, 7, 11, 13, 17, 19},
                         {"二", "san", "五", "qi", "十一"},
                         {{1, "yi"}, {2, "er"}, {3, "san"}},
                         {{"一", {"Y", "I"}}, {"二", {"E", "R"}}, {"三", {"S", "A", "N"}}},
                         "Derrida",
                         7});
}

Row record3() {
    RowBuilder b(34);  // id_ 0, every other column NULL
    b.set_long(0, 0);
    return std::move(b).build();
}

// create, insert r1, update r1 -> r2, delete r2, then (unless non-null) insert r3, delete r3.
std::vector<Event> input_events(bool non_null) {
    std::vector<Event> events;
    events.emplace_back(CreateTableEvent{kTable, input_schema()});
    events.emplace_back(DataChangeEvent::insert(kTable, record1()));
    events.emplace_back(DataChangeEvent::update(kTable, record1(), record2()));
    events.emplace_back(DataChangeEvent::remove(kTable, record2()));
    if (!non_null) {
        events.emplace_back(DataChangeEvent::insert(kTable, record3()));
        events.emplace_back(DataChangeEvent::remove(kTable, record3()));
    }
    return events;
}

// ---------------------------------------------------------------------------------------------
// The specs.

struct Spec {
    std::string file;    // arithmetic.yaml
    int line = 0;        // of its "- do:" in Flink CDC's file
    std::string name;    // do
    std::string source;  // flink-cdc-composer/.../arithmetic.yaml:16
    std::string ignore;  // Flink CDC's own reason to skip it (a JIRA id)
    std::string left_out;
    std::string time_zone = "UTC";
    std::string decimal_precision_mode = "UP_TO_19";
    std::string projection, filter, primary_key, partition_key, table_options, converters;
    std::vector<std::string> expect, expect_error;
    // cdcd's wording of expect_error, where Flink CDC's text is a Java exception's (see README).
    std::vector<std::string> expect_error_cdcd;
    bool non_null = false;
    std::string key() const { return file + ":" + std::to_string(line); }
};

std::string text_of(const YAML::Node& node, const char* field) {
    return node[field] ? node[field].as<std::string>() : std::string();
}

std::string upper_ascii(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::vector<Spec> load_specs(const std::string& file) {
    const auto path = data_dir() / file;
    INFO("spec file " << path.string());
    REQUIRE(fs::exists(path));
    std::vector<Spec> specs;
    for (const auto& node : YAML::LoadFile(path.string())) {
        Spec s;
        s.file = file;
        s.name = text_of(node, "do");
        s.source = text_of(node, "source");
        auto colon = s.source.rfind(':');
        REQUIRE(colon != std::string::npos);
        s.line = std::stoi(s.source.substr(colon + 1));
        s.ignore = text_of(node, "ignore");
        s.left_out = text_of(node, "left-out");
        if (node["time-zone"]) s.time_zone = text_of(node, "time-zone");
        if (node["decimal-precision-mode"])
            s.decimal_precision_mode = upper_ascii(text_of(node, "decimal-precision-mode"));
        // The Java test splits the projection at line ends and joins the parts with ", ".
        if (node["projection"]) {
            for (const auto& part : split_lines(text_of(node, "projection"))) {
                if (!s.projection.empty()) s.projection += ", ";
                s.projection += part;
            }
        }
        s.filter = text_of(node, "filter");
        s.primary_key = text_of(node, "primary-key");
        s.partition_key = text_of(node, "partition-key");
        s.table_options = text_of(node, "table-options");
        s.converters = text_of(node, "converters");
        if (node["expect"]) s.expect = split_lines(text_of(node, "expect"));
        if (node["expect-error"]) s.expect_error = split_lines(text_of(node, "expect-error"));
        if (node["expect-error-cdcd"])
            s.expect_error_cdcd = split_lines(text_of(node, "expect-error-cdcd"));
        if (node["non-null"]) s.non_null = text_of(node, "non-null") == "true";
        specs.push_back(std::move(s));
    }
    return specs;
}

// known_differences.txt: "<file>.yaml:<line> <do> -- <class>: <reason>" per line.
struct KnownDifference {
    std::string name, reason;
};

std::map<std::string, KnownDifference> load_known_differences() {
    std::ifstream in(data_dir() / "known_differences.txt");
    REQUIRE(in);
    std::map<std::string, KnownDifference> known;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty() || line[0] == '#') continue;
        auto space = line.find(' ');
        auto dashes = line.find(" -- ");
        INFO("known_differences.txt:" << number << ": " << line);
        REQUIRE(space != std::string::npos);
        REQUIRE(dashes != std::string::npos);
        REQUIRE(dashes > space);
        auto key = line.substr(0, space);
        REQUIRE(known.count(key) == 0);
        known[key] = {line.substr(space + 1, dashes - space - 1), line.substr(dashes + 4)};
    }
    return known;
}

// ---------------------------------------------------------------------------------------------
// Running one case.

struct Outcome {
    std::vector<std::string> lines;  // the printed events
    std::optional<std::string> error;
};

Outcome run(const Spec& spec) {
    config::TransformDef def;
    def.source_table = kTable.str();
    def.projection = spec.projection;
    def.filter = spec.filter;
    def.primary_keys = spec.primary_key;
    def.partition_keys = spec.partition_key;
    def.table_options = spec.table_options;
    def.converter_after_transform = spec.converters;
    def.description = spec.file + " :: " + spec.name;
    def.where = def.projection_where = def.filter_where = {spec.file, spec.line, 1};

    Outcome out;
    config::Diagnostics diags;
    auto op = TransformOperator::create({def}, spec.time_zone, diags, {},
                                        spec.decimal_precision_mode == "UP_TO_38"
                                            ? DecimalPrecisionMode::UpTo38
                                            : DecimalPrecisionMode::UpTo19);
    if (!diags.ok()) {
        out.error = diags.to_string();
        return out;
    }
    std::map<std::string, Schema> schemas;
    for (auto& event : input_events(spec.non_null)) {
        EventBatch in, result;
        in.push_back(std::move(event));
        try {
            op->process(in, result);
        } catch (const std::exception& e) {
            out.error = e.what();
            return out;
        }
        for (const auto& e : result) {
            if (const auto* d = std::get_if<DataChangeEvent>(&e)) {
                out.lines.push_back(format_data_change(*d, schemas[d->table.str()]));
            } else {
                auto change = *as_schema_change(e);
                if (const auto* c = std::get_if<CreateTableEvent>(&change))
                    schemas[c->table.str()] = c->schema;
                out.lines.push_back(format_schema_change(change));
            }
        }
    }
    return out;
}

std::string show_lines(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += "    " + l + "\n";
    return s.empty() ? "    (none)\n" : s;
}

// Empty when the outcome is what Flink CDC's test asserts; otherwise what differs.
std::string compare(const Spec& spec, const Outcome& got) {
    std::ostringstream why;
    if (!spec.expect_error.empty()) {
        const auto& wanted =
            spec.expect_error_cdcd.empty() ? spec.expect_error : spec.expect_error_cdcd;
        if (!got.error) {
            why << "expected an error containing:\n"
                << show_lines(wanted) << "but no error was raised; output:\n"
                << show_lines(got.lines);
            return why.str();
        }
        std::vector<std::string> missing;
        for (const auto& e : wanted)
            if (got.error->find(e) == std::string::npos) missing.push_back(e);
        if (missing.empty()) return {};
        why << "the error does not contain:\n"
            << show_lines(missing) << "error:\n    " << *got.error << "\n";
        return why.str();
    }
    if (!got.error && got.lines == spec.expect) return {};
    why << "expected:\n" << show_lines(spec.expect) << "actual:\n" << show_lines(got.lines);
    if (got.error) why << "error:\n    " << *got.error << "\n";
    std::size_t differing = 0;
    for (std::size_t i = 0; i < std::max(spec.expect.size(), got.lines.size()); ++i)
        if (i >= spec.expect.size() || i >= got.lines.size() || spec.expect[i] != got.lines[i])
            ++differing;
    why << differing << " of " << spec.expect.size() << " expected lines differ\n";
    for (std::size_t i = 0; i < std::max(spec.expect.size(), got.lines.size()); ++i) {
        const auto* e = i < spec.expect.size() ? &spec.expect[i] : nullptr;
        const auto* a = i < got.lines.size() ? &got.lines[i] : nullptr;
        if (e && a && *e == *a) continue;
        why << "first differing line " << i + 1 << ":\n    expected: " << (e ? *e : "(none)")
            << "\n    actual:   " << (a ? *a : "(none)") << "\n";
        if (e && a) {
            // Where in the line, with some context before it.
            std::size_t at = 0;
            while (at < e->size() && at < a->size() && (*e)[at] == (*a)[at]) ++at;
            const std::size_t from = at > 40 ? at - 40 : 0;
            why << "at column " << at + 1 << ":\n    expected: ..." << e->substr(from, 100)
                << "\n    actual:   ..." << a->substr(from, 100) << "\n";
        }
        break;
    }
    return why.str();
}

void run_spec_file(const std::string& file) {
    const auto known = load_known_differences();
    std::size_t passed = 0, differing = 0, skipped = 0;
    for (const auto& spec : load_specs(file)) {
        if (!spec.left_out.empty() || !spec.ignore.empty()) {
            ++skipped;
            WARN(spec.source << " " << spec.name << ": skipped, "
                             << (spec.left_out.empty() ? "ignored by Flink CDC until " + spec.ignore
                                                       : "left out: " + spec.left_out));
            if (known.count(spec.key()))
                FAIL_CHECK(spec.key() << " is skipped: remove it from known_differences.txt");
            continue;
        }
        const auto diff = compare(spec, run(spec));
        const auto listed = known.find(spec.key());
        if (listed != known.end()) {
            if (listed->second.name != spec.name)
                FAIL_CHECK("known_differences.txt names " << spec.key() << " '"
                                                          << listed->second.name << "', the spec '"
                                                          << spec.name << "'");
            if (diff.empty()) {
                // Unwrapped, one line: the case to delete from known_differences.txt.
                std::cerr << "known difference now passes: " << spec.key() << "\n";
                FAIL_CHECK(spec.source << " " << spec.name
                                       << ": now passes: remove it from known_differences.txt");
            } else
                ++differing;
        } else if (!diff.empty()) {
            // In full on stderr: Catch wraps its messages at 80 columns.
            std::cerr << "=== " << spec.source << " " << spec.name
                      << "\nprojection: " << spec.projection << "\n"
                      << (spec.filter.empty() ? "" : "filter: " + spec.filter + "\n") << diff
                      << "\n";
            FAIL_CHECK(spec.source << " " << spec.name
                                   << ": differs from Flink CDC (details on stderr)");
        } else {
            ++passed;
        }
    }
    // One line per file for the record: how far cdcd is from Flink CDC here.
    WARN(file << ": " << passed << " pass, " << differing << " known differences, " << skipped
              << " skipped");
}

}  // namespace

TEST_CASE("Flink CDC transform specs: the spec files and known_differences.txt agree",
          "[flink-specs]") {
    std::set<std::string> files;
    for (const auto& entry : fs::directory_iterator(data_dir()))
        if (entry.path().extension() == ".yaml") files.insert(entry.path().filename().string());
    CHECK(files == std::set<std::string>(kSpecFiles.begin(), kSpecFiles.end()));

    std::set<std::string> keys;
    for (const auto& file : kSpecFiles)
        for (const auto& spec : load_specs(file)) {
            INFO(spec.source);
            CHECK(spec.source == "flink-cdc-composer/src/test/resources/specs/" + spec.key());
            CHECK(keys.insert(spec.key()).second);
            CHECK((spec.expect_error_cdcd.empty() || !spec.expect_error.empty()));
        }
    for (const auto& [key, difference] : load_known_differences()) {
        INFO("known_differences.txt: " << key << " " << difference.name);
        CHECK(keys.count(key) == 1);
    }
}

TEST_CASE("Flink CDC transform specs: arithmetic.yaml", "[flink-specs]") {
    run_spec_file("arithmetic.yaml");
}
TEST_CASE("Flink CDC transform specs: basic.yaml", "[flink-specs]") {
    run_spec_file("basic.yaml");
}
TEST_CASE("Flink CDC transform specs: casting.yaml", "[flink-specs]") {
    run_spec_file("casting.yaml");
}
TEST_CASE("Flink CDC transform specs: comparison.yaml", "[flink-specs]") {
    run_spec_file("comparison.yaml");
}
TEST_CASE("Flink CDC transform specs: condition.yaml", "[flink-specs]") {
    run_spec_file("condition.yaml");
}
TEST_CASE("Flink CDC transform specs: decimal.yaml", "[flink-specs]") {
    run_spec_file("decimal.yaml");
}
TEST_CASE("Flink CDC transform specs: logical.yaml", "[flink-specs]") {
    run_spec_file("logical.yaml");
}
TEST_CASE("Flink CDC transform specs: meta.yaml", "[flink-specs]") {
    run_spec_file("meta.yaml");
}
TEST_CASE("Flink CDC transform specs: nested.yaml", "[flink-specs]") {
    run_spec_file("nested.yaml");
}
TEST_CASE("Flink CDC transform specs: regression.yaml", "[flink-specs]") {
    run_spec_file("regression.yaml");
}
TEST_CASE("Flink CDC transform specs: string.yaml", "[flink-specs]") {
    run_spec_file("string.yaml");
}
TEST_CASE("Flink CDC transform specs: temporal.yaml", "[flink-specs]") {
    run_spec_file("temporal.yaml");
}
