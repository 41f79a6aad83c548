// What the cases of `allot test` exercised of each policy (docs/TESTING.md
// "Coverage"): rank terms that were non-zero and varied, classes with a job,
// exceptions both in and out of force, preempt operands both true and false.
// Files testing the same policy are merged.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "allot/policy_test.h"

namespace allot::policytest {
namespace {

std::string where(const PolicyPart& part) { return fmt::format("{}:{}", part.file, part.line); }

// Adds `more` to `into`; both were made for the same policy.
void merge(Exercised& into, const Exercised& more) {
  for (std::size_t i = 0; i < into.values.terms.size() && i < more.values.terms.size(); ++i) {
    runtime::TermExercise& term = into.values.terms[i];
    const runtime::TermExercise& other = more.values.terms[i];
    if (other.jobs == 0) continue;
    term.lowest = term.jobs == 0 ? other.lowest : std::min(term.lowest, other.lowest);
    term.highest = term.jobs == 0 ? other.highest : std::max(term.highest, other.highest);
    term.jobs += other.jobs;
    term.nonzero |= other.nonzero;
  }
  for (std::size_t i = 0; i < into.values.operands.size() && i < more.values.operands.size(); ++i) {
    into.values.operands[i].pairs += more.values.operands[i].pairs;
    into.values.operands[i].seen_true |= more.values.operands[i].seen_true;
    into.values.operands[i].seen_false |= more.values.operands[i].seen_false;
  }
  for (std::size_t i = 0; i < into.class_seen.size() && i < more.class_seen.size(); ++i) {
    into.class_seen[i] = into.class_seen[i] || more.class_seen[i];
  }
  for (std::size_t i = 0; i < into.in_force.size() && i < more.in_force.size(); ++i) {
    into.in_force[i] = into.in_force[i] || more.in_force[i];
    into.out_of_force[i] = into.out_of_force[i] || more.out_of_force[i];
  }
}

std::string term_missing(const runtime::TermExercise& term) {
  if (term.jobs == 0) return "no case ranked a job";
  if (!term.nonzero) return fmt::format("was 0 for every ranked job ({})", term.jobs);
  if (term.lowest == term.highest) return fmt::format("was {:g} for every ranked job ({})", term.lowest, term.jobs);
  return "";
}

std::string operand_missing(const runtime::OperandExercise& operand) {
  if (operand.pairs == 0) return "no case offered a victim to `preempt` for a waiting job of another account";
  if (!operand.seen_true) return fmt::format("was false for every victim and requester ({} pairs)", operand.pairs);
  if (!operand.seen_false) return fmt::format("was true for every victim and requester ({} pairs)", operand.pairs);
  return "";
}

Coverage coverage_from(const std::string& policy, const Exercised& exercised) {
  Coverage coverage;
  coverage.policy = policy;
  const auto add = [&](const char* kind, std::string name, std::string at, std::string missing) {
    const bool exercised_it = missing.empty();
    coverage.items.push_back(CoverageItem{kind, std::move(name), std::move(at), exercised_it, std::move(missing)});
  };
  // A constant term or operand is not an item: no state can make it vary.
  for (std::size_t i = 0; i < exercised.rank_terms.size(); ++i) {
    const PolicyPart& term = exercised.rank_terms[i];
    if (term.constant) continue;
    add("rank term", (term.negated ? "-" : "") + term.text, where(term),
        i < exercised.values.terms.size() ? term_missing(exercised.values.terms[i]) : "no case ranked a job");
  }
  for (std::size_t i = 0; i < exercised.classes.size(); ++i) {
    add("class", exercised.classes[i], "", exercised.class_seen[i] ? "" : "no case's state has a job of it");
  }
  for (std::size_t i = 0; i < exercised.exceptions.size(); ++i) {
    std::string missing;
    if (!exercised.in_force[i] && !exercised.out_of_force[i])
      missing = "no case ran";
    else if (!exercised.in_force[i])
      missing = "was in force at no case's `now`";
    else if (!exercised.out_of_force[i])
      missing = "was in force at every case's `now`, so no case shows what it changes";
    add("exception", exercised.exceptions[i], "", missing);
  }
  for (std::size_t i = 0; i < exercised.preempt_operands.size(); ++i) {
    const PolicyPart& operand = exercised.preempt_operands[i];
    if (operand.constant) continue;
    add("preempt operand", operand.text, where(operand),
        i < exercised.values.operands.size() ? operand_missing(exercised.values.operands[i]) : "no case ran");
  }
  return coverage;
}

}  // namespace

std::size_t Coverage::exercised() const {
  return static_cast<std::size_t>(
      std::count_if(items.begin(), items.end(), [](const CoverageItem& item) { return item.exercised; }));
}

std::vector<Coverage> coverage_of(const std::vector<FileResult>& results) {
  std::map<std::string, Exercised> by_policy;
  for (const FileResult& file : results) {
    if (!file.exercised) continue;
    const auto [it, inserted] =
        by_policy.emplace(std::filesystem::path(file.policy).lexically_normal().string(), *file.exercised);
    if (!inserted) merge(it->second, *file.exercised);
  }
  std::vector<Coverage> coverage;
  for (const auto& [policy, exercised] : by_policy) coverage.push_back(coverage_from(policy, exercised));
  return coverage;
}

double coverage_percent(const std::vector<Coverage>& coverage) {
  std::size_t items = 0, exercised = 0;
  for (const Coverage& one : coverage) {
    items += one.items.size();
    exercised += one.exercised();
  }
  return items == 0 ? 100.0 : 100.0 * static_cast<double>(exercised) / static_cast<double>(items);
}

}  // namespace allot::policytest
