#include "guarded_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

namespace allot::http {
namespace {

using Clock = std::chrono::steady_clock;

// A connected socket as httplib's request parser reads and writes it: every
// wait ends at one deadline for the whole exchange, and reading stops after a
// byte budget (buffered, since the parser reads lines a byte at a time).
class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(socket_t sock, Clock::time_point deadline, std::size_t max_read_bytes)
      : sock_(sock), deadline_(deadline), budget_(max_read_bytes) {}

  bool is_readable() const override { return wait(POLLIN); }
  bool is_writable() const override { return wait(POLLOUT); }

  ssize_t read(char* ptr, size_t size) override {
    if (next_ == end_) {
      if (budget_ == 0 || !is_readable()) return -1;
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
  std::size_t budget_;
  char buffer_[4096];
  char* next_ = buffer_;
  char* end_ = buffer_;
};

}  // namespace

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
  DeadlineStream stream(sock, Clock::now() + limits_.exchange, limits_.max_request_bytes);
  bool connection_closed = false;
  const bool answered = stream.is_readable() && process_request(stream, true, connection_closed, nullptr);
  {
    std::lock_guard lock(mutex_);
    open_.erase(sock);
  }
  shutdown(sock, SHUT_RDWR);
  close(sock);
  return answered;
}

}  // namespace allot::http
