// httplib's server with each connection's exchanges under our bounds: each
// request read and answered within a deadline, at most so many bytes read for
// its request line and headers and, when its route reads one, its body; one
// request per connection, or up to a count of them when keep-alive is on; and
// every open connection closed at once when the server stops. httplib's own
// connection loop would wait out its timeouts (a client sending a byte every
// few seconds could hold a worker, and stop(), indefinitely).
//
// Every request that httplib parses reaches the router (httplib's pre-routing
// handler), before httplib would read a body or match its own std::regex
// routes; the router answers it, and reads its body through the Exchange when
// it wants one. A connection closes after an answer the router did not give
// (httplib's 400, 414; a refused "Expect: 100-continue") or after which part
// of the request may be left unread (Exchange::close_after_answer).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <set>
#include <string>

#include <httplib.h>

namespace allot::http {

// What one connection may take.
struct ConnectionLimits {
  // Each request, from accept (or the end of the previous answer on the same
  // connection) to the last byte of its answer.
  std::chrono::milliseconds exchange;
  std::size_t max_head_bytes;  // each request's line and headers
  std::size_t max_body_bytes;  // each request's body, read only when its route asks (Exchange::read_body)
  std::size_t max_requests;    // on one connection: 1 without keep-alive
};

class DeadlineStream;

// The request being answered, as its router may use the connection.
class Exchange {
 public:
  Exchange(DeadlineStream& stream, std::size_t max_body_bytes) : stream_(stream), max_body_bytes_(max_body_bytes) {}

  // Reads the next `length` bytes of the request (its body) into `body`; may
  // read beyond the head's budget by `length`. False, with `body` partial,
  // when `length` is over the body limit, or the client does not send them
  // before the deadline (or goes away); the connection then closes after the
  // answer.
  bool read_body(std::size_t length, std::string& body);

  // The connection closes after this answer (part of the request is left
  // unread, or the request is refused).
  void close_after_answer() { close_ = true; }

 private:
  friend class GuardedServer;
  DeadlineStream& stream_;
  const std::size_t max_body_bytes_;
  bool routed_ = false;  // the router answered
  bool close_ = false;
};

class GuardedServer : public httplib::Server {
 public:
  // Answers every request httplib parses; its answer goes to `res`. Called
  // on a worker thread.
  using Router = std::function<void(const httplib::Request& req, httplib::Response& res, Exchange& exchange)>;

  GuardedServer(ConnectionLimits limits, Router router);

  // Shuts every open connection down, and each accepted from now on: their
  // workers return at once (called by stop, before joining them).
  void close_connections();

 private:
  // Called by httplib's listener on a worker for each accepted socket.
  bool process_and_close_socket(socket_t sock) override;

  const ConnectionLimits limits_;
  const Router router_;
  std::mutex mutex_;
  std::set<socket_t> open_;  // Invariant: closed only after leaving this set
  bool closing_ = false;
};

}  // namespace allot::http
