// Rank order becomes Slurm priorities with as few writes as possible.
#include <catch2/catch.hpp>

#include <algorithm>

#include "priority_plan.h"

namespace {

using allot::slurm::plan_priorities;

constexpr std::uint32_t kFloor = 1000;
constexpr std::uint32_t kCeiling = 1'000'000'000;

std::size_t changes(const std::vector<std::uint32_t>& before, const std::vector<std::uint32_t>& after) {
  std::size_t changed = 0;
  for (std::size_t i = 0; i < before.size(); ++i) changed += before[i] != after[i];
  return changed;
}

bool strictly_decreasing_in_band(const std::vector<std::uint32_t>& priorities) {
  for (std::size_t i = 0; i < priorities.size(); ++i) {
    if (priorities[i] < kFloor || priorities[i] > kCeiling) return false;
    if (i > 0 && priorities[i] >= priorities[i - 1]) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("fresh jobs get priorities in rank order inside the band", "[slurm][priority]") {
  const std::vector<std::uint32_t> fresh(5, 1);  // Slurm's priority for unranked jobs
  const auto planned = plan_priorities(fresh, kFloor, kCeiling);
  CHECK(strictly_decreasing_in_band(planned));
  CHECK(changes(fresh, planned) == 5);
}

TEST_CASE("an unchanged order writes nothing", "[slurm][priority]") {
  const auto first = plan_priorities(std::vector<std::uint32_t>(100, 1), kFloor, kCeiling);
  CHECK(plan_priorities(first, kFloor, kCeiling) == first);
}

TEST_CASE("a new job is slotted between the others with one write", "[slurm][priority]") {
  std::vector<std::uint32_t> queue = plan_priorities(std::vector<std::uint32_t>(10, 1), kFloor, kCeiling);
  for (std::size_t at : {std::size_t{0}, std::size_t{4}, std::size_t{11}}) {
    std::vector<std::uint32_t> with_new = queue;
    with_new.insert(with_new.begin() + static_cast<std::ptrdiff_t>(at), 1);
    const auto planned = plan_priorities(with_new, kFloor, kCeiling);
    INFO("new job at position " << at);
    CHECK(strictly_decreasing_in_band(planned));
    CHECK(changes(with_new, planned) == 1);
    queue = planned;
  }
}

TEST_CASE("a job that moves up is the only one rewritten", "[slurm][priority]") {
  std::vector<std::uint32_t> queue = plan_priorities(std::vector<std::uint32_t>(8, 1), kFloor, kCeiling);
  std::rotate(queue.begin(), queue.begin() + 6, queue.begin() + 7);  // the 7th job is now first
  const auto planned = plan_priorities(queue, kFloor, kCeiling);
  CHECK(strictly_decreasing_in_band(planned));
  CHECK(changes(queue, planned) == 1);
}

TEST_CASE("a reversed queue is renumbered and stays in the band", "[slurm][priority]") {
  std::vector<std::uint32_t> queue = plan_priorities(std::vector<std::uint32_t>(50, 1), kFloor, kCeiling);
  std::reverse(queue.begin(), queue.end());
  const auto planned = plan_priorities(queue, kFloor, kCeiling);
  CHECK(strictly_decreasing_in_band(planned));
  CHECK(changes(queue, planned) == 49);
}

TEST_CASE("gaps too narrow for the new jobs renumber everything", "[slurm][priority]") {
  const std::vector<std::uint32_t> crowded = {5002, 5001, 1, 1, 1, 5000};
  const auto planned = plan_priorities(crowded, kFloor, kCeiling);
  CHECK(strictly_decreasing_in_band(planned));
}

TEST_CASE("priorities an operator set outside the band are brought into it", "[slurm][priority]") {
  const std::vector<std::uint32_t> foreign = {4'000'000'000u, 7, 0};
  CHECK(strictly_decreasing_in_band(plan_priorities(foreign, kFloor, kCeiling)));
}
