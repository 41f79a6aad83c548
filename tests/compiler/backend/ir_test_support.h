// Helpers for the IR tests: lower a policy written inline, and a base policy
// whose rank and preempt each test fills in.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "check/check_context.h"
#include "ir/ir.h"
#include "ir/lower.h"

namespace allot::ir_test {

// A valid policy around `rank` and `preempt` (today is 2026-12-01).
inline std::string policy_with(const std::string& rank, const std::string& preempt = "false",
                               const std::string& extra = "") {
  return R"(
policy t {
  unit gpu_hours { h100 = 1.0  a100 = 0.5 }
  window 7d half_life 1d
  tree {
    product 60% {
      owner "pat@example.com" review 2026-12-31 hypothesis "p"
      project web 50% { owner "wen@example.com" user ana 100% }
      user bob 50%
    }
    research 40% { owner "ria@example.com" review 2026-12-20 hypothesis "r" }
  }
  class debug { max_gpus 1 max_runtime 15m protect 15m resumable }
  class train { checkpoint every 30m protect up to 2h resumable grace 5m }
  exception crunch {
    grant product +10% from research
    owner "cto@example.com" reason "release" starts 2026-11-01 expires 2026-12-20
  }
)" + extra +
         "  rank = " + rank + "\n  preempt when " + preempt +
         "\n  gates { lost_work <= 2%  p90_wait debug <= 5m }\n}\n";
}

// Checks `text` (named `path`, so imports resolve from its folder) and lowers it.
inline ir::LoweredPolicy lower_source(const std::string& text, const std::string& path = "case.allot") {
  SourceManager sources;
  DiagnosticSink diagnostics(sources);
  const Program program = load_program(path, &text, sources, diagnostics);
  const CheckOptions options{parse_date("2026-12-01"), 14, 90};
  const CheckedProgram checked = check_program(program, CheckContext{sources, options, *options.today, diagnostics});
  const auto reported = diagnostics.take_sorted();
  INFO(render_text(reported, sources.texts(), {}));
  for (const auto& diagnostic : reported) REQUIRE(diagnostic.severity != Severity::error);
  REQUIRE(checked.clean);
  return ir::lower_program(checked, sources);
}

// How many nodes of `function` have `op`.
inline std::size_t count_ops(const ir::Function& function, ir::Op op) {
  std::size_t count = 0;
  for (const auto& node : function.nodes) count += node.op == op;
  return count;
}

}  // namespace allot::ir_test
