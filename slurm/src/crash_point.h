// Fault injection for the crash tests (tests/slurm/integration_test.cpp,
// "killed in the middle of passes"): with ALLOT_SLURM_CRASH_AT=STEP:N in its
// environment, the adapter SIGKILLs itself the N-th time a pass reaches STEP,
// right after that step's write and before what the pass does next, so a test
// can cut a pass exactly where a crash would hurt. The steps:
//   charged      the ledger committed a batch of charges
//   signalled    Slurm took a checkpoint signal; the preemption is not yet stored
//   requeued     Slurm requeued a job; its preemption is not yet removed
//   prioritised  Slurm took a priority write; others of the pass may follow
//                (or be in flight: up to AdapterSettings::write_threads at once)
// Without the variable a crash point does nothing (one getenv per process).
#pragma once

#include <string_view>

namespace allot::slurm {

void crash_point(std::string_view step);

}  // namespace allot::slurm
