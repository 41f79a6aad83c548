#include "integration_support.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace integration {
namespace {

std::pair<int, std::string> capture(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  std::array<char, 4096> buffer{};
  std::size_t read = 0;
  while ((read = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) output.append(buffer.data(), read);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// "gpu:4" / "gpu:2(IDX:0-1)" / "gpu:h100:4(S:0)" -> 4 / 2 / 4: the sum of the gpu entries.
int gpu_count(const std::string& field) {
  int total = 0;
  std::size_t at = 0;
  while ((at = field.find("gpu", at)) != std::string::npos) {
    std::size_t end = field.find_first_of("(,", at);
    const std::string entry = field.substr(at, end == std::string::npos ? std::string::npos : end - at);
    const std::size_t colon = entry.rfind(':');
    if (colon != std::string::npos) total += std::atoi(entry.c_str() + colon + 1);
    at = end == std::string::npos ? field.size() : end;
  }
  return total;
}

}  // namespace

std::string shell(const std::string& command) {
  const auto [status, output] = capture(command);
  INFO(command << "\n" << output);
  REQUIRE(status == 0);
  return output;
}

std::map<std::uint32_t, QueuedJob> queue() {
  const auto [status, output] = capture("squeue --json");
  INFO(output);
  REQUIRE(status == 0);
  std::map<std::uint32_t, QueuedJob> jobs;
  const nlohmann::json document = nlohmann::json::parse(output);  // kept alive for the loop
  for (const auto& entry : document.at("jobs")) {
    QueuedJob job;
    job.id = entry.at("job_id").get<std::uint32_t>();
    job.state = entry.at("job_state").get<std::string>();
    job.account = entry.at("account").get<std::string>();
    job.name = entry.at("name").get<std::string>();
    job.priority = entry.at("priority").get<std::uint32_t>();
    job.restarts = entry.at("restart_cnt").get<int>();
    job.start = entry.at("start_time").get<std::int64_t>();
    job.end = entry.at("end_time").get<std::int64_t>();
    jobs[job.id] = job;
  }
  return jobs;
}

QueuedJob job(std::uint32_t id) {
  const auto jobs = queue();
  const auto found = jobs.find(id);
  std::string known;
  for (const auto& [number, entry] : jobs) known += " " + std::to_string(number);
  INFO("job " << id << " is not among the jobs Slurm holds:" << known);
  REQUIRE(found != jobs.end());
  return found->second;
}

std::uint32_t submit(const std::string& account, int gpus, const std::string& name, const std::string& script,
                     const std::string& options) {
  const std::string folder = work_folder();
  const std::string output = shell(fmt::format(
      "sbatch --parsable --account={} --gres=gpu:{} --job-name={} --chdir={} --output={}/%j.out --open-mode=append "
      "{} --wrap={}",
      account, gpus, name, folder, folder, options, quoted(script)));
  return static_cast<std::uint32_t>(std::stoul(output));
}

std::string nodes_of(std::uint32_t id) {
  std::string nodes = shell(fmt::format("squeue -h -j {} -o %N", id));
  while (!nodes.empty() && (nodes.back() == '\n' || nodes.back() == ' ')) nodes.pop_back();
  return nodes;
}

std::string checkpointing_script() {
  return fmt::format("trap 'date +%s%N >> {}/$SLURM_JOB_ID.usr1' USR1; while true; do sleep 1; done", work_folder());
}

void cancel_all() {
  capture("scancel --full --quiet $(squeue -h -o %i)");
  wait_until("every job is gone or finished", std::chrono::seconds(30), [] {
    for (const auto& [id, job] : queue()) {
      if (job.state == "PENDING" || job.state == "RUNNING" || job.state == "COMPLETING") return false;
    }
    return true;
  });
}

void check_gpus_not_overallocated() {
  const auto [status, output] = capture("sinfo -h -N -O NodeList:30,Gres:60,GresUsed:80");
  REQUIRE(status == 0);
  std::istringstream lines(output);
  std::string node, gres, used;
  while (lines >> node >> gres >> used) {
    INFO("node " << node << ": gres " << gres << ", in use " << used);
    REQUIRE(gpu_count(used) <= gpu_count(gres));
  }
}

void wait_until(const std::string& what, std::chrono::seconds timeout, const std::function<bool()>& ready) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    check_gpus_not_overallocated();
    if (ready()) return;
    if (std::chrono::steady_clock::now() > deadline)
      FAIL("timed out after " << timeout.count() << " s waiting until " << what);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

std::string work_folder() {
  const char* folder = std::getenv("ALLOT_SLURM_WORK");
  REQUIRE(folder != nullptr);
  return folder;
}

std::string fresh_folder(const std::string& name) {
  const std::string folder = work_folder() + "/" + name;
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

Adapter::Adapter(std::vector<std::string> arguments, std::string log)
    : arguments_(std::move(arguments)), log_(std::move(log)) {}

Adapter::~Adapter() {
  if (pid_ > 0) signal(SIGKILL);
}

void Adapter::start() {
  REQUIRE(pid_ < 0);
  std::vector<std::string> argv_text = {ALLOT_BINARY, "slurm"};
  argv_text.insert(argv_text.end(), arguments_.begin(), arguments_.end());
  pid_ = ::fork();
  REQUIRE(pid_ >= 0);
  if (pid_ == 0) {
    const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    std::vector<char*> argv;
    for (std::string& text : argv_text) argv.push_back(text.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
}

void Adapter::signal(int number) {
  REQUIRE(pid_ > 0);
  ::kill(pid_, number);
  if (number != SIGKILL && number != SIGTERM) return;
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::optional<int> Adapter::wait_end(std::chrono::seconds timeout) {
  REQUIRE(pid_ > 0);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
    check_gpus_not_overallocated();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return std::nullopt;
}

std::string Adapter::log() const {
  std::ifstream file(log_);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

int Adapter::passes() const {
  const std::string text = log();
  int count = 0;
  for (std::size_t at = text.find(" pass: "); at != std::string::npos; at = text.find(" pass: ", at + 1)) ++count;
  return count;
}

void Adapter::wait_passes(int more) {
  const int target = passes() + more;
  wait_until(fmt::format("the adapter completes {} more passes", more), std::chrono::seconds(30),
             [&] { return passes() >= target; });
}

int run_allot(const std::vector<std::string>& arguments, std::string& output) {
  std::string command = ALLOT_BINARY;
  for (const std::string& argument : arguments) command += " " + quoted(argument);
  auto [status, text] = capture(command);
  output = std::move(text);
  return status;
}

std::vector<StoredCharge> stored_charges(const std::string& ledger) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(ledger.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* rows = nullptr;
  REQUIRE(sqlite3_prepare_v2(db,
                             "SELECT job_id, charged_from, charged_until, without_progress FROM charges "
                             "ORDER BY job_id, charged_from",
                             -1, &rows, nullptr) == SQLITE_OK);
  std::vector<StoredCharge> charges;
  while (sqlite3_step(rows) == SQLITE_ROW) {
    charges.push_back(StoredCharge{reinterpret_cast<const char*>(sqlite3_column_text(rows, 0)),
                                   sqlite3_column_int64(rows, 1), sqlite3_column_int64(rows, 2),
                                   sqlite3_column_int64(rows, 3) != 0});
  }
  sqlite3_finalize(rows);
  sqlite3_close_v2(db);
  return charges;
}

}  // namespace integration
