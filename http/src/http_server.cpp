// HttpServer over cpp-httplib. Connections are GuardedServer's (each request
// under a deadline and a byte budget; one request a connection, or a few with
// keep-alive). Every request is answered by our router, GuardedServer's
// pre-routing handler, before httplib would read a body or match its own
// (std::regex) routes: so the routes, the 404 and 405, and the reading of a
// body (only with a Content-Length, only up to the limit, only for a route
// that takes one) are ours.
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "allot/http_server.h"
#include "guarded_server.h"
#include "listen_address.h"

namespace allot::http {
namespace {

// Each request's line and headers: at most 32 KiB (httplib's build limits a
// line to 8 KiB).
constexpr std::size_t kMaxHeadBytes = 32 * 1024;
// The requests one connection may carry with keep-alive.
constexpr std::size_t kKeepAliveRequests = 100;
constexpr std::string_view kPlainText = "text/plain; charset=utf-8";

// The methods a route may take, in the order an Allow header names them.
// HEAD is answered by the GET route.
constexpr std::string_view kMethods[] = {"GET", "POST", "PUT", "DELETE"};

void answer(httplib::Response& res, int status, std::string_view body) {
  res.status = status;
  res.set_content(std::string(body), std::string(kPlainText));
}

std::string lower(std::string_view text) {
  std::string lowered(text);
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lowered;
}

bool is_method(std::string_view method) {
  return std::find(std::begin(kMethods), std::end(kMethods), method) != std::end(kMethods);
}

// The route's answer, or 500 when it throws: a failing route never reaches httplib's
// own handler (which would copy the exception's text into a header) or the owner.
Response call_route(const Handler& handler, const Request& request) {
  try {
    return handler(request);
  } catch (...) {
    return Response{500, std::string(kPlainText), "internal error\n", {}};
  }
}

// The headers httplib adds to a request itself (its peer's and its own
// address); a client's header of the same name is dropped with them.
bool is_httplib_header(std::string_view lowered) {
  return lowered == "remote_addr" || lowered == "remote_port" || lowered == "local_addr" || lowered == "local_port";
}

// The headers of an answer that are the server's to set.
bool is_server_header(std::string_view lowered) {
  return lowered == "content-type" || lowered == "content-length" || lowered == "connection" ||
         lowered == "transfer-encoding";
}

// The segments of a path after its leading '/' (`/` has one, empty; `/a/`
// has "a" and ""); nothing when it does not start with '/'.
std::optional<std::vector<std::string>> split_path(std::string_view path) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  std::vector<std::string> segments;
  std::size_t from = 1;
  for (std::size_t slash; (slash = path.find('/', from)) != std::string_view::npos; from = slash + 1) {
    segments.emplace_back(path.substr(from, slash - from));
  }
  segments.emplace_back(path.substr(from));
  return segments;
}

// A route's pattern, segment by segment: a literal, or nothing for `{}`.
using Pattern = std::vector<std::optional<std::string>>;

Pattern parse_pattern(const std::string& text) {
  std::optional<std::vector<std::string>> segments = split_path(text);
  if (!segments) throw std::invalid_argument(fmt::format("route pattern `{}` does not start with '/'", text));
  Pattern pattern;
  for (std::string& segment : *segments) {
    const bool parameter = segment.size() >= 2 && segment.front() == '{' && segment.back() == '}';
    const std::string_view inside =
        parameter ? std::string_view(segment).substr(1, segment.size() - 2) : std::string_view(segment);
    if (inside.find_first_of("{}") != std::string_view::npos) {
      throw std::invalid_argument(
          fmt::format("route pattern `{}`: a brace may only enclose a whole segment, as in /jobs/{{}}", text));
    }
    pattern.push_back(parameter ? std::nullopt : std::optional<std::string>(std::move(segment)));
  }
  return pattern;
}

// Whether `pattern` matches the request's decoded `segments`; what its `{}` matched goes to `params`.
bool matches(const Pattern& pattern, const std::vector<std::string>& segments, std::vector<std::string>& params) {
  if (pattern.size() != segments.size()) return false;
  params.clear();
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (!pattern[i]) {
      if (segments[i].empty()) return false;
      params.push_back(segments[i]);
    } else if (*pattern[i] != segments[i]) {
      return false;
    }
  }
  return true;
}

// Whether `a` is more specific than `b` (both matching one path, so of one
// length): a literal segment where `b` has `{}`, leftmost first.
bool more_specific(const Pattern& a, const Pattern& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].has_value() != b[i].has_value()) return a[i].has_value();
  }
  return false;
}

// What a request's headers say of its body: its length, whether it is
// chunked (any Transfer-Encoding), and whether its Content-Length is unusable
// (not digits, or several that differ).
struct BodyFraming {
  std::size_t length = 0;  // SIZE_MAX when too large to count
  bool chunked = false;
  bool bad_length = false;

  bool announced() const { return chunked || bad_length || length > 0; }
};

BodyFraming framing_of(const httplib::Request& req) {
  BodyFraming framing{0, req.has_header("Transfer-Encoding"), false};
  const std::size_t count = req.get_header_value_count("Content-Length");
  std::string first;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string value = req.get_header_value("Content-Length", i);
    if (i == 0) first = value;
    if (value.empty() || value != first || value.find_first_not_of("0123456789") != std::string::npos) {
      framing.bad_length = true;
      return framing;
    }
  }
  if (count == 0) return framing;
  const auto [end, error] = std::from_chars(first.data(), first.data() + first.size(), framing.length);
  if (error == std::errc::result_out_of_range) framing.length = SIZE_MAX;
  return framing;
}

}  // namespace

std::string Request::header(std::string_view name) const {
  const auto found = headers.find(lower(name));
  return found == headers.end() ? std::string() : found->second;
}

struct HttpServer::Impl {
  // The routes on one pattern, by method.
  struct PatternRoutes {
    Pattern pattern;
    std::map<std::string, Handler, std::less<>> handlers;
  };

  // What the router makes of a request before reading anything of its body:
  // a refusal (status and text), or the route to call.
  struct Decision {
    int status = 0;  // a refusal's; 0 when `handler` answers
    std::string text;
    std::string allow;   // for a 405
    bool close = false;  // the connection closes after the answer
    const Handler* handler = nullptr;
    std::vector<std::string> params;
    std::size_t body_length = 0;  // bytes to read for the route
  };

  explicit Impl(ServerOptions options) : options(options) {}

  const ServerOptions options;
  std::vector<PatternRoutes> routes;
  std::unique_ptr<GuardedServer> server;
  std::thread listener;
  std::atomic<bool> listener_done{false};
  int port = 0;

  void add(std::string method, const std::string& text, Handler handler) {
    if (!is_method(method)) {
      throw std::invalid_argument(
          fmt::format("route {} {}: the method is not one of GET, POST, PUT, DELETE", method, text));
    }
    Pattern pattern = parse_pattern(text);
    const auto same_shape = [&pattern](const PatternRoutes& routes) { return routes.pattern == pattern; };
    auto found = std::find_if(routes.begin(), routes.end(), same_shape);
    if (found == routes.end()) found = routes.insert(routes.end(), PatternRoutes{std::move(pattern), {}});
    found->handlers[std::move(method)] = std::move(handler);
  }

  // The route for the request's method and path, the 404 or the 405; then
  // what its body framing allows.
  Decision decide(const httplib::Request& req) const {
    Decision decision;
    const BodyFraming framing = framing_of(req);
    // The path as sent: each segment is decoded on its own, so an encoded '/' stays inside it.
    const std::string_view target(req.target);
    const std::optional<std::vector<std::string>> raw = split_path(target.substr(0, target.find('?')));
    std::vector<std::string> segments;
    if (raw) {
      for (const std::string& segment : *raw) segments.push_back(httplib::detail::decode_url(segment, false));
    }
    const std::string_view method = req.method == "HEAD" ? std::string_view("GET") : std::string_view(req.method);
    const PatternRoutes* best = nullptr;
    std::vector<std::string> params;
    std::vector<std::string_view> allowed;
    for (const PatternRoutes& candidate : routes) {
      if (!raw || !matches(candidate.pattern, segments, params)) continue;
      for (const auto& [name, handler] : candidate.handlers) allowed.push_back(name);
      if (!candidate.handlers.contains(method)) continue;
      if (best == nullptr || more_specific(candidate.pattern, best->pattern)) {
        best = &candidate;
        decision.params = params;
      }
    }
    decision.close = framing.announced();  // unless the body is read below
    if (best == nullptr) {
      if (allowed.empty()) {
        decision.status = 404;
        decision.text = "not found\n";
        return decision;
      }
      decision.status = 405;
      decision.text = "method not allowed\n";
      for (std::string_view name : kMethods) {
        if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) continue;
        if (!decision.allow.empty()) decision.allow += ", ";
        decision.allow += name == "GET" ? "GET, HEAD" : name;
      }
      return decision;
    }
    decision.handler = &best->handlers.find(method)->second;
    if (method == "GET") return decision;  // a body is never read for it
    if (framing.chunked) {
      decision.status = 411;
      decision.text = "a request body needs a Content-Length (chunked transfer encoding is not accepted)\n";
    } else if (framing.bad_length) {
      decision.status = 400;
      decision.text = "bad Content-Length\n";
    } else if (framing.length > options.max_body_bytes) {
      decision.status = 413;
      decision.text = options.max_body_bytes == 0
                          ? std::string("this server reads no request body\n")
                          : fmt::format("the request body is over {} bytes\n", options.max_body_bytes);
    } else {
      decision.body_length = framing.length;
      decision.close = false;
    }
    return decision;
  }

  // Answers a request: GuardedServer's router.
  void route(const httplib::Request& req, httplib::Response& res, Exchange& exchange) const {
    Decision decision = decide(req);
    if (decision.close) exchange.close_after_answer();
    if (decision.status != 0) {
      answer(res, decision.status, decision.text);
      if (!decision.allow.empty()) res.set_header("Allow", decision.allow);
      return;
    }
    Request request;
    if (decision.body_length > 0 && !exchange.read_body(decision.body_length, request.body)) {
      answer(res, 400, "the request body did not arrive in time\n");
      return;
    }
    request.method = req.method;
    request.path = req.path;
    for (const auto& [key, value] : req.params) request.query.emplace(key, value);
    request.params = std::move(decision.params);
    for (const auto& [name, value] : req.headers) {
      std::string lowered = lower(name);
      if (!is_httplib_header(lowered)) request.headers.emplace(std::move(lowered), value);
    }
    request.remote_addr = req.remote_addr;

    const Response response = call_route(*decision.handler, request);
    res.status = response.status;
    for (const auto& [name, value] : response.headers) {
      if (!is_server_header(lower(name))) res.set_header(name, value);
    }
    res.set_content(response.body, response.content_type);
  }

  // A client that would send its body only after "100 Continue": told to,
  // when its route will read it; else answered at once (404, 405, 411, 413,
  // ...), and the connection closes.
  int expect_continue(const httplib::Request& req, httplib::Response& res) const {
    const Decision decision = decide(req);
    if (decision.status == 0) return 100;
    answer(res, decision.status, decision.text);
    if (!decision.allow.empty()) res.set_header("Allow", decision.allow);
    return decision.status;
  }

  std::unique_ptr<GuardedServer> make_server() const {
    const ConnectionLimits limits{
        .exchange = options.exchange,
        .max_head_bytes = kMaxHeadBytes,
        .max_body_bytes = options.max_body_bytes,
        .max_requests = options.keep_alive ? kKeepAliveRequests : 1,
    };
    auto made = std::make_unique<GuardedServer>(limits, [this](const httplib::Request& req, httplib::Response& res,
                                                               Exchange& exchange) { route(req, res, exchange); });
    made->new_task_queue = [threads = options.worker_threads] { return new httplib::ThreadPool(threads); };
    made->set_socket_options(reuse_address);
    // httplib never reads a body itself (the router does); told the limit all the same.
    made->set_payload_max_length(options.max_body_bytes);
    // What its Keep-Alive header announces.
    made->set_keep_alive_max_count(limits.max_requests);
    made->set_keep_alive_timeout(
        std::max<time_t>(1, std::chrono::ceil<std::chrono::seconds>(options.exchange).count()));
    made->set_expect_100_continue_handler(
        [this](const httplib::Request& req, httplib::Response& res) { return expect_continue(req, res); });
    made->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
      answer(res, 500, "internal error\n");
    });
    return made;
  }

  // SO_REUSEADDR alone: a restart may bind while old connections linger, but a
  // port another listener holds is refused. (httplib's default sets SO_REUSEPORT,
  // which would let a second process share the port and silently split the
  // connections between them.)
  static void reuse_address(int socket) {
    int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
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

HttpServer::HttpServer(ServerOptions options) {
  if (options.worker_threads == 0) throw std::invalid_argument("an HTTP server needs at least one worker thread");
  if (options.exchange <= std::chrono::milliseconds::zero()) {
    throw std::invalid_argument("an HTTP server needs some time for an exchange");
  }
  impl_ = std::make_unique<Impl>(options);
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::route(std::string method, const std::string& pattern, Handler handler) {
  impl_->add(std::move(method), pattern, std::move(handler));
}

void HttpServer::get(const std::string& path, Handler handler) { route("GET", path, std::move(handler)); }

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
