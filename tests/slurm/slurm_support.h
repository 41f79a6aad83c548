// Shared pieces of the adapter's unit tests: a small two-team policy, a
// mapping file for it, and an adapter over a fake Slurm in a temporary folder.
#pragma once

#include <memory>
#include <string>

#include "allot/policy.h"
#include "allot/slurm.h"
#include "fake_slurm.h"

namespace slurm_test {

// 2026-12-01T00:00:00Z.
constexpr Seconds kStart = 1'796'083'200;
constexpr Seconds kMinute = 60;

// alpha 50% / beta 50%; class `work` (protected `protect`, checkpoint every
// 10m, `grace` to checkpoint, none when empty), class `pinned` (never preempted). The rank puts
// the account furthest below its share first; preemption goes from an
// over-served account to an under-served one.
std::string two_team_policy(const std::string& protect = "10m", const std::string& grace = "2m");

// `policy` with its rank expression replaced by `rank`.
std::string replaced_rank(const std::string& policy, const std::string& rank);

// Compiles policy text, or a file of the source tree ("policies/saas.allot"),
// with "today" = 2026-12-01 (interpreter); fails the test on errors.
std::shared_ptr<const allot::CompiledPolicy> compile(const std::string& text);
std::shared_ptr<const allot::CompiledPolicy> compile_file(const std::string& relative_path);

// Slurm account X -> tree account X; partition `pinned` -> class pinned, the rest `work`.
allot::slurm::JobMap two_team_map();

// Opens an adapter on `state_path`; fails the test when it cannot.
std::unique_ptr<allot::slurm::Adapter> open_adapter(FakeSlurm& slurm, const std::string& state_path,
                                                    bool dry_run = false,
                                                    const allot::slurm::JobMap& map = two_team_map());

// Runs a pass; fails the test when it fails.
allot::slurm::PassReport pass(allot::slurm::Adapter& adapter, const allot::CompiledPolicy& policy, Seconds now);

}  // namespace slurm_test
