// The addresses HttpServer::start accepts, checked before anything is bound.
#pragma once

#include <string>
#include <string_view>

#include "allot/expected.h"

namespace allot::http {

// Where to listen: a numeric host (IPv4, or IPv6 without brackets) and a port.
struct ListenAddress {
  std::string host;
  int port = 0;
  // HOST:PORT, or [HOST]:PORT for IPv6: how messages name it.
  std::string display() const;
};

// HOST:PORT (an IPv4 address or `localhost`), [IPv6]:PORT or :PORT
// (127.0.0.1); the port 0-65535. Host names other than localhost are refused:
// where a service listens should not depend on a resolver.
Expected<ListenAddress, std::string> parse_listen_address(std::string_view text);

}  // namespace allot::http
