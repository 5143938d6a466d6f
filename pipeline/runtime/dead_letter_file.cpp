#include "pipeline/runtime/dead_letter_file.h"

#include <filesystem>
#include <stdexcept>

namespace cdcd {

DeadLetterFile::DeadLetterFile(std::string path) : path_(std::move(path)) {}

void DeadLetterFile::start_fresh() {
    std::filesystem::path p(path_);
    if (p.has_parent_path()) {
        std::error_code ec;
        std::filesystem::create_directories(p.parent_path(), ec);
        if (ec)
            throw std::runtime_error("dead-letter file " + path_ +
                                     ": cannot create its directory: " + ec.message());
    }
    file_.emplace(output::AppendOnlyFile::open_fresh(path_, output::IfExists::Append,
                                                     "bad-record.dead-letter.path"));
}

void DeadLetterFile::restore(std::string_view state) {
    file_.emplace(output::AppendOnlyFile::resume(path_, state));
}

std::string DeadLetterFile::commit(std::string_view lines) {
    if (!file_) throw std::logic_error("dead-letter file " + path_ + " committed before opened");
    if (lines.empty()) return file_->state();
    file_->append(lines);
    return file_->commit();
}

}  // namespace cdcd
