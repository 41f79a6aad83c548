// Loading compiled policies into the process with OrcJIT (LLJIT).
//
// One LLJIT per process, created on first use; each policy gets its own
// JITDylib holding its object code, removed (memory released) when the
// JitPolicy is destroyed, so policies can be loaded and unloaded indefinitely.
// Every entry point has the same name in every dylib: lookups are per dylib.
#include "jit.h"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cmath>
#include <mutex>

#include "../ir/interpreter.h"
#include "native_module.h"

namespace allot::codegen {
namespace {

// ---------------------------------------------------------------- the engine

// The process-wide JIT. Loading and unloading are serialised (they are rare and
// off the hot path); calling loaded code needs no lock.
class JitEngine {
 public:
  // The engine, or null and `error` when LLVM cannot JIT on this machine.
  static JitEngine* get(std::string& error) {
    static JitEngine* engine = create(init_error());  // intentionally never destroyed
    if (!engine) error = init_error();
    return engine;
  }

  // Loads `object` into a new dylib; null and `error` on failure.
  llvm::orc::JITDylib* load(const std::string& object, std::string& error) {
    std::lock_guard lock(mutex_);
    llvm::orc::JITDylib& dylib = jit_->getExecutionSession().createBareJITDylib(next_dylib_name());
    if (llvm::Error failed = populate(dylib, object)) {
      error = llvm::toString(std::move(failed));
      unload_locked(dylib);
      return nullptr;
    }
    return &dylib;
  }

  // The address of `symbol` in `dylib`, or 0 and `error`.
  std::uintptr_t lookup(llvm::orc::JITDylib& dylib, std::string_view symbol, std::string& error) {
    std::lock_guard lock(mutex_);
    auto address = jit_->lookup(dylib, llvm::StringRef(symbol));
    if (!address) {
      error = llvm::toString(address.takeError());
      return 0;
    }
    return address->getValue();
  }

  // Releases `dylib` and its code.
  void unload(llvm::orc::JITDylib& dylib) {
    std::lock_guard lock(mutex_);
    unload_locked(dylib);
  }

 private:
  explicit JitEngine(std::unique_ptr<llvm::orc::LLJIT> jit) : jit_(std::move(jit)) {}

  static std::string& init_error() {
    static std::string error;
    return error;
  }

  // Expects the native target registered (build_native does it first).
  static JitEngine* create(std::string& error) {
    auto jit = llvm::orc::LLJITBuilder().setPlatformSetUp(llvm::orc::setUpInactivePlatform).create();
    if (!jit) {
      error = "cannot start the JIT: " + llvm::toString(jit.takeError());
      return nullptr;
    }
    return new JitEngine(std::move(*jit));
  }

  std::string next_dylib_name() { return "allot_policy_" + std::to_string(++loaded_); }

  // The libm functions the code calls (native_module.h), bound to this process's.
  llvm::orc::SymbolMap libm_symbols() {
    llvm::orc::ExecutionSession& session = jit_->getExecutionSession();
    const auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
    using Unary = double (*)(double);
    using Binary = double (*)(double, double);
    return {
        {session.intern(llvm::StringRef(kLogSymbol)), {llvm::orc::ExecutorAddr::fromPtr(Unary(&::log)), flags}},
        {session.intern(llvm::StringRef(kExpSymbol)), {llvm::orc::ExecutorAddr::fromPtr(Unary(&::exp)), flags}},
        {session.intern(llvm::StringRef(kPowSymbol)), {llvm::orc::ExecutorAddr::fromPtr(Binary(&::pow)), flags}},
    };
  }

  llvm::Error populate(llvm::orc::JITDylib& dylib, const std::string& object) {
    if (llvm::Error failed = dylib.define(llvm::orc::absoluteSymbols(libm_symbols()))) return failed;
    // Code generation may call runtime helpers (memset, ...): find them in the process.
    dylib.addToLinkOrder(*jit_->getProcessSymbolsJITDylib());
    return jit_->addObjectFile(dylib, llvm::MemoryBuffer::getMemBufferCopy(object, dylib.getName()));
  }

  void unload_locked(llvm::orc::JITDylib& dylib) {
    // Nothing useful can be done if releasing fails; the memory stays mapped.
    llvm::consumeError(jit_->getExecutionSession().removeJITDylib(dylib));
  }

  std::mutex mutex_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::uint64_t loaded_ = 0;
};

// ---------------------------------------------------------------- the policy

// Native entry points of one loaded policy.
struct EntryPoints {
  abi::RankOneFn rank_one = nullptr;
  abi::RankBatchFn rank_batch = nullptr;
  abi::PreemptFn preempt = nullptr;  // null when the policy has no preempt
};

class JitPolicy final : public ir::PolicyWithParts {
 public:
  JitPolicy(const ir::LoweredPolicy& policy, JitEngine& engine, llvm::orc::JITDylib& dylib, EntryPoints entry)
      : PolicyWithParts(policy.rank_terms, policy.preempt_operands, policy.preempt_operands_or),
        tables_(policy.tables),
        source_hash_(policy.source_hash),
        job_fields_(policy.job_fields_read),
        account_fields_(policy.account_fields_read),
        engine_(engine),
        dylib_(dylib),
        entry_(entry) {}
  ~JitPolicy() override { engine_.unload(dylib_); }
  JitPolicy(const JitPolicy&) = delete;
  JitPolicy& operator=(const JitPolicy&) = delete;

  const PolicyTables& tables() const override { return tables_; }
  Engine engine() const override { return Engine::jit; }
  const std::string& source_hash() const override { return source_hash_; }
  const std::vector<abi::JobField>& job_fields_read() const override { return job_fields_; }
  const std::vector<abi::AccountField>& account_fields_read() const override { return account_fields_; }
  double rank(const abi::JobTable& jobs, std::size_t job, const abi::AccountTable& accounts,
              const abi::ClusterView& cluster) const override {
    return entry_.rank_one(&jobs, job, &accounts, &cluster);
  }
  void rank_batch(const abi::JobTable& jobs, const abi::AccountTable& accounts, const abi::ClusterView& cluster,
                  std::size_t begin, std::size_t end, double* out) const override {
    entry_.rank_batch(&jobs, &accounts, &cluster, begin, end, out);
  }
  bool has_preempt() const override { return entry_.preempt != nullptr; }
  bool preempt(const abi::JobTable& victims, std::size_t victim, const abi::JobTable& requesters, std::size_t requester,
               const abi::AccountTable& accounts, const abi::ClusterView& cluster) const override {
    return entry_.preempt && entry_.preempt(&victims, victim, &requesters, requester, &accounts, &cluster) != 0;
  }

 private:
  PolicyTables tables_;
  std::string source_hash_;
  std::vector<abi::JobField> job_fields_;
  std::vector<abi::AccountField> account_fields_;
  JitEngine& engine_;
  llvm::orc::JITDylib& dylib_;
  EntryPoints entry_;
};

template <typename Fn>
bool find_entry(JitEngine& engine, llvm::orc::JITDylib& dylib, std::string_view symbol, Fn& fn, std::string& error) {
  const std::uintptr_t address = engine.lookup(dylib, symbol, error);
  fn = reinterpret_cast<Fn>(address);
  return address != 0;
}

bool find_entries(JitEngine& engine, llvm::orc::JITDylib& dylib, bool has_preempt, EntryPoints& entry,
                  std::string& error) {
  if (!find_entry(engine, dylib, kRankOneSymbol, entry.rank_one, error)) return false;
  if (!find_entry(engine, dylib, kRankBatchSymbol, entry.rank_batch, error)) return false;
  return !has_preempt || find_entry(engine, dylib, kPreemptSymbol, entry.preempt, error);
}

}  // namespace

std::unique_ptr<CompiledPolicy> make_jit_policy(const ir::LoweredPolicy& policy, int optimization_level,
                                                std::string& error) {
  std::optional<std::string> object = build_native(policy, optimization_level, NativeOutput::object, error);
  if (!object) return nullptr;
  JitEngine* engine = JitEngine::get(error);
  if (!engine) return nullptr;
  llvm::orc::JITDylib* dylib = engine->load(*object, error);
  if (!dylib) return nullptr;
  EntryPoints entry;
  if (!find_entries(*engine, *dylib, policy.preempt.has_value(), entry, error)) {
    engine->unload(*dylib);
    return nullptr;
  }
  return std::make_unique<JitPolicy>(policy, *engine, *dylib, entry);
}

std::optional<std::string> emit_native(const ir::LoweredPolicy& policy, int optimization_level, bool assembly,
                                       std::string& error) {
  return build_native(policy, optimization_level, assembly ? NativeOutput::assembly : NativeOutput::llvm_text, error);
}

}  // namespace allot::codegen
