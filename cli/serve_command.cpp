// `allot serve`: the runtime as a service (docs/SERVE.md). Opens the service's
// database, puts its JSON API, /metrics, /healthz and /readyz on one listener
// (loopback unless told otherwise) and runs a cycle every --interval until
// SIGTERM or SIGINT. Mutating calls need the bearer token in --token-file,
// which is never taken from the command line (it would show in `ps`).
#include <sys/stat.h>

#include <cctype>
#include <chrono>
#include <csignal>
#include <ctime>
#include <iostream>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "allot/compile.h"
#include "allot/files.h"
#include "allot/hot_swap.h"
#include "allot/http_server.h"
#include "allot/inventory.h"
#include "allot/metrics.h"
#include "allot/service.h"
#include "allot/share_report.h"
#include "commands.h"
#include "io_paths.h"

namespace allot::cli {
namespace {

volatile std::sig_atomic_t stop_requested = 0;
void on_stop(int) { stop_requested = 1; }

void log(const std::string& line) { std::cerr << "allot serve: " << line << '\n' << std::flush; }

constexpr std::size_t kMaxTokenBytes = 4096;
constexpr std::size_t kMinTokenBytes = 16;
constexpr std::size_t kMaxBodyBytes = 64 * 1024;

// The token in `path`: the file's first line, at least kMinTokenBytes long,
// in a file only its owner may read.
Expected<std::string, std::string> read_token(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && (info.st_mode & 077) != 0) {
    return unexpected(
        fmt::format("--token-file `{}` may be read by others (mode {:o}); `chmod 600` it", path, info.st_mode & 0777));
  }
  auto text = support::read_file(path, kMaxTokenBytes);
  if (!text) return unexpected(fmt::format("--token-file: {}", text.error().reason));
  std::string token = text->substr(0, text->find('\n'));
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ' || token.back() == '\t')) token.pop_back();
  if (token.size() < kMinTokenBytes) {
    return unexpected(fmt::format("--token-file `{}`: the token must be at least {} characters on its first line", path,
                                  kMinTokenBytes));
  }
  // RFC 6750's b64token characters: nothing a header parser would decode or cut.
  for (const char c : token) {
    const bool allowed =
        std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-._~+/=").find(c) != std::string_view::npos;
    if (!allowed) {
      return unexpected(fmt::format("--token-file `{}`: the token may hold only letters, digits and -._~+/=", path));
    }
  }
  return token;
}

// The service's metrics (docs/SERVE.md "Metrics"), refreshed after each cycle.
class ServeMetrics {
 public:
  ServeMetrics()
      : cycle_seconds_(registry_.histogram("allot_serve_cycle_duration_seconds", "How long one scheduling cycle took",
                                           {0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10})),
        cycles_(registry_.counter_family("allot_serve_cycles_total", "Cycles run, by outcome", {"outcome"})),
        decisions_(
            registry_.counter_family("allot_serve_decisions_total", "Decisions put on the feed, by kind", {"kind"})),
        charged_(
            registry_.counter("allot_serve_charged_units_total", "Usage charged to the ledger, in the policy's unit")),
        pending_(registry_.gauge_family("allot_serve_pending_jobs", "Jobs waiting, by program and class",
                                        {"program", "class"})),
        running_(registry_.gauge_family("allot_serve_running_jobs", "Jobs running, by program and class",
                                        {"program", "class"})),
        share_(registry_.gauge_family("allot_serve_share_ratio",
                                      "Each program's share of the cluster with the exceptions in force", {"program"})),
        usage_(registry_.gauge_family("allot_serve_usage_units", "Each program's usage over the window", {"program"})),
        debt_(registry_.gauge_family("allot_serve_debt_units",
                                     "Each program's debt over the window: owed minus delivered", {"program"})),
        generation_(registry_.gauge("allot_serve_policy_generation", "The policy slot's generation (1 at start)")),
        last_cycle_(registry_.gauge("allot_serve_last_cycle_timestamp_seconds", "When the last cycle ran")) {}

  const metrics::Registry& registry() const { return registry_; }

  void cycle_done(const service::CycleReport& report, const service::View& view) {
    cycle_seconds_.observe(report.seconds);
    cycles_.with({"ok"}).inc();
    decisions_.with({"start"}).inc(static_cast<double>(report.starts));
    decisions_.with({"preempt"}).inc(static_cast<double>(report.preemptions));
    decisions_.with({"requeue"}).inc(static_cast<double>(report.requeued));
    charged_.inc(report.charged);
    generation_.set(static_cast<double>(view.generation));
    last_cycle_.set(static_cast<double>(view.at));
    // Gauges by program and class: every pair seen so far is set, to 0 when it has no job now.
    std::map<std::pair<std::string, std::string>, int> pending, running;
    for (auto& [key, count] : seen_) count = 0;
    auto program = [](const std::string& account) { return account.substr(0, account.find('/')); };
    for (const auto& job : view.state.pending) ++pending[{program(job.account), job.job_class}];
    for (const auto& job : view.state.running) ++running[{program(job.request.account), job.request.job_class}];
    for (const auto& [key, count] : pending) seen_[key] = 0;
    for (const auto& [key, count] : running) seen_[key] = 0;
    for (const auto& [key, unused] : seen_) {
      pending_.with({key.first, key.second}).set(pending.count(key) ? pending.at(key) : 0);
      running_.with({key.first, key.second}).set(running.count(key) ? running.at(key) : 0);
    }
    const runtime::ShareReport shares = runtime::share_report(*view.policy, view.state);
    for (const runtime::ShareRow& row : shares.rows) {
      if (row.depth != 1) continue;  // programs: leaves show as users of the root, as sshare shows them
      share_.with({row.path}).set(row.cluster_share);
      usage_.with({row.path}).set(static_cast<double>(row.fields.usage_raw));
      debt_.with({row.path}).set(row.debt);
    }
  }
  void cycle_failed() { cycles_.with({"failed"}).inc(); }

 private:
  metrics::Registry registry_;
  metrics::Histogram& cycle_seconds_;
  metrics::Family<metrics::Counter>& cycles_;
  metrics::Family<metrics::Counter>& decisions_;
  metrics::Counter& charged_;
  metrics::Family<metrics::Gauge>& pending_;
  metrics::Family<metrics::Gauge>& running_;
  metrics::Family<metrics::Gauge>& share_;
  metrics::Family<metrics::Gauge>& usage_;
  metrics::Family<metrics::Gauge>& debt_;
  metrics::Gauge& generation_;
  metrics::Gauge& last_cycle_;
  std::map<std::pair<std::string, std::string>, int> seen_;
};

}  // namespace

int run_serve(const ServeArguments& arguments) {
  CompileOptions options;
  options.engine = arguments.engine == "interp" ? Engine::interpreter : Engine::jit;
  if (!read_now(arguments.now, options.check.today)) return 2;
  options.check.passed_dates_are_warnings = true;  // a passed review never stops a scheduler
  const std::optional<std::int64_t> interval = parse_interval(arguments.interval);
  if (!interval) {
    std::cerr << "allot: --interval expects a duration like 2s, 1m or 1h, got `" << arguments.interval << "`\n";
    return 2;
  }
  const std::optional<std::int64_t> charge_every = parse_interval(arguments.charge_every);
  if (!charge_every) {
    std::cerr << "allot: --charge-every expects a duration like 1m or 10s, got `" << arguments.charge_every << "`\n";
    return 2;
  }
  if (arguments.durability != "power-loss" && arguments.durability != "process-crash") {
    std::cerr << "allot: --durability expects power-loss or process-crash, got `" << arguments.durability << "`\n";
    return 2;
  }
  auto token = read_token(arguments.token_file);
  if (!token) {
    std::cerr << "allot: " << token.error() << '\n';
    return 2;
  }
  auto inventory = runtime::load_inventory(arguments.cluster);
  if (!inventory) {
    std::cerr << "allot: " << inventory.error().to_string() << '\n';
    return inventory.error().unreadable ? 2 : 1;
  }
  auto source = support::read_file(arguments.policy, support::kMaxPolicyBytes);
  runtime::SwapCandidate first = runtime::compile_candidate(arguments.policy, options);
  if (!first.policy) {
    std::cerr << runtime::render_swap_outcome(
        runtime::SwapOutcome{false, "", 0, first.diagnostics, first.sources, "refused: " + first.refusal});
    return 1;
  }
  CommandFiles files;
  files.input("--policy", arguments.policy);
  files.input("--cluster", arguments.cluster);
  files.input("--token-file", arguments.token_file);
  files.imports("--policy", files_read(first.sources));
  files.output("--db", arguments.db);
  if (!check_files(files)) return 2;

  service::ServiceOptions service_options;
  service_options.database = arguments.db;
  service_options.inventory = std::move(*inventory);
  service_options.charge_every = *charge_every;
  service_options.durability =
      arguments.durability == "power-loss" ? runtime::Durability::power_loss : runtime::Durability::process_crash;
  auto opened = service::Service::open(std::move(service_options), first.policy, source ? *source : std::string(),
                                       std::time(nullptr));
  if (!opened) {
    std::cerr << "allot: " << opened.error() << '\n';
    return 2;
  }
  service::Service& service = **opened;

  ServeMetrics metrics;
  http::Health health(std::max(std::chrono::seconds(60), 3 * std::chrono::seconds(*interval)));
  http::ServerOptions server_options;
  server_options.worker_threads = 8;
  server_options.max_body_bytes = kMaxBodyBytes;
  server_options.keep_alive = true;  // executors and browsers reuse connections
  http::HttpServer server(server_options);
  http::serve_metrics_and_health(server, metrics.registry(), health);
  service::mount_api(server, service, service::ApiOptions{*token, 1000, [] { return std::time(nullptr); }});
  if (auto problem = server.start(arguments.listen)) {
    std::cerr << "allot: --listen: " << *problem << '\n';
    return 2;
  }
  struct sigaction action {};
  action.sa_handler = on_stop;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  log(fmt::format("policy `{}` {}, cluster `{}` ({} nodes), database `{}`; a cycle every {}",
                  first.policy->tables().name, first.policy->source_hash().substr(0, 12), service.inventory().name,
                  service.inventory().nodes.size(), arguments.db, arguments.interval));
  log(fmt::format("listening on port {}", server.bound_port()));
  int failures = 0;
  while (!stop_requested) {
    const auto started = std::chrono::steady_clock::now();
    health.heartbeat();
    auto report = service.run_cycle(std::time(nullptr));
    if (report) {
      metrics.cycle_done(*report, *service.view());
      health.mark_ready();
    } else {
      ++failures;
      metrics.cycle_failed();
      health.mark_not_ready("the last cycle failed: " + report.error());
      log("cycle failed: " + report.error());
    }
    while (!stop_requested && std::chrono::steady_clock::now() - started < std::chrono::seconds(*interval)) {
      health.heartbeat();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  server.stop();
  log("stopped");
  return failures > 0 ? 1 : 0;
}

}  // namespace allot::cli
