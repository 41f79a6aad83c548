// One reconcile pass (allot/slurm.h, docs/SLURM.md "What a pass does"):
//   1. read nodes and jobs; map jobs to accounts and classes;
//   2. charge the ledger for GPU time held since each job's last charge, in one
//      transaction (a failure here ends the pass before anything is written to Slurm);
//   3. record the contract of every run seen for the first time;
//   4. requeue jobs whose checkpoint grace is over;
//   5. run the cycle; signal the victims it chooses (requeued after their grace);
//   6. write the priorities whose rank order changed.
#pragma once

#include "adapter_state.h"

namespace allot::slurm {

Expected<PassReport, std::string> run_pass(Adapter::State& state, const CompiledPolicy& policy, Seconds now);

}  // namespace allot::slurm
