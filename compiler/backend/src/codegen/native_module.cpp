// IR -> LLVM IR -> optimised module -> host object or text.
//
// Every IR value is an f64 here, exactly as in the interpreter (booleans are
// 0.0 and 1.0, tested with `!= 0`), and every op is emitted as the formula in
// ir/semantics.h, branch-free (selects), without fast-math flags and with FP
// contraction off in the target, so LLVM may only apply value-preserving
// rewrites and both engines agree bit for bit.
#include "native_module.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/LCSSA.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>
#include <llvm/Transforms/Vectorize/LoopVectorize.h>

#include <array>
#include <cstddef>

namespace allot::codegen {
namespace {

using llvm::Value;

// ---------------------------------------------------------------- target

// Registers the host target once per process; false when LLVM has no backend for it.
bool initialise_native_target() {
  static const bool ready = [] {
    return !llvm::InitializeNativeTarget() && !llvm::InitializeNativeTargetAsmPrinter() &&
           !llvm::InitializeNativeTargetAsmParser();
  }();
  return ready;
}

// The code generator's effort per level (see optimise): fast instruction
// selection and register allocation below 2, the full generator from 2.
llvm::CodeGenOptLevel codegen_level(int optimization_level) {
  if (optimization_level <= 1) return llvm::CodeGenOptLevel::None;
  return optimization_level == 2 ? llvm::CodeGenOptLevel::Default : llvm::CodeGenOptLevel::Aggressive;
}

// A target machine for this CPU (all its vector extensions), position-independent
// small-code-model code as JITLink expects, and no FMA contraction: a*b+c must
// round twice, as in the interpreter.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> host_target_machine(int optimization_level) {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return builder.takeError();
  builder->setCodeGenOptLevel(codegen_level(optimization_level));
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeModel(llvm::CodeModel::Small);
  llvm::TargetOptions& options = builder->getOptions();
  options.AllowFPOpFusion = llvm::FPOpFusion::Strict;
  options.UnsafeFPMath = false;
  options.NoInfsFPMath = false;
  options.NoNaNsFPMath = false;
  options.NoSignedZerosFPMath = false;
  return builder->createTargetMachine();
}

// ---------------------------------------------------------------- libm

// The libm calls, declared pure (they only ever write errno, which nobody
// reads) so LLVM may hoist and vectorise around them. Each has vector variants
// that call the scalar function lane by lane: the loop vectoriser can then
// widen a loop containing log/exp/pow while every lane still gets libm's bits.
class MathFunctions {
 public:
  enum Kind { log, exp, pow };

  explicit MathFunctions(llvm::Module& module) : module_(module) {}

  // A call of `kind`. The variants are named on the call, not on the
  // declaration: the variants' own scalar calls must not name them, or the SLP
  // vectoriser turns a variant into a call to itself.
  Value* call(llvm::IRBuilder<>& b, Kind kind, llvm::ArrayRef<Value*> arguments) {
    const Declared& declared = declared_for(kind);
    llvm::CallInst* call = b.CreateCall(declared.scalar, arguments);
    call->addFnAttr(llvm::Attribute::get(b.getContext(), "vector-function-abi-variant", declared.variants));
    return call;
  }

 private:
  struct Declared {
    llvm::Function* scalar;
    std::string variants;  // the vector-function-abi-variant mappings
  };

  static constexpr std::array<unsigned, 3> kVectorWidths = {2, 4, 8};

  static void mark_pure(llvm::Function* function) {
    function->setDoesNotAccessMemory();
    function->setDoesNotThrow();
    function->setWillReturn();
    function->addFnAttr(llvm::Attribute::NoSync);
    function->addFnAttr(llvm::Attribute::NoFree);
  }

  static Declared declare(llvm::Module& module, std::string_view name, unsigned arity) {
    llvm::Type* f64 = llvm::Type::getDoubleTy(module.getContext());
    auto* type = llvm::FunctionType::get(f64, llvm::SmallVector<llvm::Type*, 2>(arity, f64), false);
    auto* scalar = llvm::Function::Create(type, llvm::Function::ExternalLinkage, llvm::StringRef(name), module);
    mark_pure(scalar);
    std::string variants;
    for (unsigned width : kVectorWidths) {
      llvm::Function* vector = define_lanewise(module, scalar, width);
      if (!variants.empty()) variants += ',';
      variants += "_ZGV_LLVM_N" + std::to_string(width) + std::string(arity, 'v') + "_" + std::string(name) + "(" +
                  vector->getName().str() + ")";
    }
    return {scalar, variants};
  }

  // `<width x double> name.vN(<width x double>...)`: the scalar function on each lane.
  static llvm::Function* define_lanewise(llvm::Module& module, llvm::Function* scalar, unsigned width) {
    llvm::LLVMContext& context = module.getContext();
    auto* vector_type = llvm::FixedVectorType::get(llvm::Type::getDoubleTy(context), width);
    const unsigned arity = scalar->arg_size();
    auto* type = llvm::FunctionType::get(vector_type, llvm::SmallVector<llvm::Type*, 2>(arity, vector_type), false);
    auto* vector = llvm::Function::Create(type, llvm::Function::InternalLinkage,
                                          scalar->getName() + ".v" + llvm::Twine(width), module);
    mark_pure(vector);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", vector));
    Value* result = llvm::PoisonValue::get(vector_type);
    for (unsigned lane = 0; lane < width; ++lane) {
      llvm::SmallVector<Value*, 2> lanes;
      for (llvm::Argument& argument : vector->args()) lanes.push_back(b.CreateExtractElement(&argument, lane));
      result = b.CreateInsertElement(result, b.CreateCall(scalar, lanes), lane);
    }
    b.CreateRet(result);
    // Nothing calls it until the vectoriser does: keep it alive until then.
    llvm::appendToCompilerUsed(module, {vector});
    return vector;
  }

  // Declared on first use: a policy without log/exp/pow carries no variants
  // through the pipeline.
  const Declared& declared_for(Kind kind) {
    static constexpr std::string_view kNames[] = {kLogSymbol, kExpSymbol, kPowSymbol};
    if (!functions_[kind]) functions_[kind] = declare(module_, kNames[kind], kind == pow ? 2 : 1);
    return *functions_[kind];
  }

  llvm::Module& module_;
  std::array<std::optional<Declared>, 3> functions_;
};

// ---------------------------------------------------------------- fields

// Where one subject's (the job or victim, or the requester) fields come from:
// its table and the column base pointers, loaded once before any loop.
struct SubjectColumns {
  Value* table = nullptr;  // const abi::JobTable*
  std::array<Value*, abi::kJobFieldCount> job_columns{};
  Value* account_rows = nullptr;  // const int32_t*: JobTable::account
  std::array<Value*, abi::kAccountFieldCount> account_columns{};
};

// Loads a pointer or double at `offset` bytes into the struct `base` points to.
Value* load_member(llvm::IRBuilder<>& b, llvm::Type* type, Value* base, std::size_t offset, const llvm::Twine& name) {
  Value* address = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, offset);
  return b.CreateAlignedLoad(type, address, llvm::Align(8), name);
}

std::size_t job_column_offset(std::uint32_t field) {
  return offsetof(abi::JobTable, columns) + field * sizeof(const double*);
}

std::size_t account_column_offset(std::uint32_t field) {
  return offsetof(abi::AccountTable, columns) + field * sizeof(const double*);
}

// The nodes `function.result` depends on (the others are never emitted, so a
// column they name may legitimately be null).
std::vector<bool> live_nodes(const ir::Function& function) {
  std::vector<bool> live(function.nodes.size(), false);
  live[function.result] = true;
  for (std::size_t id = function.result + 1; id-- > 0;) {
    if (!live[id]) continue;
    const ir::Node& node = function.nodes[id];
    const ir::NodeId operands[] = {node.a, node.b, node.c};
    for (int k = 0; k < ir::arity(node.op); ++k) live[operands[k]] = true;
  }
  return live;
}

// ---------------------------------------------------------------- expressions

// Emits one IR function's value as straight-line LLVM IR.
class ExpressionEmitter {
 public:
  ExpressionEmitter(llvm::IRBuilder<>& b, MathFunctions& math, Value* accounts, Value* cluster)
      : b_(b), math_(math), accounts_(accounts), cluster_(cluster) {}

  // In the current block: loads the column base pointers and cluster values
  // the live nodes of `function` read. `tables[s]` is subject s's JobTable.
  void load_columns(const ir::Function& function, const std::array<Value*, 2>& tables) {
    live_ = live_nodes(function);
    for (std::size_t s = 0; s < 2; ++s) subjects_[s].table = tables[s];
    for (std::size_t id = 0; id < function.nodes.size(); ++id) {
      if (live_[id]) load_columns_of(function.nodes[id]);
    }
  }

  // The value of `function.result` for job rows `rows[s]` (i64) of each subject.
  Value* emit(const ir::Function& function, const std::array<Value*, 2>& rows) {
    std::vector<Value*> values(function.nodes.size(), nullptr);
    for (std::size_t id = 0; id < function.nodes.size(); ++id) {
      if (live_[id]) values[id] = emit_node(function.nodes[id], values, rows);
    }
    return values[function.result];
  }

  // NaN ? 0 : value: a rank the runtime can always sort.
  Value* zero_if_nan(Value* value) { return b_.CreateSelect(b_.CreateFCmpUNO(value, value), f64(0.0), value); }

  // A preempt decision, 1 or 0.
  Value* decision(Value* value) { return b_.CreateZExt(is_true(value), b_.getInt8Ty()); }

 private:
  SubjectColumns& subject(ir::Subject s) { return subjects_[static_cast<std::size_t>(s)]; }

  void load_columns_of(const ir::Node& node) {
    SubjectColumns& columns = subject(node.subject);
    llvm::Type* ptr = b_.getPtrTy();
    switch (node.op) {
      case ir::Op::job_field:
        if (!columns.job_columns[node.field])
          columns.job_columns[node.field] = load_member(b_, ptr, columns.table, job_column_offset(node.field), "col");
        break;
      case ir::Op::account_field:
        if (!columns.account_columns[node.field])
          columns.account_columns[node.field] =
              load_member(b_, ptr, accounts_, account_column_offset(node.field), "account_col");
        [[fallthrough]];
      case ir::Op::account_row:
        if (!columns.account_rows)
          columns.account_rows = load_member(b_, ptr, columns.table, offsetof(abi::JobTable, account), "rows");
        break;
      case ir::Op::cluster_field:
        if (!cluster_values_[node.field])
          cluster_values_[node.field] =
              load_member(b_, b_.getDoubleTy(), cluster_,
                          offsetof(abi::ClusterView, values) + node.field * sizeof(double), "cluster");
        break;
      default:
        break;
    }
  }

  Value* element(llvm::Type* type, Value* column, Value* index) {
    Value* address = b_.CreateInBoundsGEP(type, column, index);
    return b_.CreateAlignedLoad(type, address, llvm::Align(type->getPrimitiveSizeInBits() / 8));
  }

  // The i64 row in the AccountTable of the subject's job `row`.
  Value* account_row(const SubjectColumns& columns, Value* row) {
    return b_.CreateSExt(element(b_.getInt32Ty(), columns.account_rows, row), b_.getInt64Ty());
  }

  Value* emit_load(const ir::Node& node, const std::array<Value*, 2>& rows) {
    const SubjectColumns& columns = subject(node.subject);
    Value* row = rows[static_cast<std::size_t>(node.subject)];
    switch (node.op) {
      case ir::Op::job_field:
        return element(b_.getDoubleTy(), columns.job_columns[node.field], row);
      case ir::Op::account_field:
        return element(b_.getDoubleTy(), columns.account_columns[node.field], account_row(columns, row));
      case ir::Op::account_row:
        return b_.CreateSIToFP(element(b_.getInt32Ty(), columns.account_rows, row), b_.getDoubleTy());
      default:
        return cluster_values_[node.field];
    }
  }

  Value* f64(double value) { return llvm::ConstantFP::get(b_.getDoubleTy(), value); }
  Value* truth(Value* condition) { return b_.CreateSelect(condition, f64(1.0), f64(0.0)); }
  Value* is_true(Value* value) { return b_.CreateFCmpUNE(value, f64(0.0)); }

  Value* emit_node(const ir::Node& node, const std::vector<Value*>& values, const std::array<Value*, 2>& rows) {
    if (node.op == ir::Op::constant) return f64(node.value);
    if (ir::arity(node.op) == 0) return emit_load(node, rows);
    Value* a = values[node.a];
    Value* b = ir::arity(node.op) > 1 ? values[node.b] : nullptr;
    Value* c = ir::arity(node.op) > 2 ? values[node.c] : nullptr;
    return emit_compute(node.op, a, b, c);
  }

  // The formulas of ir/semantics.h `apply`, one for one.
  Value* emit_compute(ir::Op op, Value* a, Value* b, Value* c) {
    switch (op) {
      case ir::Op::add:
        return b_.CreateFAdd(a, b);
      case ir::Op::sub:
        return b_.CreateFSub(a, b);
      case ir::Op::mul:
        return b_.CreateFMul(a, b);
      case ir::Op::div:
        return b_.CreateSelect(b_.CreateFCmpOEQ(b, f64(0.0)), f64(0.0), b_.CreateFDiv(a, b));
      case ir::Op::pow:
        return zero_if_nan(math_.call(b_, MathFunctions::pow, {a, b}));
      case ir::Op::neg:
        return b_.CreateFNeg(a);
      case ir::Op::min:
        a = zero_if_nan(a), b = zero_if_nan(b);
        return b_.CreateSelect(b_.CreateFCmpOLT(a, b), a, b);
      case ir::Op::max:
        a = zero_if_nan(a), b = zero_if_nan(b);
        return b_.CreateSelect(b_.CreateFCmpOGT(a, b), a, b);
      case ir::Op::abs:
        return b_.CreateSelect(b_.CreateFCmpOLT(a, f64(0.0)), b_.CreateFNeg(a), a);
      case ir::Op::log:
        return b_.CreateSelect(b_.CreateFCmpOGT(a, f64(0.0)), math_.call(b_, MathFunctions::log, {a}), f64(0.0));
      case ir::Op::exp:
        return math_.call(b_, MathFunctions::exp, {a});
      case ir::Op::sqrt:
        return b_.CreateSelect(b_.CreateFCmpOGE(a, f64(0.0)), b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a),
                               f64(0.0));
      default:
        return emit_logic(op, a, b, c);
    }
  }

  Value* emit_logic(ir::Op op, Value* a, Value* b, Value* c) {
    switch (op) {
      case ir::Op::lt:
        return truth(b_.CreateFCmpOLT(a, b));
      case ir::Op::le:
        return truth(b_.CreateFCmpOLE(a, b));
      case ir::Op::gt:
        return truth(b_.CreateFCmpOGT(a, b));
      case ir::Op::ge:
        return truth(b_.CreateFCmpOGE(a, b));
      case ir::Op::eq:
        return truth(b_.CreateFCmpOEQ(a, b));
      case ir::Op::ne:
        return truth(b_.CreateFCmpUNE(a, b));
      case ir::Op::logical_and:
        return truth(b_.CreateAnd(is_true(a), is_true(b)));
      case ir::Op::logical_or:
        return truth(b_.CreateOr(is_true(a), is_true(b)));
      case ir::Op::logical_not:
        return truth(b_.CreateFCmpOEQ(a, f64(0.0)));
      default:
        return b_.CreateSelect(is_true(a), b, c);  // select
    }
  }

 private:
  llvm::IRBuilder<>& b_;
  MathFunctions& math_;
  Value* accounts_;
  Value* cluster_;
  std::vector<bool> live_;
  std::array<SubjectColumns, 2> subjects_;
  std::array<Value*, abi::kClusterFieldCount> cluster_values_{};
};

// ---------------------------------------------------------------- entry points

// A function with the given signature, nounwind, every pointer argument
// read-only and not captured.
llvm::Function* define_entry(llvm::Module& module, std::string_view name, llvm::Type* result,
                             llvm::ArrayRef<llvm::Type*> parameters) {
  auto* type = llvm::FunctionType::get(result, parameters, false);
  auto* function = llvm::Function::Create(type, llvm::Function::ExternalLinkage, llvm::StringRef(name), module);
  function->setDoesNotThrow();
  for (llvm::Argument& argument : function->args()) {
    if (!argument.getType()->isPointerTy()) continue;
    argument.addAttr(llvm::Attribute::NoCapture);
    argument.addAttr(llvm::Attribute::ReadOnly);
  }
  return function;
}

// double allot_rank_one(const JobTable*, size_t job, const AccountTable*, const ClusterView*)
void define_rank_one(llvm::Module& module, MathFunctions& math, const ir::Function& rank) {
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Function* function =
      define_entry(module, kRankOneSymbol, llvm::Type::getDoubleTy(context), {ptr, i64, ptr, ptr});
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", function));
  ExpressionEmitter emitter(b, math, function->getArg(2), function->getArg(3));
  emitter.load_columns(rank, {function->getArg(0), function->getArg(0)});
  b.CreateRet(emitter.zero_if_nan(emitter.emit(rank, {function->getArg(1), function->getArg(1)})));
}

// void allot_rank_batch(const JobTable*, const AccountTable*, const ClusterView*,
//                       size_t begin, size_t end, double* noalias out)
// Column pointers are loaded before the loop; the body is branch-free and the
// only store goes through `out`, which aliases no input column (the ABI's
// contract), so the loop vectoriser can widen it, gathering account fields.
void define_rank_batch(llvm::Module& module, MathFunctions& math, const ir::Function& rank) {
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Function* function =
      define_entry(module, kRankBatchSymbol, llvm::Type::getVoidTy(context), {ptr, ptr, ptr, i64, i64, ptr});
  llvm::Argument* out = function->getArg(5);
  out->removeAttr(llvm::Attribute::ReadOnly);
  out->addAttr(llvm::Attribute::WriteOnly);
  out->addAttr(llvm::Attribute::NoAlias);

  auto* entry = llvm::BasicBlock::Create(context, "entry", function);
  auto* loop = llvm::BasicBlock::Create(context, "loop", function);
  auto* exit = llvm::BasicBlock::Create(context, "exit", function);
  llvm::IRBuilder<> b(entry);
  ExpressionEmitter emitter(b, math, function->getArg(1), function->getArg(2));
  emitter.load_columns(rank, {function->getArg(0), function->getArg(0)});
  Value* begin = function->getArg(3);
  Value* count = b.CreateSub(function->getArg(4), begin, "count");
  b.CreateCondBr(b.CreateICmpULT(begin, function->getArg(4)), loop, exit);

  b.SetInsertPoint(loop);
  llvm::PHINode* k = b.CreatePHI(i64, 2, "k");
  k->addIncoming(b.getInt64(0), entry);
  Value* row = b.CreateAdd(begin, k, "row");
  Value* value = emitter.zero_if_nan(emitter.emit(rank, {row, row}));
  b.CreateAlignedStore(value, b.CreateInBoundsGEP(b.getDoubleTy(), out, k), llvm::Align(8));
  Value* next = b.CreateAdd(k, b.getInt64(1), "k.next", /*HasNUW=*/true);
  k->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpEQ(next, count), exit, loop);

  b.SetInsertPoint(exit);
  b.CreateRetVoid();
}

// uint8_t allot_preempt(const JobTable* victims, size_t victim, const JobTable* requesters,
//                       size_t requester, const AccountTable*, const ClusterView*)
void define_preempt(llvm::Module& module, MathFunctions& math, const ir::Function& preempt) {
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Function* function =
      define_entry(module, kPreemptSymbol, llvm::Type::getInt8Ty(context), {ptr, i64, ptr, i64, ptr, ptr});
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", function));
  ExpressionEmitter emitter(b, math, function->getArg(4), function->getArg(5));
  emitter.load_columns(preempt, {function->getArg(0), function->getArg(2)});
  b.CreateRet(emitter.decision(emitter.emit(preempt, {function->getArg(1), function->getArg(3)})));
}

// ---------------------------------------------------------------- pipeline

std::unique_ptr<llvm::Module> lower_policy(llvm::LLVMContext& context, const ir::LoweredPolicy& policy,
                                           const llvm::TargetMachine& machine) {
  auto module = std::make_unique<llvm::Module>(policy.tables.name.empty() ? "policy" : policy.tables.name, context);
  module->setDataLayout(machine.createDataLayout());
  module->setTargetTriple(machine.getTargetTriple().str());
  MathFunctions math(*module);
  define_rank_one(*module, math, policy.rank);
  define_rank_batch(*module, math, policy.rank);
  if (policy.preempt) define_preempt(*module, math, *policy.preempt);
  for (llvm::Function& function : *module) {
    function.addFnAttr("target-cpu", machine.getTargetCPU());
    function.addFnAttr("target-features", machine.getTargetFeatureString());
  }
  return module;
}

// The passes that matter for policy code: the IR arrives folded and CSE'd,
// branch-free, with column loads already hoisted and no calls to inline, so
// what is left is simplifying the select/compare chains and vectorising the
// batch loop. Against LLVM's full -O2 pipeline this halves optimisation time
// with the same ranking speed (docs/PERFORMANCE.md, "Compile").
llvm::ModulePassManager policy_pipeline() {
  llvm::FunctionPassManager passes;
  passes.addPass(llvm::EarlyCSEPass());
  passes.addPass(llvm::InstCombinePass());
  passes.addPass(llvm::SimplifyCFGPass());
  passes.addPass(llvm::LoopSimplifyPass());
  passes.addPass(llvm::LCSSAPass());
  passes.addPass(llvm::LoopVectorizePass(llvm::LoopVectorizeOptions()));
  passes.addPass(llvm::InstCombinePass());  // clean up after the vectoriser
  passes.addPass(llvm::SimplifyCFGPass());
  llvm::ModulePassManager module_passes;
  module_passes.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(passes)));
  return module_passes;
}

// Optimises with the new pass manager. Levels: 0 nothing (LLVM's -O0);
// 1 and 2 the policy pipeline above (with fast or full code generation, see
// codegen_level); 3 LLVM's complete -O3 pipeline.
void optimise(llvm::Module& module, llvm::TargetMachine& machine, int level) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;  // as clang sets them at -O3
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager pipeline = level <= 0   ? builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                     : level <= 2 ? policy_pipeline()
                                                  : builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(module, modules);
}

// Object code or assembly for the module, through the target's code generator.
std::optional<std::string> generate_code(llvm::Module& module, llvm::TargetMachine& machine, bool assembly,
                                         std::string& error) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  const auto kind = assembly ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
  if (machine.addPassesToEmitFile(passes, stream, nullptr, kind)) {
    error = "the host target cannot emit machine code";
    return std::nullopt;
  }
  passes.run(module);
  return std::string(buffer.begin(), buffer.end());
}

// Removes the vector variants the vectoriser did not use (they were only kept
// alive for it) and libm declarations nothing calls, so the code and the
// printed module hold only what runs.
void drop_unused_functions(llvm::Module& module) {
  if (llvm::GlobalVariable* kept = module.getGlobalVariable("llvm.compiler.used")) kept->eraseFromParent();
  // Twice: a libm declaration becomes unused once the variants calling it are gone.
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<llvm::Function*> unused;
    for (llvm::Function& function : module) {
      function.removeDeadConstantUsers();
      if (function.use_empty() && (function.hasLocalLinkage() || function.isDeclaration())) unused.push_back(&function);
    }
    for (llvm::Function* function : unused) function->eraseFromParent();
  }
}

std::string module_text(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  stream.flush();
  return text;
}

// Checks the IR before LLVM sees it: malformed input must become an error, not
// an LLVM assertion or a crash.
std::string find_malformed_policy(const ir::LoweredPolicy& policy) {
  if (std::string problem = find_malformed_node(policy.rank, false); !problem.empty()) return "rank: " + problem;
  if (!policy.preempt) return "";
  if (std::string problem = find_malformed_node(*policy.preempt, true); !problem.empty()) return "preempt: " + problem;
  return "";
}

}  // namespace

std::optional<std::string> build_native(const ir::LoweredPolicy& policy, int optimization_level, NativeOutput output,
                                        std::string& error) {
  if (error = find_malformed_policy(policy); !error.empty()) return std::nullopt;
  if (!initialise_native_target()) {
    error = "LLVM has no code generator for this machine";
    return std::nullopt;
  }
  auto machine = host_target_machine(optimization_level);
  if (!machine) {
    error = "cannot target this machine: " + llvm::toString(machine.takeError());
    return std::nullopt;
  }
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = lower_policy(context, policy, **machine);
  std::string problems;
  llvm::raw_string_ostream problem_stream(problems);
  if (llvm::verifyModule(*module, &problem_stream)) {
    error = "generated LLVM IR is invalid: " + problems;
    return std::nullopt;
  }
  optimise(*module, **machine, optimization_level);
  drop_unused_functions(*module);
  if (output == NativeOutput::llvm_text) return module_text(*module);
  return generate_code(*module, **machine, output == NativeOutput::assembly, error);
}

}  // namespace allot::codegen
