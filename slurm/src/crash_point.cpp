#include "crash_point.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

namespace allot::slurm {
namespace {

struct Plan {
  std::string step;
  long at = 0;  // 0: never
};

Plan read_plan() {
  const char* text = std::getenv("ALLOT_SLURM_CRASH_AT");
  if (text == nullptr) return {};
  const std::string value = text;
  const std::size_t colon = value.find(':');
  if (colon == std::string::npos) return {};
  char* end = nullptr;
  const long at = std::strtol(value.c_str() + colon + 1, &end, 10);
  if (end == nullptr || *end != '\0' || at <= 0) return {};
  return Plan{value.substr(0, colon), at};
}

}  // namespace

void crash_point(std::string_view step) {
  static const Plan plan = read_plan();
  static std::atomic<long> reached{0};
  if (plan.at == 0 || step != plan.step) return;
  if (++reached == plan.at) ::kill(::getpid(), SIGKILL);
}

}  // namespace allot::slurm
