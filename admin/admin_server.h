#pragma once
// The admin HTTP endpoint, served on the pipeline's event loop:
//
//   GET /metrics  Prometheus text exposition of the registry
//   GET /healthz  200 while the process runs (liveness)
//   GET /readyz   200 once state is restored and every source runs; 503 while starting and
//                 draining (readiness)
//   GET /tap?…    JSON lines of sampled events (`cdcd tap`), streamed until the client goes
//
// Beast stays inside admin_server.cpp. Requests are small and answered at once; a client that
// sends nothing for 10 s is disconnected. A tap's body is written as its lines come (no length,
// Connection: close); the loop never waits for a slow reader, the tap's bounded queue drops.
#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "admin/address.h"

namespace cdcd::admin {

/// What GET /tap streams.
struct LineStream {
    /// Appends the lines ready now to `out`; false once nothing more will come.
    std::function<bool(std::string& out)> take;
    /// Called once when the stream ends: the client went, the server stopped, or take() ended it.
    std::function<void()> close;
};

/// The answer to GET /tap: 200 and its lines, or another status with `message` as the body.
struct StreamAnswer {
    int status = 200;
    std::string message;
    LineStream lines;
};

struct Routes {
    /// Body of /metrics.
    std::function<std::string()> metrics;
    /// Whether /readyz answers 200, and a one-word state for its body ("running", "draining"...).
    std::function<bool()> ready;
    std::function<std::string()> state;
    /// GET /tap: called with the query string (after '?'); unset: /tap is not found.
    std::function<StreamAnswer(std::string_view query)> tap;
};

class AdminServer {
  public:
    /// Binds and listens at once (throws std::runtime_error naming the address on failure);
    /// requests are served while `io` runs.
    AdminServer(boost::asio::io_context& io, const Address& address, Routes routes);
    ~AdminServer();
    AdminServer(const AdminServer&) = delete;
    AdminServer& operator=(const AdminServer&) = delete;

    /// The bound port (useful with port 0).
    std::uint16_t port() const;
    /// Closes the listener and every open connection, so that the event loop can finish.
    void stop();

    struct Impl;

  private:
    std::shared_ptr<Impl> impl_;
};

}  // namespace cdcd::admin
