// `allot serve`: the runtime as a service (docs/SERVE.md). Opens the service's
// database, puts its JSON API, /metrics, /healthz and /readyz on one listener
// (loopback unless told otherwise) and runs a cycle every --interval until
// SIGTERM or SIGINT. Mutating calls need the bearer token in --token-file,
// which is never taken from the command line (it would show in `ps`).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "allot/compile.h"
#include "allot/dates.h"
#include "allot/files.h"
#include "allot/hot_swap.h"
#include "allot/http_server.h"
#include "allot/inventory.h"
#include "allot/metrics.h"
#include "allot/service.h"
#include "allot/share_report.h"
#include "allot/simulator.h"
#include "commands.h"
#include "io_paths.h"
#include "serve_demo.h"
#include "serve_metrics.h"

namespace allot::cli {
namespace {

// How much nicer the thread that runs the cycles is than the HTTP workers.
constexpr int kCycleNice = 10;

volatile std::sig_atomic_t stop_requested = 0;
void on_stop(int) { stop_requested = 1; }

void log(const std::string& line) { std::cerr << "allot serve: " << line << '\n' << std::flush; }

// The warnings of a policy that runs (a passed review date, a GPU type the cluster lacks), one line each.
void log_warnings(const std::vector<Diagnostic>& diagnostics) {
  for (const Diagnostic& diagnostic : diagnostics) {
    if (diagnostic.severity == Severity::warning) log(runtime::diagnostic_line(diagnostic));
  }
}

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

// The service's clock: the wall clock, or with --demo virtual time running
// `speed` times faster from `start`.
class ServeClock {
 public:
  ServeClock() = default;
  ServeClock(runtime::Seconds start, double speed) : start_(start), speed_(speed) {}
  runtime::Seconds now() const {
    if (speed_ <= 0) return std::time(nullptr);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - origin_).count();
    return start_ + static_cast<runtime::Seconds>(elapsed * speed_);
  }

 private:
  runtime::Seconds start_ = 0;
  double speed_ = 0;
  std::chrono::steady_clock::time_point origin_ = std::chrono::steady_clock::now();
};

// --demo's files when not given: the checkout's saas policy and cluster, and a
// new folder for the database and a token.
struct DemoFiles {
  std::string folder;
};

std::optional<std::string> make_demo_files(ServeArguments& arguments, DemoFiles& files) {
  // An installed binary's share/allot holds the policies and clusters too; a build tree's are the checkout's.
  const auto installed = support::installed_data_folder();
  const std::string data = installed ? installed->string() : std::string(ALLOT_SOURCE_DIR);
  if (arguments.policy.empty()) arguments.policy = data + "/policies/saas.allot";
  if (arguments.cluster.empty()) arguments.cluster = data + "/examples/clusters/saas-8gpu.toml";
  std::string pattern = (std::filesystem::temp_directory_path() / "allot-demo-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return fmt::format("cannot make a folder for the demo: {}", pattern);
  files.folder = pattern;
  if (arguments.db == "allot-serve.db") arguments.db = files.folder + "/demo.db";
  if (arguments.token_file.empty()) {
    std::random_device entropy;
    std::string token;
    for (int i = 0; i < 8; ++i) token += fmt::format("{:08x}", entropy());
    arguments.token_file = files.folder + "/token";
    const int descriptor = ::open(arguments.token_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (descriptor < 0) return fmt::format("cannot write {}", arguments.token_file);
    const auto problem = support::write_all(descriptor, token + "\n");
    ::close(descriptor);
    if (problem) return *problem;
  }
  return std::nullopt;
}

}  // namespace

int run_serve(const ServeArguments& given) {
  ServeArguments arguments = given;
  DemoFiles demo_files;
  if (arguments.demo) {
    if (auto problem = make_demo_files(arguments, demo_files)) {
      std::cerr << "allot: --demo: " << *problem << '\n';
      return 2;
    }
  }
  for (const auto& [option, value] :
       {std::pair{"--policy", &arguments.policy}, std::pair{"--cluster", &arguments.cluster},
        std::pair{"--token-file", &arguments.token_file}}) {
    if (value->empty()) {
      std::cerr << "allot: serve needs " << option << " (or --demo)\n";
      return 2;
    }
  }
  CompileOptions options = compile_options(arguments.engine);
  const runtime::Seconds demo_start = simulator::kDefaultStart;
  if (arguments.demo && arguments.now.empty()) {
    options.check.today = Date{static_cast<int>(demo_start / 86400)};  // the scenario's week
  } else if (!read_now(arguments.now, options.check.today)) {
    return 2;
  }
  options.check.passed_dates_are_warnings = true;  // a passed review never stops a scheduler
  for (const std::string& folder : arguments.import_path) options.check.import_path.push_back(folder);
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
  const std::optional<std::int64_t> sample_every = parse_interval(arguments.sample_every);
  if (!sample_every) {
    std::cerr << "allot: --sample-every expects a duration like 5m or 30s, got `" << arguments.sample_every << "`\n";
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
  // The cluster is known before any policy: what the policy gets wrong about it (a unit
  // weight for a GPU type it lacks, a class bigger than it) is a warning at start and on
  // every swap (in the log, and in POST /policy's answer), never a refusal.
  options.check.cluster = cluster_facts(*inventory, arguments.cluster);
  options.check.cluster_facts_are_warnings = true;
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

  // --demo: a week of the seed's company, generated for this policy and cluster.
  std::optional<DemoExecutor> executor;
  ServeClock clock;
  if (arguments.demo) {
    simulator::ScenarioOptions scenario;
    scenario.seed = arguments.seed;
    scenario.start = demo_start;
    auto workload =
        simulator::generate_scenario(simulator::Scenario::normal, *inventory, first.policy->tables(), scenario);
    auto classes = workload ? simulator::resolve_jobs(*workload, first.policy->tables())
                            : Expected<std::vector<int>, std::string>(unexpected(workload.error()));
    if (!classes) {
      std::cerr << "allot: --demo: " << classes.error() << '\n';
      return 1;
    }
    clock = ServeClock(demo_start, arguments.speed);
    executor.emplace(std::move(*workload), std::move(*classes), first.policy->tables());
  }

  service::ServiceOptions service_options;
  service_options.database = arguments.db;
  service_options.inventory = std::move(*inventory);
  service_options.charge_every = *charge_every;
  service_options.sample_every = *sample_every;
  // Cycles further apart than this are a gap (the service was down). A demo's
  // cycles are --interval x --speed apart in its time.
  const double cycle_step = static_cast<double>(*interval) * (arguments.demo ? arguments.speed : 1.0);
  service_options.max_accounting_gap =
      std::max<runtime::Seconds>(15 * 60, static_cast<runtime::Seconds>(3 * cycle_step));
  service_options.durability =
      arguments.durability == "power-loss" ? runtime::Durability::power_loss : runtime::Durability::process_crash;
  auto opened =
      service::Service::open(std::move(service_options), first.policy, source ? *source : std::string(), clock.now());
  if (!opened) {
    std::cerr << "allot: " << opened.error() << '\n';
    return 2;
  }
  service::Service& service = **opened;
  std::optional<service::WebhookPusher> pusher;
  if (!arguments.webhook.empty()) {
    auto target = service::parse_webhook_url(arguments.webhook);
    if (!target) {
      std::cerr << "allot: " << target.error() << '\n';
      return 2;
    }
    if (!arguments.webhook_token_file.empty()) {
      auto webhook_token = read_token(arguments.webhook_token_file);
      if (!webhook_token) {
        std::cerr << "allot: --webhook-token-file: " << webhook_token.error() << '\n';
        return 2;
      }
      target->token = std::move(*webhook_token);
    }
    pusher.emplace(service, std::move(*target), [](const std::string& line) { log(line); });
    log(fmt::format("pushing the decision feed to {} from entry {}", arguments.webhook, pusher->delivered() + 1));
  }

  // A posted policy is compiled on the HTTP worker that received it, never on the
  // cycle's thread. It is taken to live in an empty private folder: its own
  // imports find nothing beside it, so it reads only the stdlib and --import-path.
  std::string posted_folder = (std::filesystem::temp_directory_path() / "allot-posted-XXXXXX").string();
  if (::mkdtemp(posted_folder.data()) == nullptr) {
    std::cerr << "allot: cannot make a private folder for posted policies\n";
    return 2;
  }
  const std::string posted_name = posted_folder + "/posted.allot";

  ServeMetrics metrics;
  http::Health health(std::max(std::chrono::seconds(60), 3 * std::chrono::seconds(*interval)));
  http::ServerOptions server_options;
  // A kept-alive connection holds its worker while it idles (http_server.h):
  // enough workers that a few dozen busy clients never queue for one.
  server_options.worker_threads = 64;
  server_options.max_body_bytes = kMaxBodyBytes;
  server_options.keep_alive = true;  // executors and browsers reuse connections
  http::HttpServer server(server_options);
  http::serve_metrics_and_health(server, metrics.registry(), health);
  service::ApiOptions api;
  api.token = *token;
  api.clock = [&clock] { return clock.now(); };
  api.compile = [options, posted_name](const std::string& text) {
    return runtime::compile_candidate_source(posted_name, text, options);
  };
  api.write_rate = arguments.rate_limit;
  api.write_burst = 2 * arguments.rate_limit;
  api.read_rate = arguments.read_rate_limit;
  api.read_burst = 2 * arguments.read_rate_limit;
  api.on_policy_change = [&metrics](const service::PolicyChange& change) {
    metrics.policy_change(change);
    if (change.dry_run) return;
    log("policy " + change.outcome.message);
    if (change.outcome.swapped) log_warnings(change.outcome.diagnostics);
  };
  service::mount_api(server, service, std::move(api));
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
  log_warnings(first.diagnostics);
  if (arguments.demo) {
    log(fmt::format("demo: a week of generated arrivals from {}, {}x faster than real time; token in {}",
                    support::format_timestamp(demo_start), arguments.speed, arguments.token_file));
  }
  log(fmt::format("listening on port {}", server.bound_port()));
  if (arguments.demo) log(fmt::format("the dashboard: http://127.0.0.1:{}/", server.bound_port()));
  // The cycles run on this thread at a lower CPU priority than the HTTP
  // workers (started above, at the default): on a busy machine a read or a
  // submission is served before the cycle's next slice, and a cycle takes
  // longer instead. (Linux: the nice value of one thread.)
  const auto this_thread = static_cast<id_t>(syscall(SYS_gettid));
  errno = 0;
  const int started_nice = getpriority(PRIO_PROCESS, this_thread);
  if (errno != 0 || setpriority(PRIO_PROCESS, this_thread, std::min(19, started_nice + kCycleNice)) != 0) {
    log(fmt::format("cannot lower the cycles' CPU priority: {}", std::strerror(errno)));
  }
  int failures = 0;
  while (!stop_requested) {
    const auto started = std::chrono::steady_clock::now();
    health.heartbeat();
    const runtime::Seconds now = clock.now();
    if (executor) {
      const std::string problem = executor->step(service, now);
      if (!problem.empty()) log("demo: " + problem);
    }
    auto report = service.run_cycle(now);
    if (report) {
      metrics.cycle_done(*report, *service.view());
      health.mark_ready();
      if (pusher) pusher->poke();
    } else {
      ++failures;
      metrics.cycle_failed();
      health.mark_not_ready("the last cycle failed: " + report.error());
      log("cycle failed: " + report.error());
    }
    while (!stop_requested && std::chrono::steady_clock::now() - started < std::chrono::seconds(*interval)) {
      health.heartbeat();
      metrics.ledger_lag(clock.now());
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  server.stop();
  std::error_code ignored;
  std::filesystem::remove_all(posted_folder, ignored);
  if (!demo_files.folder.empty() && given.token_file.empty()) {
    std::filesystem::remove(arguments.token_file, ignored);  // the demo's token dies with it
    std::filesystem::remove(demo_files.folder, ignored);     // only when the database is elsewhere (empty)
  }
  log("stopped");
  return failures > 0 ? 1 : 0;
}

}  // namespace allot::cli
