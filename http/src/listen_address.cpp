#include "listen_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>

#include <fmt/format.h>

namespace allot::http {
namespace {

constexpr std::string_view kLoopback = "127.0.0.1";

bool is_address(int family, const std::string& host) {
  in6_addr buffer{};  // large enough for either family
  return inet_pton(family, host.c_str(), &buffer) == 1;
}

Expected<int, std::string> parse_port(std::string_view text) {
  int port = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || port < 0 || port > 65535) {
    return unexpected(fmt::format("port `{}` is not a number from 0 to 65535", text));
  }
  return port;
}

// The host, checked: an IPv6 address in brackets, else IPv4 or localhost.
Expected<std::string, std::string> parse_host(std::string_view host) {
  if (host.starts_with('[')) {
    std::string inner(host.substr(1, host.size() - 2));
    if (!host.ends_with(']') || !is_address(AF_INET6, inner)) {
      return unexpected(fmt::format("`{}` is not an IPv6 address in brackets", host));
    }
    return inner;
  }
  if (host.empty() || host == "localhost") return std::string(kLoopback);
  if (!is_address(AF_INET, std::string(host))) {
    return unexpected(fmt::format("`{}` is not an IPv4 address, [IPv6] or localhost", host));
  }
  return std::string(host);
}

}  // namespace

std::string ListenAddress::display() const {
  return host.find(':') == std::string::npos ? fmt::format("{}:{}", host, port) : fmt::format("[{}]:{}", host, port);
}

Expected<ListenAddress, std::string> parse_listen_address(std::string_view text) {
  // The last colon: an IPv6 address has its own, inside the brackets.
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || (text.starts_with('[') && text[colon - 1] != ']')) {
    return unexpected(fmt::format("bad listen address `{}`: expected HOST:PORT, [IPv6]:PORT or :PORT", text));
  }
  Expected<std::string, std::string> host = parse_host(text.substr(0, colon));
  if (!host) return unexpected(fmt::format("bad listen address `{}`: {}", text, host.error()));
  Expected<int, std::string> port = parse_port(text.substr(colon + 1));
  if (!port) return unexpected(fmt::format("bad listen address `{}`: {}", text, port.error()));
  return ListenAddress{*host, *port};
}

}  // namespace allot::http
