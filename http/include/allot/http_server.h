// A small HTTP listener for the long-running drivers (the Slurm adapter's
// --metrics, `allot serve`): routes by method (GET, POST, PUT, DELETE) on
// exact paths or on patterns with `{}` segments, handlers that see the
// request's body, headers and path parameters and answer with any status,
// content type and extra headers; served by a few worker threads, loopback
// unless told otherwise. Built on cpp-httplib, which stays out of this header.
//
// Hostile clients are bounded. Each request is read and answered within a
// deadline (ServerOptions::exchange); its request line and headers are limited
// (32 KiB in all, 8 KiB a line); its body is read only for a POST, PUT or
// DELETE route, only up to ServerOptions::max_body_bytes (none by default),
// only with a Content-Length: a larger one is answered 413 and a chunked body
// (any Transfer-Encoding) 411, neither read, and a body that does not arrive
// in time 400. So a request takes at most 32 KiB + max_body_bytes from its
// client. One request per connection, or up to 100 with
// ServerOptions::keep_alive; a connection closes after any answer that leaves
// part of its request unread (a refused body, a body sent to a GET route). A
// client sending "Expect: 100-continue" is told to continue only when its
// route will read the body, else answered at once. A route that throws
// answers 500; nothing a client sends can take the owner down.
// A path no route matches answers 404; one that routes match only under other
// methods answers 405 with an Allow header naming theirs.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace allot::metrics {
class Registry;
}

namespace allot::http {

// One request as a route sees it.
struct Request {
  std::string method;  // GET, HEAD (on a GET route: answered the same, without the body), POST, PUT or DELETE
  std::string path;    // without the query, percent-decoded as a whole (httplib's: "%2F" is '/')
  std::multimap<std::string, std::string> query;
  // The body, read whole before the route is called: only on a POST, PUT or
  // DELETE route with ServerOptions::max_body_bytes > 0; empty otherwise.
  std::string body;
  // What each `{}` segment of the route's pattern matched, in order, each
  // percent-decoded on its own (so `/jobs/a%2Fb` gives "a/b" to `/jobs/{}`).
  std::vector<std::string> params;
  // Every header, names lower-cased (a name sent twice: both), values as
  // httplib parses them: percent-decoded ("a%3Db" gives "a=b"), and a header
  // with an empty value dropped.
  std::multimap<std::string, std::string> headers;
  std::string remote_addr;  // the client's IP address

  // The first value of header `name` (any case); "" when absent.
  std::string header(std::string_view name) const;
};

// What a route answers. (An aggregate: GCC's -Wmissing-field-initializers
// wants all four fields named, e.g. Response{200, "application/json", body, {}}.)
struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";  // sent as is
  std::string body;
  // Extra headers (Location, Retry-After, Cache-Control, ...), sent as given.
  // Content-Type, Content-Length, Connection and Transfer-Encoding are the
  // server's, and ignored here; so is a header holding a CR or LF.
  std::vector<std::pair<std::string, std::string>> headers;
};

// A route: called on a worker thread, so it must be thread-safe.
using Handler = std::function<Response(const Request&)>;

// How a server serves. (Set fields by name on a default-constructed one:
// aggregate initialisation must name all four.)
struct ServerOptions {
  // Connections served at once; more wait their turn.
  std::size_t worker_threads = 3;
  // The largest body read, for POST, PUT and DELETE routes; 0: none is read,
  // and such a route is called with an empty body only when the request
  // announces none (else 413).
  std::size_t max_body_bytes = 0;
  // Each request, from the connection's accept (or the end of the previous
  // answer on it) to the last byte of its answer.
  std::chrono::milliseconds exchange{5000};
  // Whether a connection may carry up to 100 requests (HTTP/1.1 keep-alive,
  // pipelining included), each within `exchange`, instead of one. An idle
  // connection then holds a worker until `exchange` runs out.
  bool keep_alive = false;
};

// Routes first (route(), get()), then start(); stop() or the destructor ends it.
class HttpServer {
 public:
  // Throws std::invalid_argument when `options` has no worker thread or no time.
  explicit HttpServer(ServerOptions options = {});
  ~HttpServer();  // stops
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Answers `method` (GET, which also answers HEAD; POST; PUT; DELETE) on
  // `pattern` with `handler`, replacing any earlier route for that method on
  // the same pattern. A pattern is a path starting with '/' whose segments
  // are literal or written `{}` (or `{name}`, the name for readers only): such
  // a segment matches exactly one non-empty segment of the request's path,
  // and what it matched goes to Request::params. `/jobs/{}` matches
  // `/jobs/abc` but not `/jobs`, `/jobs/` or `/jobs/a/b`. Segments are
  // compared percent-decoded, one by one. For a request, among the routes
  // for its method whose pattern matches its path, an exact one (no `{}`)
  // wins; else the one with a literal segment where the others have `{}`,
  // leftmost first. Only before start(). Throws std::invalid_argument on
  // another method or a malformed pattern (no leading '/', or a brace
  // anywhere but around a whole segment).
  void route(std::string method, const std::string& pattern, Handler handler);

  // route("GET", path, handler).
  void get(const std::string& path, Handler handler);

  // Listens on `address`: HOST:PORT, where HOST is an IPv4 address or
  // `localhost`; [IPv6]:PORT; or :PORT, meaning 127.0.0.1. Port 0 picks a free
  // port (bound_port()). Returns why it cannot (a bad address, a port in use;
  // the message names the address), or nothing once it listens.
  std::optional<std::string> start(const std::string& address);

  // The port it listens on; 0 when it does not.
  int bound_port() const;

  // Stops listening, closes every open connection (a request in progress is
  // cut short) and joins the worker threads: returns at once whatever clients
  // do. Does nothing when not listening.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Whether the owner's loop is alive (liveness) and whether it does its job
// (readiness), as the owner reports them; /healthz and /readyz read it.
class Health {
 public:
  using Clock = std::chrono::steady_clock;

  // Alive while the last heartbeat (or the construction, before the first)
  // is at most `staleness` old by `now` (tests pass their own clock). Not
  // ready until mark_ready().
  explicit Health(Clock::duration staleness, std::function<Clock::time_point()> now = &Clock::now);

  // The owner's loop is alive: call at least once per `staleness`.
  void heartbeat();
  // It does its job (e.g. its last pass succeeded).
  void mark_ready();
  // It does not; `reason` is a short line (the last pass failed, why).
  void mark_not_ready(std::string reason);

  // An answer for a probe: whether all is well, and one line saying so or why not.
  struct Verdict {
    bool ok = false;
    std::string text;
  };
  Verdict liveness() const;
  Verdict readiness() const;

 private:
  const Clock::duration staleness_;
  const std::function<Clock::time_point()> now_;
  mutable std::mutex mutex_;
  Clock::time_point last_heartbeat_;
  bool ready_ = false;
  std::string not_ready_reason_ = "starting";
};

// Adds GET /metrics (`registry`'s exposition, text format 0.0.4), /healthz
// (200 "ok" while `health` is alive, else 503 and why) and /readyz (200 when
// ready, else 503 and why). Both must outlive the server's listening.
void serve_metrics_and_health(HttpServer& server, const metrics::Registry& registry, const Health& health);

}  // namespace allot::http
