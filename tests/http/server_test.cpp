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

#include <httplib.h>

#include "allot/http_server.h"
#include "allot/metrics.h"

using allot::http::Health;
using allot::http::HttpServer;
using allot::http::Response;
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
  server.get("/x", [](const allot::http::Request&) { return Response{200, "text/plain", "six\n"}; });
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
