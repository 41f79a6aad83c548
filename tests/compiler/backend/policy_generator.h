// A seeded generator of well-typed policies, as source text: random `rank`
// and `preempt` expressions over the whole expression grammar (arithmetic
// with units, comparisons, and/or/not, if, let, match on class and label,
// the builtins, fields of every record, small user functions that call each
// other). Every policy it writes passes `allot check`; the differential test
// compiles each with both engines and compares them.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "check/types.h"

namespace allot::testing {

// A function generated policies may call: a generated one or a library's.
struct CallableFunction {
  std::string name;
  std::vector<Type> parameters;
  Type result = Type::number;
};

// What a generated policy declares and may call besides its own functions.
struct Vocabulary {
  std::vector<std::string> imports;       // import paths, as written
  std::vector<std::string> classes;       // class names visible to the policy
  bool declare_classes = true;            // false when an import declares them
  std::vector<CallableFunction> library;  // imported functions
};

// The classes a generated policy declares when no library does.
const std::vector<std::string>& generated_class_names();

class PolicyGenerator {
 public:
  PolicyGenerator(std::uint64_t seed, Vocabulary vocabulary);
  // A whole policy: the fixed skeleton, 0-3 functions, `rank` and `preempt`.
  std::string policy();
  // A policy whose `rank` and `preempt` call every library function at least once.
  std::string library_harness();

 private:
  std::string skeleton(const std::string& functions, const std::string& rank, const std::string& preempt) const;
  std::string user_functions(std::vector<CallableFunction>& callable);
  std::string user_function(int index, std::vector<CallableFunction>& callable);
  std::string every_library_call(Type wanted);

  std::mt19937_64 random_;
  Vocabulary vocabulary_;
  int next_name_ = 0;
};

}  // namespace allot::testing
