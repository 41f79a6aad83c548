// The HTTP listener (http/include/allot/http_server.h) on 127.0.0.1, port 0,
// driven by httplib's client and by raw sockets for what a client library
// would not send.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <httplib.h>

#include "allot/http_server.h"
#include "allot/metrics.h"

using allot::http::Handler;
using allot::http::Health;
using allot::http::HttpServer;
using allot::http::Request;
using allot::http::Response;
using allot::http::ServerOptions;
using namespace std::chrono_literals;

namespace {

// A clock the test moves by hand (read on the server's threads).
struct ManualClock {
  std::atomic<Health::Clock::rep> ticks{0};
  Health::Clock::time_point now() const { return Health::Clock::time_point(Health::Clock::duration(ticks.load())); }
  void advance(Health::Clock::duration by) { ticks += by.count(); }
};

// A running server with the built-in routes, its registry and health.
struct Service {
  ManualClock clock;
  allot::metrics::Registry registry;
  Health health{10s, [this] { return clock.now(); }};
  HttpServer server;

  Service() {
    registry.counter_family("allot_test_requests_total", "Requests.", {"kind"}).with({"a\"b"}).inc(2);
    registry.histogram("allot_test_seconds", "Durations.", {1}).observe(0.5);
    allot::http::serve_metrics_and_health(server, registry, health);
    server.get("/throws", [](const allot::http::Request&) -> Response { throw std::runtime_error("secret detail"); });
    REQUIRE_FALSE(server.start("127.0.0.1:0"));
    REQUIRE(server.bound_port() > 0);
  }
  httplib::Client client() const {
    httplib::Client made("127.0.0.1", server.bound_port());
    made.set_read_timeout(10, 0);
    return made;
  }
};

// A raw TCP connection to the loopback port (or -1).
int connect_to(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Sends `request` on a new connection and returns all it reads back until the server closes.
std::string send_raw(int port, const std::string& request) {
  const int fd = connect_to(port);
  REQUIRE(fd >= 0);
  send(fd, request.data(), request.size(), MSG_NOSIGNAL);  // may stop short: the server can close first
  std::string reply;
  char buffer[4096];
  for (ssize_t n; (n = recv(fd, buffer, sizeof(buffer), 0)) > 0;) reply.append(buffer, static_cast<std::size_t>(n));
  close(fd);
  return reply;
}

// GETs `path` and checks the answer's status and body.
void check_get(httplib::Client& client, const std::string& path, int status, const std::string& body) {
  INFO(path);
  auto reply = client.Get(path);
  REQUIRE(reply);
  CHECK(reply->status == status);
  CHECK(reply->body == body);
}

}  // namespace

TEST_CASE("GET /metrics serves the registry's exposition as text format 0.0.4", "[http]") {
  Service service;
  auto reply = service.client().Get("/metrics");
  REQUIRE(reply);
  CHECK(reply->status == 200);
  CHECK(reply->get_header_value("Content-Type") == "text/plain; version=0.0.4; charset=utf-8");
  CHECK(reply->body == service.registry.exposition());
  CHECK_THAT(reply->body, Catch::Contains("allot_test_requests_total{kind=\"a\\\"b\"} 2\n"));

  auto head = service.client().Head("/metrics");
  REQUIRE(head);
  CHECK(head->status == 200);
  CHECK(head->body.empty());
}

TEST_CASE("/healthz is 200 while heartbeats are fresh and 503 once the last is stale", "[http]") {
  Service service;
  auto client = service.client();
  check_get(client, "/healthz", 200, "ok\n");
  service.clock.advance(11s);
  check_get(client, "/healthz", 503, "stale: the last heartbeat is 11.0 s old (at most 10.0 s)\n");
  service.health.heartbeat();
  check_get(client, "/healthz", 200, "ok\n");
}

TEST_CASE("/readyz is 503 until the owner is ready, and says why when it no longer is", "[http]") {
  Service service;
  auto client = service.client();
  check_get(client, "/readyz", 503, "not ready: starting\n");
  service.health.mark_ready();
  check_get(client, "/readyz", 200, "ready\n");
  service.health.mark_not_ready("the last pass failed: slurmctld did not answer");
  check_get(client, "/readyz", 503, "not ready: the last pass failed: slurmctld did not answer\n");
}

TEST_CASE("unknown paths are 404, other methods on a route 405, a throwing route 500", "[http]") {
  Service service;
  auto client = service.client();
  auto missing = client.Get("/metrics/");
  REQUIRE(missing);
  CHECK(missing->status == 404);

  auto post = client.Post("/metrics", "x", "text/plain");
  REQUIRE(post);
  CHECK(post->status == 405);
  CHECK(post->get_header_value("Allow") == "GET, HEAD");
  auto del = client.Delete("/healthz");
  REQUIRE(del);
  CHECK(del->status == 405);
  const int port = service.server.bound_port();
  CHECK(send_raw(port, "TRACE /readyz HTTP/1.1\r\nHost: x\r\n\r\n").starts_with("HTTP/1.1 405"));
  CHECK(send_raw(port, "BREW /readyz HTTP/1.1\r\nHost: x\r\n\r\n").starts_with("HTTP/1.1 400"));  // httplib's

  auto thrown = client.Get("/throws");
  REQUIRE(thrown);
  CHECK(thrown->status == 500);
  CHECK(thrown->body == "internal error\n");
  CHECK_FALSE(thrown->has_header("EXCEPTION_WHAT"));  // the exception's text stays inside
  auto after = client.Get("/healthz");
  REQUIRE(after);
  CHECK(after->status == 200);
}

TEST_CASE("oversized requests are refused and the server keeps serving", "[http]") {
  Service service;
  const int port = service.server.bound_port();
  auto client = service.client();

  auto long_uri = client.Get("/" + std::string(20000, 'a'));
  REQUIRE(long_uri);
  CHECK(long_uri->status == 414);

  const std::string big_header = "GET /metrics HTTP/1.1\r\nX-Big: " + std::string(100000, 'a') + "\r\n\r\n";
  CHECK(send_raw(port, big_header).starts_with("HTTP/1.1 400"));

  std::string many_headers = "GET /metrics HTTP/1.1\r\n";
  for (int i = 0; i < 20000; ++i) many_headers += "X-" + std::to_string(i) + ": y\r\n";
  const std::string reply = send_raw(port, many_headers + "\r\n");
  CHECK((reply.empty() || reply.starts_with("HTTP/1.1 ")));  // answered or dropped, never crashed

  // A large body is never read: refused whether the reply or the close comes first.
  auto body = client.Post("/metrics", std::string(1 << 20, 'b'), "text/plain");
  if (body) CHECK(body->status == 405);

  auto alive = client.Get("/healthz");
  REQUIRE(alive);
  CHECK(alive->status == 200);
}

TEST_CASE("start refuses a port in use and bad addresses, naming the address", "[http]") {
  HttpServer first;
  REQUIRE_FALSE(first.start(":0"));  // :PORT is loopback
  const std::string taken = "127.0.0.1:" + std::to_string(first.bound_port());

  HttpServer second;
  const auto in_use = second.start(taken);
  REQUIRE(in_use);
  CHECK(*in_use == "cannot listen on " + taken + ": Address already in use");
  CHECK(second.bound_port() == 0);

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"nonsense", "bad listen address `nonsense`: expected HOST:PORT, [IPv6]:PORT or :PORT"},
      {"1.2.3.4:99999", "bad listen address `1.2.3.4:99999`: port `99999` is not a number from 0 to 65535"},
      {"127.0.0.1:", "bad listen address `127.0.0.1:`: port `` is not a number from 0 to 65535"},
      {":-1", "bad listen address `:-1`: port `-1` is not a number from 0 to 65535"},
      {":80x", "bad listen address `:80x`: port `80x` is not a number from 0 to 65535"},
      {"example.org:80",
       "bad listen address `example.org:80`: `example.org` is not an IPv4 address, [IPv6] or localhost"},
      {"::1:80", "bad listen address `::1:80`: `::1` is not an IPv4 address, [IPv6] or localhost"},
      {"[::1]", "bad listen address `[::1]`: expected HOST:PORT, [IPv6]:PORT or :PORT"},
      {"[1.2.3.4]:80", "bad listen address `[1.2.3.4]:80`: `[1.2.3.4]` is not an IPv6 address in brackets"},
  };
  for (const auto& [address, message] : cases) {
    HttpServer server;
    const auto error = server.start(address);
    REQUIRE(error);
    CHECK(*error == message);
  }
}

TEST_CASE("an IPv6 loopback address listens, where the machine has IPv6", "[http]") {
  HttpServer server;
  server.get("/x", [](const allot::http::Request&) { return Response{200, "text/plain", "six\n", {}}; });
  const auto error = server.start("[::1]:0");
  if (error) {
    CHECK_THAT(*error, Catch::StartsWith("cannot listen on [::1]:0: "));
    WARN("no IPv6 loopback here: " << *error);
    return;
  }
  httplib::Client client("::1", server.bound_port());
  auto reply = client.Get("/x");
  REQUIRE(reply);
  CHECK(reply->body == "six\n");
}

TEST_CASE("stop returns at once while clients hold connections open, and the server can start again", "[http]") {
  Service service;
  const int port = service.server.bound_port();
  const int idle = connect_to(port);  // connected, sends nothing
  REQUIRE(idle >= 0);
  const int partial = connect_to(port);  // half a request
  REQUIRE(partial >= 0);
  send(partial, "GET /metr", 9, MSG_NOSIGNAL);
  // Answered on a later connection: the listener accepts in order, so both
  // held connections are on workers by now, waiting for their request.
  auto answered = service.client().Get("/healthz");
  REQUIRE(answered);

  service.server.stop();  // would wait out the 5 s deadline if it did not close them
  CHECK(service.server.bound_port() == 0);
  CHECK(connect_to(port) == -1);
  service.server.stop();  // twice is harmless
  close(idle);
  close(partial);

  REQUIRE_FALSE(service.server.start("127.0.0.1:0"));
  CHECK(service.server.start("127.0.0.1:0") == "cannot listen on `127.0.0.1:0`: already listening");
  auto reply = service.client().Get("/healthz");
  REQUIRE(reply);
  CHECK(reply->status == 200);
}

// ---- The JSON API: methods, bodies, pattern routes, headers, keep-alive ----

namespace {

// A server with `options`, routes added by the test, then started on loopback.
struct Api {
  HttpServer server;
  std::atomic<int> calls{0};  // how often a counting route (counted()) ran

  explicit Api(ServerOptions options = {}) : server(options) {}
  int start() {
    REQUIRE_FALSE(server.start("127.0.0.1:0"));
    return server.bound_port();
  }
  httplib::Client client() const {
    httplib::Client made("127.0.0.1", server.bound_port());
    made.set_read_timeout(10, 0);
    return made;
  }
  // A route answering `text` after counting its call.
  Handler counted(std::string text) {
    return [this, text](const Request&) {
      ++calls;
      return Response{200, "text/plain", text, {}};
    };
  }
};

ServerOptions with_body_limit(std::size_t bytes) {
  ServerOptions options;
  options.max_body_bytes = bytes;
  return options;
}

// Answers with the request's method, body and params as JSON-ish text (the
// tests' strings need no escaping).
Response describe(const Request& request) {
  std::string params;
  for (const std::string& param : request.params) params += (params.empty() ? "\"" : ",\"") + param + "\"";
  return Response{200,
                  "application/json",
                  "{\"method\":\"" + request.method + "\",\"body\":" + (request.body.empty() ? "null" : request.body) +
                      ",\"params\":[" + params + "]}",
                  {}};
}

// How many answers (status lines) `reply` holds.
int answers_in(const std::string& reply) {
  int count = 0;
  for (std::size_t at = 0; (at = reply.find("HTTP/1.1 ", at)) != std::string::npos; at += 9) ++count;
  return count;
}

}  // namespace

TEST_CASE("a POST, PUT or DELETE route gets the request's body, and answers with its content type", "[http]") {
  Api api(with_body_limit(1024));
  for (const char* method : {"POST", "PUT", "DELETE"}) api.server.route(method, "/jobs", describe);
  api.start();
  auto client = api.client();

  const std::string json = R"({"name":"train","gpus":4})";
  auto post = client.Post("/jobs", json, "application/json");
  REQUIRE(post);
  CHECK(post->status == 200);
  CHECK(post->get_header_value("Content-Type") == "application/json");
  CHECK(post->body == R"({"method":"POST","body":)" + json + R"(,"params":[]})");

  auto put = client.Put("/jobs", R"([1,2])", "application/json");
  REQUIRE(put);
  CHECK(put->body == R"({"method":"PUT","body":[1,2],"params":[]})");

  auto del = client.Delete("/jobs");  // no body at all
  REQUIRE(del);
  CHECK(del->status == 200);
  CHECK(del->body == R"({"method":"DELETE","body":null,"params":[]})");

  auto del_with_body = client.Delete("/jobs", R"({"why":"x"})", "application/json");
  REQUIRE(del_with_body);
  CHECK(del_with_body->body == R"({"method":"DELETE","body":{"why":"x"},"params":[]})");

  auto empty_post = client.Post("/jobs", "", "application/json");
  REQUIRE(empty_post);
  CHECK(empty_post->body == R"({"method":"POST","body":null,"params":[]})");
}

TEST_CASE("a body over max_body_bytes is refused unread with 413, a chunked one with 411", "[http]") {
  Api api(with_body_limit(64));
  api.server.route("POST", "/jobs", api.counted("created\n"));
  const int port = api.start();
  auto client = api.client();

  auto at_limit = client.Post("/jobs", std::string(64, 'x'), "text/plain");
  REQUIRE(at_limit);
  CHECK(at_limit->status == 200);
  CHECK(api.calls == 1);

  // Sent whole by the client; answered before it is read, so the client may
  // see the connection reset instead of the answer.
  auto over = client.Post("/jobs", std::string(65, 'x'), "text/plain");
  if (over) {
    CHECK(over->status == 413);
    CHECK(over->body == "the request body is over 64 bytes\n");
  }

  // Announced only: the answer comes without a byte of the body sent.
  const std::string huge = send_raw(port, "POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n");
  CHECK(huge.starts_with("HTTP/1.1 413 "));
  CHECK_THAT(huge, Catch::Contains("Connection: close"));
  const std::string enormous =
      send_raw(port, "POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n");
  CHECK(enormous.starts_with("HTTP/1.1 413 "));

  const std::string chunked =
      send_raw(port, "POST /jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
  CHECK(chunked.starts_with("HTTP/1.1 411 "));

  for (const char* bad :
       {"Content-Length: 1x\r\n", "Content-Length: 3\r\nContent-Length: 4\r\n", "Content-Length: -1\r\n"}) {
    INFO(bad);
    CHECK(send_raw(port, std::string("POST /jobs HTTP/1.1\r\nHost: x\r\n") + bad + "\r\nabcd")
              .starts_with("HTTP/1.1 400 "));
  }
  CHECK(api.calls == 1);  // none of the refused reached the route

  auto alive = client.Post("/jobs", "ok", "text/plain");
  REQUIRE(alive);
  CHECK(alive->status == 200);
  CHECK(api.calls == 2);
}

TEST_CASE("with max_body_bytes 0 no body is read: a route taking one answers 413 unless none is sent", "[http]") {
  Api api;
  api.server.route("POST", "/jobs", describe);
  api.server.get("/probe", describe);
  const int port = api.start();
  auto client = api.client();

  auto none = client.Post("/jobs", "", "application/json");
  REQUIRE(none);
  CHECK(none->status == 200);
  CHECK(none->body == R"({"method":"POST","body":null,"params":[]})");

  CHECK(send_raw(port, "POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n").starts_with("HTTP/1.1 413 "));

  // A GET route ignores a body: it is neither read nor seen.
  const std::string get = send_raw(port, "GET /probe HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
  CHECK(get.starts_with("HTTP/1.1 200 "));
  CHECK_THAT(get, Catch::EndsWith(R"({"method":"GET","body":null,"params":[]})"));
}

TEST_CASE("a body that does not arrive within the exchange deadline is answered 400", "[http]") {
  ServerOptions options = with_body_limit(1024);
  options.exchange = 300ms;
  Api api(options);
  api.server.route("POST", "/jobs", api.counted("created\n"));
  const int port = api.start();

  const auto begun = std::chrono::steady_clock::now();
  const std::string reply = send_raw(port, "POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhalf");
  CHECK(std::chrono::steady_clock::now() - begun < 5s);
  // The deadline also bounds writing the answer: it may not get out.
  if (!reply.empty()) CHECK(reply.starts_with("HTTP/1.1 400 "));
  CHECK(api.calls == 0);
}

TEST_CASE("a 100-continue client is told to send its body when its route takes it, else answered at once", "[http]") {
  Api api(with_body_limit(16));
  api.server.route("POST", "/jobs", describe);
  const int port = api.start();

  const int fd = connect_to(port);
  REQUIRE(fd >= 0);
  const std::string head = "POST /jobs HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n";
  send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  char buffer[4096];
  const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
  REQUIRE(n > 0);
  CHECK(std::string(buffer, static_cast<std::size_t>(n)) == "HTTP/1.1 100 Continue\r\n\r\n");
  send(fd, "[]", 2, MSG_NOSIGNAL);
  std::string reply;
  for (ssize_t got; (got = recv(fd, buffer, sizeof(buffer), 0)) > 0;)
    reply.append(buffer, static_cast<std::size_t>(got));
  close(fd);
  CHECK(reply.starts_with("HTTP/1.1 200 "));
  CHECK_THAT(reply, Catch::EndsWith(R"({"method":"POST","body":[],"params":[]})"));

  const std::vector<std::pair<std::string, std::string>> refusals = {
      {"POST /jobs HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 17\r\n\r\n", "HTTP/1.1 413 "},
      {"POST /nowhere HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", "HTTP/1.1 404 "},
      {"PUT /jobs HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", "HTTP/1.1 405 "},
  };
  for (const auto& [request, status_line] : refusals) {
    INFO(request);
    CHECK(send_raw(port, request).starts_with(status_line));
  }
}

TEST_CASE("pattern routes capture their {} segments, decoded; exact routes win over them", "[http]") {
  Api api;
  api.server.route("GET", "/jobs/{}", describe);
  api.server.route("GET", "/jobs/{id}/log/{line}", describe);
  api.server.route("GET", "/users/{}/jobs/{}", describe);
  api.server.route("GET", "/users/alice/jobs/{}", describe);  // more specific than the one above
  api.server.get("/jobs/stats", [](const Request&) { return Response{200, "text/plain", "stats\n", {}}; });
  api.server.get("/jobs", [](const Request&) { return Response{200, "text/plain", "all\n", {}}; });
  api.start();
  auto client = api.client();

  struct Case {
    std::string path;
    int status;
    std::string body;
  };
  const auto params = [](const std::string& list) { return R"({"method":"GET","body":null,"params":[)" + list + "]}"; };
  const std::vector<Case> cases = {
      {"/jobs/abc", 200, params(R"("abc")")},
      {"/jobs/abc?x=1", 200, params(R"("abc")")},
      {"/jobs/a%20b", 200, params(R"("a b")")},
      {"/jobs/a+b", 200, params(R"("a+b")")},  // '+' is a plus in a path
      // httplib decodes the whole path (Request::path is "/jobs/a/b") before
      // our router sees it; the router matches the path as sent, segment by
      // segment, so an encoded '/' stays inside its segment.
      {"/jobs/a%2Fb", 200, params(R"("a/b")")},
      {"/jobs/a%2fb/log/7", 200, params(R"("a/b","7")")},
      {"/jobs/stats", 200, "stats\n"},       // exact beats /jobs/{}
      {"/jobs/%73tats", 200, "stats\n"},     // decoded, it is the exact path
      {"/jobs", 200, "all\n"},               // exact; /jobs/{} needs a segment
      {"/jobs/", 404, "not found\n"},        // an empty segment matches no {}
      {"/jobs/a/b", 404, "not found\n"},     // {} matches one segment
      {"/jobs//log/7", 404, "not found\n"},  // nor an empty one in the middle
      {"/jobs/a/log", 404, "not found\n"},
      {"/users/bob/jobs/7", 200, params(R"("bob","7")")},
      {"/users/alice/jobs/7", 200, params(R"("7")")},
      {"/users/alice/jobs/", 404, "not found\n"},
  };
  for (const Case& c : cases) check_get(client, c.path, c.status, c.body);

  // Request::path is httplib's decoding of the whole path.
  HttpServer paths;
  paths.get("/p/{}", [](const Request& request) { return Response{200, "text/plain", request.path, {}}; });
  REQUIRE_FALSE(paths.start("127.0.0.1:0"));
  httplib::Client path_client("127.0.0.1", paths.bound_port());
  check_get(path_client, "/p/a%2Fb", 200, "/p/a/b");
}

TEST_CASE("a path routed under other methods answers 405 naming them in Allow; HEAD follows GET", "[http]") {
  Api api(with_body_limit(64));
  api.server.route("GET", "/jobs/{}", describe);
  api.server.route("DELETE", "/jobs/{}", describe);
  api.server.route("POST", "/jobs", describe);
  api.server.route("PUT", "/config", describe);
  api.server.route("DELETE", "/jobs/stats", describe);  // exact, for DELETE only
  const int port = api.start();
  auto client = api.client();

  struct Case {
    std::string method;
    std::string path;
    int status;
    std::string allow;
  };
  const std::vector<Case> cases = {
      {"POST", "/jobs/7", 405, "GET, HEAD, DELETE"},
      {"PUT", "/jobs/7", 405, "GET, HEAD, DELETE"},
      {"GET", "/jobs", 405, "POST"},
      {"DELETE", "/jobs", 405, "POST"},
      {"HEAD", "/jobs", 405, "POST"},
      {"GET", "/config", 405, "PUT"},
      {"OPTIONS", "/jobs/7", 405, "GET, HEAD, DELETE"},
      {"GET", "/jobs/stats", 200, ""},  // the pattern's GET: the exact route has no GET
      {"DELETE", "/jobs/stats", 200, ""},
      {"DELETE", "/jobs/7", 200, ""},
      {"HEAD", "/jobs/7", 200, ""},
      {"POST", "/nowhere", 404, ""},
  };
  for (const Case& c : cases) {
    INFO(c.method << " " << c.path);
    const std::string reply =
        send_raw(port, c.method + " " + c.path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    CHECK(reply.starts_with("HTTP/1.1 " + std::to_string(c.status) + " "));
    if (!c.allow.empty()) CHECK_THAT(reply, Catch::Contains("\r\nAllow: " + c.allow + "\r\n"));
    if (c.method == "HEAD") CHECK(reply.ends_with("\r\n\r\n"));  // no body
  }

  auto post = client.Post("/jobs/7", "{}", "application/json");
  REQUIRE(post);
  CHECK(post->status == 405);
  CHECK(post->get_header_value("Allow") == "GET, HEAD, DELETE");
}

TEST_CASE("a route sees the headers with lower-cased names and the client's address", "[http]") {
  Api api;
  api.server.get("/whoami", [](const Request& request) {
    std::string text = request.header("Authorization") + "|" + request.header("x-REQUEST-id") + "|" +
                       request.header("X-Missing") + "|" + request.remote_addr + "|";
    for (const auto& [name, value] : request.headers) {
      if (name.starts_with("x-") || name == "authorization") text += name + "=" + value + ";";
    }
    text += request.headers.contains("remote_addr") ? "pseudo" : "";
    return Response{200, "text/plain", text, {}};
  });
  api.start();
  auto client = api.client();

  auto reply = client.Get(
      "/whoami",
      httplib::Headers{{"Authorization", "Bearer t0k3n"}, {"X-Request-ID", "42"}, {"X-Twice", "a"}, {"x-twice", "b"}});
  REQUIRE(reply);
  CHECK(reply->body == "Bearer t0k3n|42||127.0.0.1|authorization=Bearer t0k3n;x-request-id=42;x-twice=a;x-twice=b;");

  // httplib percent-decodes header values as it parses them, and drops a
  // header with an empty value: a route sees what httplib made of them.
  const std::string raw = send_raw(api.server.bound_port(),
                                   "GET /whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Basic a%3Db\r\n"
                                   "X-Empty:\r\nX-Percent: 100%\r\n\r\n");
  CHECK_THAT(raw, Catch::EndsWith("Basic a=b|||127.0.0.1|authorization=Basic a=b;x-percent=100%;"));
}

TEST_CASE("a route's extra response headers are sent; the server's own are kept", "[http]") {
  Api api(with_body_limit(64));
  api.server.route("POST", "/jobs", [](const Request&) {
    return Response{201,
                    "application/json",
                    R"({"id":"7"})",
                    {{"Location", "/jobs/7"},
                     {"Retry-After", "5"},
                     {"Cache-Control", "no-store"},
                     {"Content-Type", "text/html"},  // content_type says it
                     {"Content-Length", "1"},
                     {"X-Split", "a\r\nX-Injected: 1"}}};
  });
  api.start();
  auto client = api.client();

  auto reply = client.Post("/jobs", "{}", "application/json");
  REQUIRE(reply);
  CHECK(reply->status == 201);
  CHECK(reply->body == R"({"id":"7"})");
  CHECK(reply->get_header_value("Location") == "/jobs/7");
  CHECK(reply->get_header_value("Retry-After") == "5");
  CHECK(reply->get_header_value("Cache-Control") == "no-store");
  CHECK(reply->get_header_value_count("Content-Type") == 1);
  CHECK(reply->get_header_value("Content-Type") == "application/json");
  CHECK(reply->get_header_value("Content-Length") == "10");
  CHECK_FALSE(reply->has_header("X-Split"));
  CHECK_FALSE(reply->has_header("X-Injected"));
}

TEST_CASE("route() refuses other methods and malformed patterns", "[http]") {
  HttpServer server;
  CHECK_THROWS_AS(server.route("PATCH", "/x", describe), std::invalid_argument);
  CHECK_THROWS_AS(server.route("HEAD", "/x", describe), std::invalid_argument);
  CHECK_THROWS_AS(server.route("get", "/x", describe), std::invalid_argument);
  for (const char* pattern : {"x", "", "/a{b}", "/{a/b}", "/{{}}", "/a}", "/{"}) {
    INFO(pattern);
    CHECK_THROWS_AS(server.route("GET", pattern, describe), std::invalid_argument);
  }
  CHECK_NOTHROW(server.route("GET", "/", describe));
  CHECK_NOTHROW(server.route("PUT", "/{}/{x}", describe));

  ServerOptions none;
  none.worker_threads = 0;
  CHECK_THROWS_AS(HttpServer(none), std::invalid_argument);
}

TEST_CASE("with keep_alive a connection carries several requests, pipelined or not; without, one", "[http]") {
  const std::string two = "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

  SECTION("keep_alive on") {
    ServerOptions options = with_body_limit(64);
    options.keep_alive = true;
    Api api(options);
    api.server.get("/a", api.counted("a\n"));
    api.server.get("/b", api.counted("b\n"));
    api.server.route("POST", "/echo", describe);
    const int port = api.start();

    const std::string one_a = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
    const std::string reply = send_raw(port, two);
    CHECK(answers_in(reply) == 2);
    CHECK_THAT(reply, Catch::Contains("Keep-Alive: timeout=5, max=100"));
    CHECK_THAT(reply, Catch::EndsWith("\r\nb\n"));
    CHECK(api.calls == 2);

    // A body ends where its Content-Length says: the next request follows it.
    const std::string with_body = send_raw(port,
                                           "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n[42]"
                                           "GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    CHECK(answers_in(with_body) == 2);
    CHECK_THAT(with_body, Catch::Contains(R"({"method":"POST","body":[42],"params":[]})"));

    // A body left unread (on a GET route, or refused) ends the connection after its answer.
    const std::string unread =
        send_raw(port, "GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(answers_in(unread) == 1);
    CHECK_THAT(unread, Catch::Contains("Connection: close"));
    const std::string refused = send_raw(
        port, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 65\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(answers_in(refused) == 1);
    CHECK(refused.starts_with("HTTP/1.1 413 "));

    // At most 100 requests a connection; the 100th says it is the last.
    std::string many;
    for (int i = 0; i < 101; ++i) many += "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
    const std::string hundred = send_raw(port, many);
    CHECK(answers_in(hundred) == 100);
    CHECK_THAT(hundred,
               Catch::EndsWith("Connection: close\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\na\n"));

    // Answers on a kept connection come at once: no answer waits on the
    // client's delayed ACK (Nagle's algorithm is off), which would take some
    // 40 ms each.
    const int kept = connect_to(port);
    REQUIRE(kept >= 0);
    const auto started = std::chrono::steady_clock::now();
    for (int i = 0; i < 50; ++i) {
      send(kept, one_a.data(), one_a.size(), MSG_NOSIGNAL);
      std::string reply_i;
      char chunk[4096];
      while (!reply_i.ends_with("\r\n\r\na\n")) {
        const ssize_t n = recv(kept, chunk, sizeof(chunk), 0);
        REQUIRE(n > 0);
        reply_i.append(chunk, static_cast<std::size_t>(n));
      }
    }
    CHECK(std::chrono::steady_clock::now() - started < 1500ms);
    close(kept);

    // httplib's client keeps its connection open between requests.
    auto client = api.client();
    client.set_keep_alive(true);
    for (int i = 0; i < 3; ++i) {
      auto reply_i = client.Get("/a");
      REQUIRE(reply_i);
      CHECK(reply_i->status == 200);
    }
    client.stop();

    // stop() still returns at once with a kept-alive connection idle.
    const int idle = connect_to(port);
    send(idle, one_a.data(), one_a.size(), MSG_NOSIGNAL);
    char buffer[4096];
    CHECK(recv(idle, buffer, sizeof(buffer), 0) > 0);
    const auto begun = std::chrono::steady_clock::now();
    api.server.stop();
    CHECK(std::chrono::steady_clock::now() - begun < 2s);
    close(idle);
  }

  SECTION("keep_alive off (the default)") {
    Api api;
    api.server.get("/a", api.counted("a\n"));
    api.server.get("/b", api.counted("b\n"));
    const int port = api.start();
    const std::string reply = send_raw(port, two);
    CHECK(answers_in(reply) == 1);
    CHECK_THAT(reply, Catch::Contains("Connection: close"));
    CHECK(api.calls == 1);
  }
}
