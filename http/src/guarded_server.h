// httplib's server with each connection's exchange under our bounds: one
// request per connection, read and answered within a deadline, at most so many
// bytes read; and every open connection closed at once when the server stops.
// httplib's own connection loop would wait out its timeouts (a client sending
// a byte every few seconds could hold a worker, and stop(), indefinitely).
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <set>

#include <httplib.h>

namespace allot::http {

// What one connection may take.
struct ConnectionLimits {
  std::chrono::milliseconds exchange;  // from accept to the last byte of the answer
  std::size_t max_request_bytes;       // request line and headers (a body is never read)
};

class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(ConnectionLimits limits) : limits_(limits) {}

  // Shuts every open connection down, and each accepted from now on: their
  // workers return at once (called by stop, before joining them).
  void close_connections();

 private:
  // Called by httplib's listener on a worker for each accepted socket.
  bool process_and_close_socket(socket_t sock) override;

  const ConnectionLimits limits_;
  std::mutex mutex_;
  std::set<socket_t> open_;  // Invariant: closed only after leaving this set
  bool closing_ = false;
};

}  // namespace allot::http
