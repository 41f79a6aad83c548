// Backfill (EASY, over every hold of this cycle; docs/SCHEDULING.md): a job
// that does not fit in the free capacity may use capacity held for a blocked
// job above it when its runtime limit (its own estimate, else its class's
// `max_runtime`) ends by that hold's time, so it delays no held job; or, when
// it would run past that time, if it may yield the capacity back then: its
// class lets it be preempted and resumed, and the cycle takes the capacity
// back at that time (preemption.h, Preemption::take_back). Holds without a known
// time lend nothing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "blocked_hold.h"
#include "capacity.h"
#include "context.h"

namespace allot::runtime::cycle {

// Where a job backfills, and on whose held capacity.
struct BackfillChoice {
  std::vector<int> nodes;
  Seconds limit = 0;     // its runtime limit (0: none)
  bool bounded = false;  // it has a limit that ends before the end of time
  // The held jobs whose capacity it uses (none: it fits beside them), and the
  // earliest of their times, by which it must end or yield.
  std::vector<std::string> held_for;
  Seconds until = 0;
  std::optional<Seconds> yields_at;  // when it runs past `until`: it yields then
};

class Backfill {
 public:
  explicit Backfill(const CycleContext& context) : context_(context) {}

  // Capacity held for a blocked job ranked above every job asked about from now on.
  void add(Hold hold);
  const std::vector<Hold>& holds() const { return holds_; }

  // Where `job` may start on capacity lent by the holds, or nullopt.
  std::optional<BackfillChoice> plan(const PendingJob& job, Capacity& capacity);

 private:
  bool may_yield_by(const PendingJob& job, Seconds when) const;

  const CycleContext& context_;
  std::vector<Hold> holds_;
  // Shapes that failed to backfill, per set of holds they could borrow (a bit per hold).
  std::map<std::uint64_t, FailedShapes> failed_;
};

}  // namespace allot::runtime::cycle
