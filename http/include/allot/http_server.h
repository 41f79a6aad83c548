// A small HTTP listener for the long-running drivers (the Slurm adapter's
// --metrics, `allot serve`): GET routes on exact paths, served by a few worker
// threads, loopback unless told otherwise. Built on cpp-httplib, which stays
// out of this header.
//
// Hostile clients are bounded: one request per connection, read and answered
// within a few seconds; no request body is ever read; the request line and
// headers are limited (32 KiB in all, 8 KiB a line). A route that throws
// answers 500; nothing a client sends can take the owner down.
// Other methods on a route's path answer 405, unknown paths 404.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace allot::metrics {
class Registry;
}

namespace allot::http {

// One request as a route sees it.
struct Request {
  std::string method;  // GET or HEAD (HEAD answers the same, without the body)
  std::string path;    // decoded, without the query
  std::multimap<std::string, std::string> query;
};

// What a route answers.
struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

// A route: called on a worker thread, so it must be thread-safe.
using Handler = std::function<Response(const Request&)>;

// Routes first (get()), then start(); stop() or the destructor ends it.
class HttpServer {
 public:
  HttpServer();
  ~HttpServer();  // stops
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Answers GET and HEAD on exactly `path` with `handler`, replacing any
  // earlier route there. Only before start().
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
