#include "guarded_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <exception>

namespace allot::http {

using Clock = std::chrono::steady_clock;

// A connected socket as httplib's request parser reads and writes it: every
// wait ends at the deadline of the request being served, and reading stops
// after a byte budget (buffered, since the parser reads lines a byte at a
// time; bytes buffered beyond one request, a pipelined next one, stay for it).
class DeadlineStream : public httplib::Stream {
 public:
  explicit DeadlineStream(socket_t sock) : sock_(sock) {}

  // A new request: every wait ends at `deadline`, and at most `budget` more
  // bytes are received for it (beyond those already buffered).
  void begin(Clock::time_point deadline, std::size_t budget) {
    deadline_ = deadline;
    budget_ = budget;
  }
  // `more` bytes beyond the budget (a body).
  void allow(std::size_t more) { budget_ += more; }

  bool is_readable() const override { return next_ != end_ || wait(POLLIN); }
  bool is_writable() const override { return wait(POLLOUT); }

  ssize_t read(char* ptr, size_t size) override {
    if (next_ == end_) {
      if (budget_ == 0 || !wait(POLLIN)) return -1;
      const ssize_t n = recv(sock_, buffer_, std::min(sizeof(buffer_), budget_), 0);
      if (n <= 0) return n;
      budget_ -= static_cast<std::size_t>(n);
      next_ = buffer_;
      end_ = buffer_ + n;
    }
    const auto n = std::min(size, static_cast<std::size_t>(end_ - next_));
    std::copy_n(next_, n, ptr);
    next_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    return send(sock_, ptr, size, MSG_NOSIGNAL);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { name(getpeername, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { name(getsockname, ip, port); }
  socket_t socket() const override { return sock_; }

 private:
  // Until `events` or the deadline; a socket shut down by stop() wakes it at once.
  bool wait(short events) const {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
    if (left <= 0) return false;
    pollfd watched{sock_, events, 0};
    return poll(&watched, 1, static_cast<int>(left)) > 0 && (watched.revents & events) != 0;
  }

  void name(int (*get)(int, sockaddr*, socklen_t*), std::string& ip, int& port) const {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (get(sock_, reinterpret_cast<sockaddr*>(&address), &length) != 0) return;
    char text[INET6_ADDRSTRLEN] = {};
    if (address.ss_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
      inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
      port = ntohs(v4->sin_port);
    } else if (address.ss_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
      inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
      port = ntohs(v6->sin6_port);
    }
    ip = text;
  }

  socket_t sock_;
  Clock::time_point deadline_;
  std::size_t budget_ = 0;
  char buffer_[4096];
  char* next_ = buffer_;
  char* end_ = buffer_;
};

namespace {

// The request this worker thread is serving (httplib's pre- and post-routing
// handlers are called on it, inside process_request, with no way to reach the
// stream otherwise); null between requests.
thread_local Exchange* current_exchange = nullptr;

// Sets current_exchange for its lifetime.
struct CurrentExchange {
  explicit CurrentExchange(Exchange& exchange) { current_exchange = &exchange; }
  ~CurrentExchange() { current_exchange = nullptr; }
  CurrentExchange(const CurrentExchange&) = delete;
  CurrentExchange& operator=(const CurrentExchange&) = delete;
};

}  // namespace

bool Exchange::read_body(std::size_t length, std::string& body) {
  body.clear();
  if (length > max_body_bytes_) {
    close_ = true;
    return false;
  }
  stream_.allow(length);
  body.resize(length);
  std::size_t got = 0;
  while (got < length) {
    const ssize_t n = stream_.read(body.data() + got, length - got);
    if (n <= 0) {
      body.resize(got);
      close_ = true;
      return false;
    }
    got += static_cast<std::size_t>(n);
  }
  return true;
}

GuardedServer::GuardedServer(ConnectionLimits limits, Router router) : limits_(limits), router_(std::move(router)) {
  set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    Exchange* exchange = current_exchange;
    if (exchange == nullptr) {  // not through process_and_close_socket: cannot happen
      res.status = 500;
      return HandlerResponse::Handled;
    }
    exchange->routed_ = true;
    try {
      router_(req, res, *exchange);
    } catch (...) {
      exchange->close_ = true;  // httplib's exception handler answers; what was read is unknown
      throw;
    }
    return HandlerResponse::Handled;
  });
  // Called on every answer, just before httplib writes it: one after which
  // the connection closes says so (httplib says Keep-Alive unless told the
  // request is the connection's last, which only we know now).
  set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    const Exchange* exchange = current_exchange;
    if (exchange != nullptr && exchange->routed_ && !exchange->close_) return;
    res.headers.erase("Keep-Alive");
    if (!res.has_header("Connection")) res.set_header("Connection", "close");
  });
}

void GuardedServer::close_connections() {
  std::lock_guard lock(mutex_);
  closing_ = true;
  for (socket_t sock : open_) shutdown(sock, SHUT_RDWR);
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  {
    std::lock_guard lock(mutex_);
    open_.insert(sock);
    if (closing_) shutdown(sock, SHUT_RDWR);
  }
  // httplib writes an answer's head and body apart: with Nagle's algorithm
  // the body would wait for the client's delayed ACK of the head (some 40 ms
  // on Linux) on a connection kept alive.
  int yes = 1;
  setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
  DeadlineStream stream(sock);
  bool answered = false;
  for (std::size_t served = 0; served < limits_.max_requests; ++served) {
    stream.begin(Clock::now() + limits_.exchange, limits_.max_head_bytes);
    if (!stream.is_readable()) break;  // nothing (more) came in time, or the client went away
    const bool last = served + 1 == limits_.max_requests;
    Exchange exchange(stream, limits_.max_body_bytes);
    bool connection_closed = false;  // the client asked to close
    {
      const CurrentExchange current(exchange);
      answered = process_request(stream, last, connection_closed, nullptr);
    }
    if (!answered || last || connection_closed || !exchange.routed_ || exchange.close_) break;
  }
  {
    std::lock_guard lock(mutex_);
    open_.erase(sock);
  }
  shutdown(sock, SHUT_RDWR);
  close(sock);
  return answered;
}

}  // namespace allot::http
