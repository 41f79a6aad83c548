// The webhook pusher (allot/service.h, WebhookPusher; docs/SERVE.md "Webhook").
#include <algorithm>
#include <charconv>
#include <chrono>

#include <fmt/format.h>
#include <httplib.h>

#include "allot/service.h"

namespace allot::service {
namespace {

constexpr std::size_t kBatch = 100;
constexpr auto kFirstBackoff = std::chrono::seconds(1);
constexpr auto kMaxBackoff = std::chrono::seconds(60);
constexpr auto kIdle = std::chrono::seconds(5);  // looks at the feed at least this often

}  // namespace

Expected<WebhookTarget, std::string> parse_webhook_url(const std::string& url) {
  constexpr std::string_view kScheme = "http://";
  if (url.rfind("https://", 0) == 0) {
    return unexpected(
        std::string("--webhook: https is not supported; push to http on loopback and let a proxy add TLS"));
  }
  if (url.rfind(kScheme, 0) != 0) return unexpected(fmt::format("--webhook `{}`: expected http://HOST:PORT/PATH", url));
  const std::string rest = url.substr(kScheme.size());
  const std::size_t slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  const std::string path = slash == std::string::npos ? "/" : rest.substr(slash);
  const std::size_t colon = authority.rfind(':');
  if (authority.empty() || colon == std::string::npos || colon + 1 == authority.size()) {
    return unexpected(fmt::format("--webhook `{}`: expected http://HOST:PORT/PATH (with a port)", url));
  }
  int port = 0;
  const std::string digits = authority.substr(colon + 1);
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (error != std::errc() || end != digits.data() + digits.size() || port < 1 || port > 65535) {
    return unexpected(fmt::format("--webhook `{}`: the port must be 1-65535", url));
  }
  for (const char c : path) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return unexpected(fmt::format("--webhook `{}`: the path may not hold spaces or control characters", url));
    }
  }
  return WebhookTarget{std::string(kScheme) + authority, path, ""};
}

WebhookPusher::WebhookPusher(Service& service, WebhookTarget target, std::function<void(const std::string&)> log)
    : service_(service), target_(std::move(target)), log_(std::move(log)) {
  delivered_ = service_.webhook_position();
  thread_ = std::thread([this] { run(); });
}

WebhookPusher::~WebhookPusher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void WebhookPusher::poke() {
  {
    std::lock_guard lock(mutex_);
    poked_ = true;
  }
  wake_.notify_all();
}

std::optional<std::string> WebhookPusher::push_once(bool& more) {
  more = false;
  auto entries = service_.decisions_since(delivered_, kBatch);
  if (!entries) return entries.error();
  if (entries->empty()) return std::nullopt;
  std::string body = "{\"decisions\": [";
  for (std::size_t i = 0; i < entries->size(); ++i) body += (i ? ",\n" : "\n") + (*entries)[i];
  body += "\n]}\n";
  // The last entry's seq: the first number after `"seq":`.
  std::int64_t last = delivered_;
  const std::string& tail = entries->back();
  const std::size_t start = tail.find(':') + 1;
  std::from_chars(tail.data() + start, tail.data() + tail.size(), last);

  httplib::Client client(target_.scheme_host_port);
  client.set_connection_timeout(std::chrono::seconds(5));
  client.set_read_timeout(std::chrono::seconds(10));
  client.set_write_timeout(std::chrono::seconds(10));
  httplib::Headers headers;
  if (!target_.token.empty()) headers.emplace("Authorization", "Bearer " + target_.token);
  const httplib::Result result = client.Post(target_.path, headers, body, "application/json");
  if (!result)
    return fmt::format("{}{}: {}", target_.scheme_host_port, target_.path, httplib::to_string(result.error()));
  if (result->status < 200 || result->status > 299) {
    return fmt::format("{}{} answered {}", target_.scheme_host_port, target_.path, result->status);
  }
  if (auto error = service_.set_webhook_position(last)) return "storing the position: " + *error;
  delivered_ = last;
  more = entries->size() == kBatch;
  return std::nullopt;
}

void WebhookPusher::run() {
  auto backoff = std::chrono::steady_clock::duration(kFirstBackoff);
  bool failing = false;
  while (true) {
    bool more = false;
    const std::optional<std::string> failure = push_once(more);
    if (failure) {
      if (!failing && log_) log_(fmt::format("webhook: not delivered ({}); retrying with backoff", *failure));
      failing = true;
    } else {
      if (failing && log_) log_(fmt::format("webhook: delivering again (up to feed entry {})", delivered_.load()));
      failing = false;
      backoff = kFirstBackoff;
    }
    std::unique_lock lock(mutex_);
    if (stopping_) return;
    if (more && !failing) continue;
    const auto wait = failing ? backoff : std::chrono::steady_clock::duration(kIdle);
    wake_.wait_for(lock, wait, [this, failing] { return stopping_ || (!failing && poked_); });
    if (stopping_) return;
    poked_ = false;
    if (failing) backoff = std::min<std::chrono::steady_clock::duration>(2 * backoff, kMaxBackoff);
  }
}

}  // namespace allot::service
