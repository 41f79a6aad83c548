// Class contracts: what a class promises its jobs (protected time, checkpoints,
// resumption, deadlines) must be a promise the runtime can keep.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "allot/duration.h"
#include "check_context.h"
#include "suggest.h"

namespace allot {
namespace {

using Kind = ast::ClassPropertyKind;
using Properties = std::map<Kind, const ast::ClassProperty*>;

const char* property_name(Kind kind) {
  switch (kind) {
    case Kind::max_gpus:
      return "max_gpus";
    case Kind::max_nodes:
      return "max_nodes";
    case Kind::max_runtime:
      return "max_runtime";
    case Kind::protect:
      return "protect";
    case Kind::checkpoint:
      return "checkpoint";
    case Kind::grace:
      return "grace";
    case Kind::resumable:
      return "resumable";
    case Kind::preemptible:
      return "preemptible";
    case Kind::deadline:
      return "deadline";
    case Kind::slo:
      return "slo";
    case Kind::fast_lane:
      return "fast_lane";
    case Kind::progress:
      return "progress";
  }
  return "";
}

bool is_duration(Kind kind) {
  return kind == Kind::max_runtime || kind == Kind::protect || kind == Kind::checkpoint || kind == Kind::grace ||
         kind == Kind::progress;
}

// A duration as it can be written in a policy: one unit, the largest that
// divides it (`90m`, not `1h30m`), for helps that say what to write.
std::string duration_literal(double seconds) {
  const long long whole = std::llround(seconds);
  for (auto [unit, length] : {std::pair{'d', 86400LL}, {'h', 3600LL}, {'m', 60LL}}) {
    if (whole % length == 0) return fmt::format("{}{}", whole / length, unit);
  }
  return fmt::format("{}s", whole);
}

// The first property of each kind; repeats are reported.
Properties first_properties(const ast::ClassDecl& decl, const CheckContext& context) {
  Properties first;
  for (const auto& property : decl.properties) {
    auto [it, inserted] = first.emplace(property.kind, &property);
    if (inserted) continue;
    const char* name = property_name(property.kind);
    context.diagnostics
        .error(DiagnosticCode::duplicate_declaration, property.span,
               fmt::format("`{}` is set twice in class `{}`", name, decl.name))
        .note("first set here", it->second->span)
        .help(fmt::format("keep one `{}`", name));
  }
  return first;
}

// --- values ------------------------------------------------------------------------

// The most GPUs or nodes a class may allow one job (no cluster has more).
constexpr double kMaxClassCount = 1'000'000;

// The only form of the words after a fast lane's number: `gpus per program`
// (`gpu per program` after a 1).
bool fast_lane_words_valid(const ast::ClassProperty& property) {
  const auto& words = property.words;
  return words.size() == 3 && (words[0] == "gpus" || (words[0] == "gpu" && property.value == 1)) && words[1] == "per" &&
         words[2] == "program";
}

// `progress every D [after A] [else ACTION]`: the word before A must be
// `after` and the action one of preempt, keep, stop; reports what is not.
bool progress_words_valid(const ast::ClassDecl& decl, const ast::ClassProperty& property, const CheckContext& context) {
  bool valid = true;
  if (!property.words.empty() && property.words.front() != "after") {
    context.diagnostics
        .error(DiagnosticCode::invalid_contract, property.words_span,
               fmt::format("expected `after` in the progress rule of class `{}`, found `{}`", decl.name,
                           property.words.front()))
        .help("write `progress every 20m after 10m`: reports at least every 20m once the job has run 10m");
    valid = false;
  }
  static const std::vector<std::string> kActions = {"preempt", "keep", "stop"};
  if (!property.action.empty() && std::find(kActions.begin(), kActions.end(), property.action) == kActions.end()) {
    context.diagnostics
        .error(DiagnosticCode::invalid_contract, property.action_span,
               fmt::format("`{}` is not something a stalled job of class `{}` can be made to do", property.action,
                           decl.name))
        .note("a stalled job can be preempted (`else preempt`), kept running (`else keep`) or stopped (`else stop`)")
        .help(suggest(property.action, kActions));
    valid = false;
  }
  return valid;
}

bool value_is_valid(const ast::ClassProperty& property) {
  if (property.kind == Kind::max_gpus || property.kind == Kind::max_nodes || property.kind == Kind::fast_lane) {
    return property.value >= 1 && property.value <= kMaxClassCount && std::floor(property.value) == property.value;
  }
  // At most the longest duration any input may state, so no contract's time
  // arithmetic (start + protect + grace) can overflow.
  const auto duration_ok = [](double seconds) {
    return seconds > 0 && seconds <= static_cast<double>(support::kMaxDurationSeconds);
  };
  if (property.kind == Kind::progress) {
    return duration_ok(property.value) && (property.words.empty() || duration_ok(property.after));
  }
  if (is_duration(property.kind)) return duration_ok(property.value);
  if (property.kind == Kind::slo) return property.value > 0 && property.value <= 100;
  return true;
}

void report_invalid_value(const ast::ClassDecl& decl, const ast::ClassProperty& property, const CheckContext& context) {
  const char* name = property_name(property.kind);
  if (is_duration(property.kind)) {
    context.diagnostics
        .error(DiagnosticCode::invalid_duration, property.span,
               fmt::format("`{}` of class `{}` must be longer than 0 and at most 100 years", name, decl.name))
        .help(property.kind == Kind::progress
                  ? "write durations such as `progress every 20m after 10m`"
                  : fmt::format("write a duration such as `{} 15m`, or remove the line", name));
  } else if (property.kind == Kind::slo) {
    context.diagnostics
        .error(DiagnosticCode::invalid_contract, property.span,
               fmt::format("`slo` of class `{}` must be above 0% and at most 100%", decl.name))
        .help("write the share of deadline jobs that must finish in time, such as `slo 95%`");
  } else if (property.kind == Kind::fast_lane) {
    context.diagnostics
        .error(
            DiagnosticCode::invalid_contract, property.span,
            fmt::format("the fast lane of class `{}` must allow a whole number of GPUs from 1 to 1000000", decl.name))
        .help("write `fast_lane up to 4 gpus per program`");
  } else {
    context.diagnostics
        .error(DiagnosticCode::invalid_contract, property.span,
               fmt::format("`{}` of class `{}` must be a whole number from 1 to 1000000", name, decl.name))
        .help(fmt::format("write `{} 1` or more", name));
  }
}

// A class's properties: the first of each kind, and those of them whose
// values are possible (the rules below compare only those, so a value
// already reported is not reported again through a rule).
struct Contract {
  Properties all;
  Properties valid;
};

Contract read_contract(const ast::ClassDecl& decl, const CheckContext& context) {
  Contract contract{first_properties(decl, context), {}};
  for (const auto& [kind, property] : contract.all) {
    if (kind == Kind::progress && !progress_words_valid(decl, *property, context)) continue;
    if (kind == Kind::fast_lane && !fast_lane_words_valid(*property)) {
      context.diagnostics
          .error(DiagnosticCode::invalid_contract, property->words_span,
                 fmt::format("the fast lane of class `{}` is counted in GPUs per program", decl.name))
          .help(fmt::format("write `fast_lane up to {} gpus per program`", fmt::format("{:g}", property->value)));
    } else if (value_is_valid(*property)) {
      contract.valid.emplace(kind, property);
    } else {
      report_invalid_value(decl, *property, context);
    }
  }
  return contract;
}

// --- promises ------------------------------------------------------------------------

bool flag(const Properties& properties, Kind kind, bool absent) {
  auto found = properties.find(kind);
  return found == properties.end() ? absent : found->second->flag;
}

bool requires_deadline(const Properties& properties) { return flag(properties, Kind::deadline, false); }

// Preemptible unless it says otherwise. A class that requires a deadline is
// not preemptible unless it says so: requeuing it would spend its slack.
bool is_preemptible(const Properties& properties) {
  return flag(properties, Kind::preemptible, !requires_deadline(properties));
}

void check_checkpoint_protection(const ast::ClassDecl& decl, const Contract& contract, const CheckContext& context) {
  auto checkpoint = contract.valid.find(Kind::checkpoint);
  if (checkpoint == contract.valid.end() || !is_preemptible(contract.all)) return;
  const std::string interval = support::format_duration(std::llround(checkpoint->second->value));
  if (!contract.all.count(Kind::protect)) {
    context.diagnostics
        .error(DiagnosticCode::checkpoint_exceeds_protection, checkpoint->second->span,
               fmt::format("class `{}` checkpoints every {} but protects no time", decl.name, interval))
        .help(fmt::format("a job could be preempted before its first checkpoint, again and again; add `protect {}` "
                          "or longer",
                          duration_literal(checkpoint->second->value)));
    return;
  }
  auto protect = contract.valid.find(Kind::protect);
  if (protect == contract.valid.end() || checkpoint->second->value <= protect->second->value) return;
  const std::string protected_time = support::format_duration(std::llround(protect->second->value));
  context.diagnostics
      .error(DiagnosticCode::checkpoint_exceeds_protection, checkpoint->second->span,
             fmt::format("checkpoint interval {} is longer than the protected time {}", interval, protected_time))
      .note("protected here", protect->second->span)
      .help(fmt::format("a job preempted right after its protection ends would lose up to {} of work; checkpoint at "
                        "least every {} or protect it longer",
                        interval, protected_time));
}

void check_resumable_if_preemptible(const ast::ClassDecl& decl, const Properties& properties,
                                    const CheckContext& context) {
  if (!is_preemptible(properties) || flag(properties, Kind::resumable, false)) return;
  auto preemptible = properties.find(Kind::preemptible);
  const Span span = preemptible == properties.end() ? decl.name_span : preemptible->second->span;
  auto diagnostic = context.diagnostics.error(DiagnosticCode::preemptible_not_resumable, span,
                                              fmt::format("class `{}` can be preempted but cannot resume", decl.name));
  if (preemptible == properties.end()) diagnostic.note("classes are preemptible unless they say otherwise");
  diagnostic.help("mark the class `resumable`, or `preemptible false` so its jobs run to completion");
}

void check_deadline_and_slo(const ast::ClassDecl& decl, const Properties& properties, const CheckContext& context) {
  auto deadline = properties.find(Kind::deadline);
  auto slo = properties.find(Kind::slo);
  if (requires_deadline(properties) && slo == properties.end()) {
    context.diagnostics
        .error(DiagnosticCode::deadline_without_slo, deadline->second->span,
               fmt::format("class `{}` requires a deadline but sets no `slo`", decl.name))
        .help("add `slo 95%`: the share of its jobs that must finish before their deadline");
  }
  if (!requires_deadline(properties) && slo != properties.end()) {
    context.diagnostics
        .warning(DiagnosticCode::slo_without_deadline, slo->second->span,
                 fmt::format("`slo` of class `{}` has no deadline to measure", decl.name))
        .help("add `deadline required`, or remove `slo`");
  }
}

// A fast-lane job takes capacity from running jobs regardless of the share
// rule. That stays loop-free and bounded only if its jobs are short (a
// `max_runtime`) and nothing can take the capacity back while they run
// (protected for the whole run, or not preemptible); docs/SCHEDULING.md.
void check_fast_lane(const ast::ClassDecl& decl, const Contract& contract, const CheckContext& context) {
  auto lane = contract.valid.find(Kind::fast_lane);
  if (lane == contract.valid.end()) return;
  auto runtime = contract.all.find(Kind::max_runtime);
  if (runtime == contract.all.end()) {
    context.diagnostics
        .error(DiagnosticCode::fast_lane_without_limit, lane->second->span,
               fmt::format("class `{}` has a fast lane but no `max_runtime`", decl.name))
        .help(
            "a fast-lane job stops other jobs to run, so it must be short: add `max_runtime 15m` (or what the "
            "class's work needs)");
    return;
  }
  if (!is_preemptible(contract.all)) return;
  auto limit = contract.valid.find(Kind::max_runtime);
  auto protect = contract.valid.find(Kind::protect);
  const bool whole_run = protect != contract.valid.end() && !protect->second->up_to &&
                         (limit == contract.valid.end() || protect->second->value >= limit->second->value);
  if (whole_run) return;
  const std::string literal = limit == contract.valid.end() ? "15m" : duration_literal(limit->second->value);
  auto diagnostic =
      context.diagnostics.error(DiagnosticCode::fast_lane_unprotected, lane->second->span,
                                fmt::format("the fast lane of class `{}` needs its jobs protected for their "
                                            "whole run",
                                            decl.name));
  if (protect != contract.valid.end()) {
    diagnostic.note(protect->second->up_to ? "each job may choose a shorter protection here"
                                           : "protected for less than `max_runtime` here",
                    protect->second->span);
  }
  diagnostic.help(
      fmt::format("the jobs it stops could take the capacity back and stop it in turn; write "
                  "`protect {}` (its `max_runtime`) or `preemptible false`",
                  literal));
}

// A progress rule must be one the runtime can act on: a class that cannot be
// preempted says what happens to a stalled job; the rule must be able to
// notice a stall before the job's limit ends it, and (for a stall that costs
// the job its protection) before its protection ends by itself.
void check_progress(const ast::ClassDecl& decl, const Contract& contract, const CheckContext& context) {
  auto rule = contract.valid.find(Kind::progress);
  if (rule == contract.valid.end()) return;
  const ast::ClassProperty& progress = *rule->second;
  const bool preemptible = is_preemptible(contract.all);
  if (!preemptible && progress.action.empty()) {
    context.diagnostics
        .error(DiagnosticCode::stall_action_required, progress.span,
               fmt::format("class `{}` is not preemptible, so its progress rule must say what happens to a "
                           "stalled job",
                           decl.name))
        .help(fmt::format("end the line with `else keep` (it runs on, charged and reported as stalled) or `else "
                          "stop` (it is stopped at once)"));
    return;
  }
  if (!preemptible && progress.action == "preempt") {
    context.diagnostics
        .error(DiagnosticCode::invalid_contract, progress.action_span,
               fmt::format("class `{}` is not preemptible: a stalled job cannot be preempted", decl.name))
        .help("write `else keep` or `else stop`");
    return;
  }
  // The earliest a stall can be noticed: the allowance, then one whole interval without a report.
  const double noticed = progress.after + progress.value;
  const std::string when = support::format_duration(std::llround(noticed));
  if (auto limit = contract.valid.find(Kind::max_runtime);
      limit != contract.valid.end() && noticed >= limit->second->value) {
    context.diagnostics
        .error(DiagnosticCode::progress_exceeds_runtime, progress.span,
               fmt::format("a stalled job of class `{}` is noticed after {} at the earliest, but its jobs run at "
                           "most {}",
                           decl.name, when, support::format_duration(std::llround(limit->second->value))))
        .note("the limit is here", limit->second->span)
        .help("ask for progress more often, with a shorter allowance, or remove the rule");
    return;
  }
  auto protect = contract.valid.find(Kind::protect);
  const bool costs_protection = preemptible && (progress.action.empty() || progress.action == "preempt");
  if (costs_protection && protect != contract.valid.end() && noticed >= protect->second->value) {
    const double room = protect->second->value - progress.after;  // protected time left after the allowance
    context.diagnostics
        .warning(DiagnosticCode::progress_exceeds_protection, progress.span,
                 fmt::format("a stalled job of class `{}` is noticed after {} at the earliest, when its protection "
                             "of {} has already ended",
                             decl.name, when, support::format_duration(std::llround(protect->second->value))))
        .note(protect->second->up_to ? "each job chooses at most this protection here" : "protected here",
              protect->second->span)
        .help(room >= 120 ? fmt::format("so that a hung job is noticed while it is still protected, ask for progress "
                                        "at least every {}; or write `else stop` to stop a stalled job at once",
                                        duration_literal(std::floor(room / 2 / 60) * 60))
                          : std::string("the allowance leaves no protected time to notice a stall in: shorten it, or "
                                        "write `else stop` to stop a stalled job at once"));
  }
}

// With `--cluster`: a class whose jobs may ask for more GPUs or nodes than the cluster has.
void check_against_cluster(const ast::ClassDecl& decl, const Contract& contract, const CheckContext& context) {
  const std::optional<ClusterFacts>& cluster = context.options.cluster;
  if (!cluster) return;
  const auto limit = [&](Kind kind, int available, const char* what) {
    const auto it = contract.valid.find(kind);
    if (it == contract.valid.end() || it->second->value <= available) return;
    cluster_fact(context, DiagnosticCode::invalid_contract, it->second->span,
                 fmt::format("class `{}` lets a job ask for {:g} {}, but cluster `{}` has {}", decl.name,
                             it->second->value, what, cluster->file, available))
        .help(fmt::format("write `{} {}` or less, or check against the cluster the policy runs on", property_name(kind),
                          available));
  };
  limit(Kind::max_gpus, cluster->total_gpus, "GPUs");
  limit(Kind::max_nodes, cluster->nodes, "nodes");
}

void check_class(const ast::ClassDecl& decl, const CheckContext& context) {
  const Contract contract = read_contract(decl, context);
  check_against_cluster(decl, contract, context);
  check_progress(decl, contract, context);
  check_checkpoint_protection(decl, contract, context);
  check_resumable_if_preemptible(decl, contract.all, context);
  check_deadline_and_slo(decl, contract.all, context);
  check_fast_lane(decl, contract, context);
}

}  // namespace

void check_contracts(const Scope& scope, const CheckContext& context) {
  for (const auto& [name, decl] : scope.classes) check_class(*decl, context);
}

}  // namespace allot
