// Reading GPU counts out of Slurm's text fields. Slurm 22.05 without slurmdbd
// keeps GPUs out of its TRES strings, so the adapter reads them from `gres`
// and `gres_used` (nodes), `tres_per_node` / `tres_per_job` (requests) and
// `gres_detail` (allocations). docs/SLURM.md lists the forms seen.
#pragma once

#include <string>
#include <string_view>

namespace allot::slurm {

// GPUs named in one field, and the first GPU type named ("" when untyped).
struct GpuCount {
  int count = 0;
  std::string type;
};

// GPUs named in a node's `gres` or `gres_used` ("gpu:8", "gpu:h100:8(S:0-1)",
// "gpu:h100:4,gpu:a100:4", "gpu:5(IDX:0-4)") or in a job's `tres_per_node`,
// `tres_per_job` or `gres_detail` entry ("gres:gpu:2", "gres/gpu:2",
// "gres:gpu:h100:2", "gpu:2(IDX:0-1)"). Other GRES are ignored; "gpu" alone is one.
GpuCount gpus_named(std::string_view text);

}  // namespace allot::slurm
