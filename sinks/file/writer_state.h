#pragma once
// A file sink writer's part of a checkpoint, in the connector state envelope `file-sink`:
//   version 1: its file's AppendOnlyFile state (the file, its committed length and tail checksum)
//   version 2: also the files of writers no longer there (another parallelism), each complete up
//              to its committed length, kept so that cdcd still knows them for its own:
//              {"file": <its own file's state, or null>,
//               "retired": [{"path": "...", "file": <that file's state>}, ...]}
// Writer i of N writes `path` (N = 1) or `path.<i>`. At another parallelism a writer whose file
// name is one the checkpoint knows (an old writer's, or a retired one) goes on in that file after
// its committed length; a known file no writer goes on in is cut back to its committed length
// (the source replays what followed), left as it is and carried on as retired; a name the
// checkpoint does not know starts a new file, claimed like a fresh start's (if-exists).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cdcd::file {

/// The file of writer `index` of `parallelism` writers.
std::string writer_path(const std::string& path, int index, int parallelism);

struct RetiredFile {
    std::string path;
    std::string file;  // the file's state
};

/// The state of the writer's own file, and of the retired files it carries (version 1 when none).
std::string encode_writer_state(const std::string& file_state,
                                const std::vector<RetiredFile>& retired = {});

/// A writer state, decoded: what restore() resumes and cuts back.
struct DecodedWriterState {
    std::optional<std::string> file;  // its own file's state (AppendOnlyFile's)
    std::vector<RetiredFile> retired;
};
/// Accepts versions 1 and 2, and a state stored before the envelope (the file's state bare).
DecodedWriterState decode_writer_state(std::string_view state);

/// The states of `parallelism` writers resuming from the states of the writers of another
/// parallelism (`states[j]` is old writer j's, empty when it stored none); nullopt: the writer
/// starts a new file. A known file no writer goes on in is cut back, and then carried, by writer
/// j % parallelism (j: the old writer whose state named it).
std::vector<std::optional<std::string>> rescale_writer_states(
    const std::string& path, const std::vector<std::string>& states, int parallelism);

}  // namespace cdcd::file
