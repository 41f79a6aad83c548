// HttpServer over cpp-httplib. Connections are GuardedServer's (one request
// each, under a deadline and a byte budget). Every request is answered by the
// pre-routing handler, before httplib would read a body or match its own
// (std::regex) routes: so no body is ever read, and the 404 and 405 are ours.
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "allot/http_server.h"
#include "guarded_server.h"
#include "listen_address.h"

namespace allot::http {
namespace {

// A few threads: a scrape and a probe or two at once, on a small machine.
constexpr std::size_t kWorkerThreads = 3;
// Each connection: one request, read and answered within a few seconds, of
// at most 32 KiB before its body (httplib's build limits a line to 8 KiB).
constexpr ConnectionLimits kConnectionLimits{std::chrono::seconds(5), 32 * 1024};
// No route takes a body, and none is read; httplib is told so too.
constexpr std::size_t kMaxPayloadBytes = 4096;
constexpr std::string_view kPlainText = "text/plain; charset=utf-8";

void answer(httplib::Response& res, int status, std::string_view body) {
  res.status = status;
  res.set_content(std::string(body), std::string(kPlainText));
}

// The route's answer, or 500 when it throws: a failing route never reaches httplib's
// own handler (which would copy the exception's text into a header) or the owner.
Response call_route(const Handler& handler, const Request& request) {
  try {
    return handler(request);
  } catch (...) {
    return Response{500, std::string(kPlainText), "internal error\n"};
  }
}

Request request_of(const httplib::Request& req) {
  Request request{req.method, req.path, {}};
  for (const auto& [key, value] : req.params) request.query.emplace(key, value);
  return request;
}

// SO_REUSEADDR alone: a restart may bind while old connections linger, but a
// port another listener holds is refused. (httplib's default sets SO_REUSEPORT,
// which would let a second process share the port and silently split the
// connections between them.)
void reuse_address(int socket) {
  int yes = 1;
  setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

}  // namespace

struct HttpServer::Impl {
  std::map<std::string, Handler> routes;
  std::unique_ptr<GuardedServer> server;
  std::thread listener;
  std::atomic<bool> listener_done{false};
  int port = 0;

  httplib::Server::HandlerResponse route(const httplib::Request& req, httplib::Response& res) const {
    const auto found = routes.find(req.path);
    if (found == routes.end()) {
      answer(res, 404, "not found\n");
    } else if (req.method != "GET" && req.method != "HEAD") {
      answer(res, 405, "method not allowed\n");
      res.set_header("Allow", "GET, HEAD");
    } else {
      const Response response = call_route(found->second, request_of(req));
      res.status = response.status;
      res.set_content(response.body, response.content_type);
    }
    return httplib::Server::HandlerResponse::Handled;
  }

  std::unique_ptr<GuardedServer> make_server() const {
    auto made = std::make_unique<GuardedServer>(kConnectionLimits);
    made->new_task_queue = [] { return new httplib::ThreadPool(kWorkerThreads); };
    made->set_socket_options(reuse_address);
    made->set_payload_max_length(kMaxPayloadBytes);
    // A client that would send its body only after "100 Continue" is told not to.
    made->set_expect_100_continue_handler([](const httplib::Request&, httplib::Response&) { return 417; });
    made->set_pre_routing_handler(
        [this](const httplib::Request& req, httplib::Response& res) { return route(req, res); });
    made->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
      answer(res, 500, "internal error\n");
    });
    return made;
  }

  // Binds, or says why not (errno of the failed bind, when it has one).
  std::optional<std::string> bind(const ListenAddress& address) {
    errno = 0;
    port = address.port == 0 ? server->bind_to_any_port(address.host)
                             : (server->bind_to_port(address.host, address.port) ? address.port : -1);
    if (port > 0) return std::nullopt;
    const int error = errno;
    port = 0;
    return fmt::format("cannot listen on {}: {}", address.display(),
                       error != 0 ? std::generic_category().message(error) : "the address cannot be bound");
  }

  // httplib's stop() does nothing until its loop runs, so start() waits for it.
  void wait_until_listening() const {
    while (!server->is_running() && !listener_done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
};

HttpServer::HttpServer() : impl_(std::make_unique<Impl>()) {}

HttpServer::~HttpServer() { stop(); }

void HttpServer::get(const std::string& path, Handler handler) { impl_->routes[path] = std::move(handler); }

std::optional<std::string> HttpServer::start(const std::string& address) {
  if (impl_->server) return fmt::format("cannot listen on `{}`: already listening", address);
  Expected<ListenAddress, std::string> parsed = parse_listen_address(address);
  if (!parsed) return parsed.error();
  impl_->server = impl_->make_server();
  if (std::optional<std::string> error = impl_->bind(*parsed)) {
    impl_->server.reset();
    return error;
  }
  impl_->listener_done = false;
  impl_->listener = std::thread([impl = impl_.get()] {
    impl->server->listen_after_bind();
    impl->listener_done = true;
  });
  impl_->wait_until_listening();
  return std::nullopt;
}

int HttpServer::bound_port() const { return impl_->port; }

void HttpServer::stop() {
  if (!impl_->server) return;
  impl_->server->close_connections();
  impl_->server->stop();
  if (impl_->listener.joinable()) impl_->listener.join();
  impl_->server.reset();
  impl_->port = 0;
}

}  // namespace allot::http
