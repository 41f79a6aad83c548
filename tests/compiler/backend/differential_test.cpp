// Differential tests: the JIT and the reference interpreter must give
// bit-identical ranks (and identical preempt answers) on the same states,
// through the scalar and the batch entry points alike. Run over every policy
// in policies/, a harness for every stdlib/ library, and seeded random
// policies from policy_generator.h, each on at least 100,000 random states.
//
// ALLOT_DIFFERENTIAL_STATES raises the number of states, ALLOT_DIFFERENTIAL_POLICIES
// the number of generated policies, ALLOT_DIFFERENTIAL_SEED changes the seed.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "allot/compile.h"
#include "allot/policy.h"
#include "check/check_context.h"
#include "check/typing.h"
#include "policy_generator.h"
#include "random_states.h"

namespace fs = std::filesystem;

namespace allot::testing {
namespace {

constexpr std::size_t kJobsPerChunk = 4096;
constexpr std::size_t kAccountsPerChunk = 64;
constexpr std::size_t kClassIds = 8;  // class ids 0..8: every class of every test policy, and one past

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::strtoull(value, nullptr, 10) : fallback;
}

std::uint64_t seed() { return env_or("ALLOT_DIFFERENTIAL_SEED", 20261201); }

// Random states in chunks; each chunk has its own accounts and cluster view.
struct Chunk {
  Chunk() : tables(kJobsPerChunk, kAccountsPerChunk) {}
  StateTables tables;
  abi::ClusterView cluster{};
};

// The states every policy is compared on: generated once, seeded.
const std::vector<std::unique_ptr<Chunk>>& states() {
  static const auto chunks = [] {
    const std::uint64_t count = env_or("ALLOT_DIFFERENTIAL_STATES", 100000);
    std::mt19937_64 random(seed());
    std::vector<std::unique_ptr<Chunk>> out;
    for (std::uint64_t made = 0; made < count; made += kJobsPerChunk) {
      out.push_back(std::make_unique<Chunk>());
      fill_random(out.back()->tables, kClassIds, random);
      out.back()->cluster = random_cluster(random);
    }
    return out;
  }();
  return chunks;
}

struct Engines {
  std::shared_ptr<const CompiledPolicy> jit, interpreter;
};

CompileOptions options_for(Engine engine) {
  CompileOptions options;
  options.engine = engine;
  options.check.today = parse_date("2026-12-01");
  return options;
}

std::shared_ptr<const CompiledPolicy> compile_with(const std::string& path, const std::string* text, Engine engine) {
  CompileResult result =
      text ? compile_policy_source(path, *text, options_for(engine)) : compile_policy_file(path, options_for(engine));
  INFO(render_text(result.diagnostics, result.sources, {}));
  REQUIRE(result.policy != nullptr);
  REQUIRE(result.policy->engine() == engine);
  return result.policy;
}

Engines compile_both(const std::string& path, const std::string* text = nullptr) {
  return {compile_with(path, text, Engine::jit), compile_with(path, text, Engine::interpreter)};
}

std::string describe(double jit, double interpreter) {
  return fmt::format("jit {} ({:#018x}), interpreter {} ({:#018x})", jit, std::bit_cast<std::uint64_t>(jit),
                     interpreter, std::bit_cast<std::uint64_t>(interpreter));
}

std::string job_row(const abi::JobTable& jobs, std::size_t row) {
  std::string text = "job row:";
  for (std::size_t f = 0; f < abi::kJobFieldCount; ++f) text += fmt::format(" {}", jobs.columns[f][row]);
  return text + fmt::format(" account {}", jobs.account[row]);
}

// The first row where the four rank results (jit/interpreter x batch/scalar) differ in any bit.
std::string rank_mismatch(const Engines& engines, const Chunk& chunk) {
  const auto& jobs = chunk.tables.jobs();
  const auto& accounts = chunk.tables.accounts();
  std::vector<double> jit(jobs.count), interpreter(jobs.count);
  engines.jit->rank_batch(jobs, accounts, chunk.cluster, 0, jobs.count, jit.data());
  engines.interpreter->rank_batch(jobs, accounts, chunk.cluster, 0, jobs.count, interpreter.data());
  for (std::size_t i = 0; i < jobs.count; ++i) {
    const double scalar_jit = engines.jit->rank(jobs, i, accounts, chunk.cluster);
    const double scalar_interpreter = engines.interpreter->rank(jobs, i, accounts, chunk.cluster);
    const double values[] = {jit[i], interpreter[i], scalar_jit, scalar_interpreter};
    for (double value : values) {
      if (std::memcmp(&value, &values[0], sizeof value) == 0) continue;
      return fmt::format("rank of row {}: batch {}; scalar {}\n{}", i, describe(jit[i], interpreter[i]),
                         describe(scalar_jit, scalar_interpreter), job_row(jobs, i));
    }
  }
  return "";
}

// The first (victim, requester) pair the engines disagree on.
std::string preempt_mismatch(const Engines& engines, const Chunk& victims, const Chunk& requesters) {
  const auto& jobs = victims.tables.jobs();
  for (std::size_t i = 0; i < jobs.count; ++i) {
    const std::size_t requester = (i * 7919 + 13) % jobs.count;
    const bool jit =
        engines.jit->preempt(jobs, i, requesters.tables.jobs(), requester, victims.tables.accounts(), victims.cluster);
    const bool interpreter = engines.interpreter->preempt(jobs, i, requesters.tables.jobs(), requester,
                                                          victims.tables.accounts(), victims.cluster);
    if (jit != interpreter) {
      return fmt::format("preempt of victim {} for requester {}: jit {}, interpreter {}\nvictim {}\nrequester {}", i,
                         requester, jit, interpreter, job_row(jobs, i), job_row(requesters.tables.jobs(), requester));
    }
  }
  return "";
}

// The first row where a policy's rank terms, added in order, do not give its
// rank bit for bit, or its preempt operands joined by `and` / `or` not its
// preempt answer: what explain and `allot test --coverage` show must be what
// the engine decided.
std::string parts_mismatch(const CompiledPolicy& policy, const Chunk& victims, const Chunk& requesters) {
  const auto& jobs = victims.tables.jobs();
  const auto& accounts = victims.tables.accounts();
  const std::size_t terms = policy.rank_terms().size();
  if (terms == 0) return "the policy has no rank terms";
  std::vector<double> contributions(terms);
  for (std::size_t i = 0; i < jobs.count; ++i) {
    policy.rank_contributions(jobs, i, accounts, victims.cluster, contributions.data());
    double sum = contributions[0];
    for (std::size_t t = 1; t < terms; ++t) sum += contributions[t];
    if (std::isnan(sum)) sum = 0;
    const double rank = policy.rank(jobs, i, accounts, victims.cluster);
    if (std::memcmp(&sum, &rank, sizeof sum) != 0) {
      return fmt::format("row {}: the {} terms add up to {} ({:#018x}), the rank is {} ({:#018x})\n{}", i, terms, sum,
                         std::bit_cast<std::uint64_t>(sum), rank, std::bit_cast<std::uint64_t>(rank), job_row(jobs, i));
    }
  }
  if (!policy.has_preempt()) return policy.preempt_operands().empty() ? "" : "preempt operands without a preempt";
  const std::size_t operands = policy.preempt_operands().size();
  if (operands == 0) return "a preempt without operands";
  std::unique_ptr<bool[]> values(new bool[operands]);
  for (std::size_t i = 0; i < jobs.count; ++i) {
    const std::size_t requester = (i * 7919 + 13) % jobs.count;
    policy.preempt_operand_values(jobs, i, requesters.tables.jobs(), requester, accounts, victims.cluster,
                                  values.get());
    bool joined = values[0];
    for (std::size_t o = 1; o < operands; ++o)
      joined = policy.preempt_operands_or() ? joined || values[o] : joined && values[o];
    if (joined != policy.preempt(jobs, i, requesters.tables.jobs(), requester, accounts, victims.cluster)) {
      return fmt::format("victim {}, requester {}: the {} operands joined give {}, preempt does not", i, requester,
                         operands, joined);
    }
  }
  return "";
}

// Compares the engines on every state; the first difference fails the test
// (and the other policies are still compared). A policy's parts are compared
// with its decisions on the first two chunks, for each engine.
void compare_engines(const Engines& engines) {
  CHECK(engines.jit->has_preempt() == engines.interpreter->has_preempt());
  CHECK(engines.jit->source_hash() == engines.interpreter->source_hash());
  for (const CompiledPolicy* policy : {engines.jit.get(), engines.interpreter.get()}) {
    const std::string mismatch = parts_mismatch(*policy, *states()[0], *states()[1 % states().size()]);
    if (!mismatch.empty()) FAIL_CHECK((policy->engine() == Engine::jit ? "jit: " : "interpreter: ") << mismatch);
  }
  const auto& chunks = states();
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    std::string mismatch = rank_mismatch(engines, *chunks[c]);
    if (mismatch.empty() && engines.jit->has_preempt()) {
      mismatch = preempt_mismatch(engines, *chunks[c], *chunks[(c + 1) % chunks.size()]);
    }
    if (mismatch.empty()) continue;
    FAIL_CHECK(mismatch);
    return;  // one report per policy is enough to debug it
  }
}

// The *.allot files directly in `folder`, sorted.
std::vector<fs::path> allot_files(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().extension() == ".allot") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A library's program: what it declares, to call each function from a harness.
struct Library {
  bool is_policy = false;
  Vocabulary vocabulary;
};

Vocabulary library_vocabulary(const Program& program, const SourceManager& sources) {
  DiagnosticSink scratch(sources);
  const CheckOptions options;
  const CheckContext context{sources, options, Date{}, scratch};
  const Scope scope = check_declarations(program, context);
  const TypedProgram typed = type_program(program, scope, scratch);
  Vocabulary vocabulary;
  for (const auto& [name, decl] : scope.classes) vocabulary.classes.push_back(name);
  vocabulary.declare_classes = vocabulary.classes.empty();
  for (const auto& decl : program.modules.front().functions) {
    const FunctionSignature& signature = typed.functions.at(decl.name);
    vocabulary.library.push_back({decl.name, signature.parameters, signature.result});
  }
  return vocabulary;
}

Library read_library(const fs::path& path) {
  SourceManager sources;
  DiagnosticSink diagnostics(sources);
  const Program program = load_program(path.string(), nullptr, sources, diagnostics);
  REQUIRE(!program.modules.empty());
  Library library;
  library.is_policy = !program.modules.front().policies.empty();
  if (!library.is_policy) library.vocabulary = library_vocabulary(program, sources);
  return library;
}

}  // namespace

TEST_CASE("jit and interpreter agree bit for bit on every policy in policies/", "[differential]") {
  const auto files = allot_files(fs::path(ALLOT_SOURCE_DIR) / "policies");
  REQUIRE(!files.empty());
  for (const auto& path : files) {
    if (!read_library(path).is_policy) continue;
    INFO(path.string());
    compare_engines(compile_both(path.string()));
  }
}

TEST_CASE("jit and interpreter agree on every stdlib function, called from random policies", "[differential]") {
  const fs::path root(ALLOT_SOURCE_DIR);
  for (const auto& path : allot_files(root / "stdlib")) {
    Library library = read_library(path);
    if (library.is_policy) continue;
    library.vocabulary.imports.push_back(fs::relative(path, root).string());
    for (std::uint64_t round = 0; round < 3; ++round) {
      const std::string text = PolicyGenerator(seed() + round, library.vocabulary).library_harness();
      INFO(path.string() << " harness:\n" << text);
      compare_engines(compile_both((root / "harness.allot").string(), &text));
    }
  }
}

TEST_CASE("jit and interpreter agree on randomly generated policies", "[differential]") {
  const std::uint64_t count = env_or("ALLOT_DIFFERENTIAL_POLICIES", 40);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::string text = PolicyGenerator(seed() * 1000 + i, {}).policy();
    INFO("generated policy " << i << " (seed " << seed() << "):\n" << text);
    compare_engines(compile_both("generated.allot", &text));
  }
}

// Known open bug (docs/IR.md, issue 3): with a NaN input LLVM folds
// `min(min(2, x), 2)` to `min(2, x)`. The case still runs and reports every
// disagreement, but does not fail the suite until the codegen is fixed.
TEST_CASE("jit and interpreter agree on the expressions optimisers like to rewrite", "[differential]") {
  // Nested min/max/clamp with constants, NaN-producing arithmetic and
  // comparisons of results that may be NaN: where an optimiser that forgets
  // about NaN or -0.0 would change a result.
  const char* ranks[] = {
      "min(min(2, job.gpus), 2)",
      "max(max(2, job.gpus), 2)",
      "min(max(job.gpus, 0), 0)",
      "clamp(clamp(job.gpus, 0, 2), 0, 2)",
      "min(job.gpus - job.gpus, 1) + max(0 * job.nodes, -1)",
      "abs(job.gpus) - abs(-job.gpus)",
      "if job.gpus == job.gpus then 1 else 2",
      "if not (job.gpus < 1) then min(job.gpus, 1) else max(job.gpus, 1)",
      "(job.gpus ^ job.nodes) / (job.cpus ^ 0.5) + log(job.memory_gb) * exp(job.restarts)",
      "sqrt(job.gpus) + sqrt(job.gpus * job.gpus) - abs(job.gpus)",
  };
  for (const char* rank : ranks) {
    std::string preempt = rank;
    for (std::size_t at; (at = preempt.find("job.")) != std::string::npos;) preempt.replace(at, 4, "victim.");
    const std::string text = std::string(R"(
policy edges {
  unit gpu_hours { h100 = 1.0 }
  window 7d
  tree { all 100% { owner "a@example.com" review 2026-12-31 hypothesis "h" } }
  class debug { resumable }
  rank = )") + rank + "\n  preempt when (" +
                             preempt + ") > 1\n}\n";
    INFO(rank);
    compare_engines(compile_both("edges.allot", &text));
  }
}

TEST_CASE("the state generator covers what the engines must survive", "[differential]") {
  bool zero = false, negative = false, huge = false, infinite = false, nan = false, out_of_range_class = false;
  for (const auto& chunk : states()) {
    const auto& jobs = chunk->tables.jobs();
    for (std::size_t i = 0; i < jobs.count; ++i) {
      const double gpus = jobs.columns[abi::job_gpus][i];
      zero |= gpus == 0;
      negative |= gpus < 0;
      huge |= std::abs(gpus) > 1e300 && std::isfinite(gpus);
      infinite |= std::isinf(gpus);
      nan |= std::isnan(gpus);
      out_of_range_class |= jobs.columns[abi::job_class][i] >= 3;
    }
  }
  CHECK(zero);
  CHECK(negative);
  CHECK(huge);
  CHECK(infinite);
  CHECK(nan);
  CHECK(out_of_range_class);
  // As many as asked for (100,000 unless ALLOT_DIFFERENTIAL_STATES says otherwise).
  CHECK(states().size() * kJobsPerChunk >= env_or("ALLOT_DIFFERENTIAL_STATES", 100000));
}

}  // namespace allot::testing
