#include "sinks/file/writer_state.h"

#include <simdjson.h>

#include <charconv>

#include "pipeline/connector/connector_state.h"
#include "pipeline/util/json_escape.h"

namespace cdcd::file {

namespace {

constexpr std::string_view kStateName = "file-sink";
constexpr int kVersion = 2;

std::string encode_version_2(const std::optional<std::string>& file,
                             const std::vector<RetiredFile>& retired) {
    std::string out = "{\"file\":" + (file ? *file : std::string("null")) + ",\"retired\":[";
    for (std::size_t k = 0; k < retired.size(); ++k) {
        if (k) out += ",";
        out += "{\"path\":" + json::quoted(retired[k].path) + ",\"file\":" + retired[k].file + "}";
    }
    return wrap_connector_state(kStateName, kVersion, out + "]}");
}

/// The writer of `parallelism` whose file is `file` (writer_path), if one is.
std::optional<int> writer_of(const std::string& path, std::string_view file, int parallelism) {
    if (parallelism == 1) return file == path ? std::optional<int>(0) : std::nullopt;
    if (file.size() <= path.size() + 1 || file.substr(0, path.size()) != path ||
        file[path.size()] != '.')
        return std::nullopt;
    const std::string_view digits = file.substr(path.size() + 1);
    int index = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec != std::errc() || end != digits.data() + digits.size() || index < 0 ||
        index >= parallelism || writer_path(path, index, parallelism) != file)
        return std::nullopt;
    return index;
}

}  // namespace

std::string writer_path(const std::string& path, int index, int parallelism) {
    return parallelism > 1 ? path + "." + std::to_string(index) : path;
}

std::string encode_writer_state(const std::string& file_state,
                                const std::vector<RetiredFile>& retired) {
    if (!retired.empty()) return encode_version_2(file_state, retired);
    return wrap_connector_state(kStateName, 1, file_state);
}

DecodedWriterState decode_writer_state(std::string_view state) {
    DecodedWriterState out;
    if (!is_connector_state(state)) {  // stored before the envelope: the file's state bare
        out.file = std::string(state);
        return out;
    }
    ConnectorStateReader reader(state, kStateName, kVersion);
    if (reader.version() == 1) {
        out.file = reader.payload_json();
        return out;
    }
    StateFields fields(reader, reader.payload());
    simdjson::dom::element file = fields.element("file");
    if (!file.is_null()) out.file = simdjson::minify(file);
    for (simdjson::dom::element entry : fields.array("retired")) {
        StateFields retired(reader, entry, "retired");
        out.retired.push_back(RetiredFile{std::string(retired.string("path")),
                                          simdjson::minify(retired.element("file"))});
    }
    return out;
}

std::vector<std::optional<std::string>> rescale_writer_states(
    const std::string& path, const std::vector<std::string>& states, int parallelism) {
    const int before = static_cast<int>(states.size());
    std::vector<std::optional<std::string>> own(static_cast<std::size_t>(parallelism));
    std::vector<std::vector<RetiredFile>> retired(own.size());
    auto hand_on = [&](RetiredFile file, int j) {
        if (auto i = writer_of(path, file.path, parallelism)) {
            own[static_cast<std::size_t>(*i)] = std::move(file.file);
            return;
        }
        retired[static_cast<std::size_t>(j % parallelism)].push_back(std::move(file));
    };
    for (int j = 0; j < before; ++j) {
        const std::string& state = states[static_cast<std::size_t>(j)];
        if (state.empty()) continue;  // a writer that had not written yet
        DecodedWriterState decoded = decode_writer_state(state);
        for (auto& r : decoded.retired) hand_on(std::move(r), j);
        if (decoded.file) hand_on({writer_path(path, j, before), std::move(*decoded.file)}, j);
    }
    std::vector<std::optional<std::string>> out(own.size());
    for (std::size_t i = 0; i < own.size(); ++i) {
        if (!retired[i].empty())
            out[i] = encode_version_2(own[i], retired[i]);
        else if (own[i])
            out[i] = encode_writer_state(*own[i]);
    }
    return out;
}

}  // namespace cdcd::file
