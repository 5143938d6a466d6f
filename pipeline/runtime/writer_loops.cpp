#include "pipeline/runtime/writer_loops.h"

namespace cdcd {

WriterLoops::WriterLoops(boost::asio::io_context& shared, std::size_t threads) : shared_(shared) {
    for (std::size_t i = 0; i < threads; ++i) loops_.push_back(std::make_unique<Loop>());
}

WriterLoops::~WriterLoops() {
    stop();
}

boost::asio::any_io_executor WriterLoops::executor(std::size_t writer) {
    if (loops_.empty()) return shared_.get_executor();
    return loops_.at(writer)->io.get_executor();
}

void WriterLoops::start() {
    for (auto& loop : loops_) loop->thread = std::thread([&io = loop->io] { io.run(); });
}

void WriterLoops::stop() {
    for (auto& loop : loops_) {
        loop->work.reset();
        loop->io.stop();
    }
    for (auto& loop : loops_)
        if (loop->thread.joinable()) loop->thread.join();
}

void WriterLoops::shutdown() {
    for (auto& loop : loops_) loop->io.shutdown();
}

}  // namespace cdcd
