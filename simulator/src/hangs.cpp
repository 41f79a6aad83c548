// Hung jobs in a workload: the replay's way to show what a job that holds GPUs
// without progress costs, and what a progress rule recovers (docs/REPLAY.md
// "Hung jobs").
#include <fmt/format.h>

#include <cmath>

#include "allot/simulator.h"
#include "random.h"

namespace allot::simulator {

void add_hangs(Workload& workload, double fraction, std::uint64_t seed) {
  if (!(fraction > 0)) return;
  // Its own stream: the arrivals are the same with and without hangs, and each
  // job draws the same numbers at every fraction, so a job that hangs at 5%
  // hangs at 10% too, at the same point of its work.
  Random random(seed ^ 0x68616e67'6a6f6273ULL);
  int training = 0, hanging = 0;
  for (WorkloadJob& job : workload.jobs) {
    if (job.kind != JobKind::train && job.kind != JobKind::large) continue;
    ++training;
    const double draw = random.uniform();
    const double point = random.uniform(0.05, 0.95);
    if (job.hangs_after) {
      ++hanging;
      continue;
    }
    if (draw >= fraction) continue;
    job.hangs_after = static_cast<Seconds>(std::floor(point * static_cast<double>(job.work)));
    ++hanging;
  }
  workload.description += fmt::format("; {} of {} training jobs ({:.1f}%) hang once, after 5-95% of their work",
                                      hanging, training, training > 0 ? 100.0 * hanging / training : 0.0);
}

}  // namespace allot::simulator
