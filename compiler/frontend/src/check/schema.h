// What a policy can read: the fields of `job`, `account` and `cluster`, the
// names `rank` and `preempt` see and the builtin functions (the gate metrics
// are allot/gates.h's, shared with the simulator).
//
// This is the one table of that vocabulary. The checker reads it to type
// expressions; the runtime ABI is generated from it, so a field is added here
// and nowhere else. Entries are plain data, in the order they are documented.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "types.h"

namespace allot {

// One field of a record type, `job.wait: duration`.
struct FieldSchema {
  std::string_view name;
  Type type;
  std::string_view doc;  // what the runtime puts there, for docs and the ABI
};

// The fields of a record type (`job`, `account`, `cluster`); empty for others.
std::span<const FieldSchema> record_fields(Type record);

// The field `name` of `record`, or nullptr.
const FieldSchema* find_field(Type record, std::string_view name);

// A name an entry point binds: `rank` sees `job`, `account`, `cluster`.
struct InputSchema {
  std::string_view name;
  Type type;
  std::string_view doc;
};

// The inputs of `rank = ...`, in ABI order.
std::span<const InputSchema> rank_inputs();

// The inputs of `preempt when ...`, in ABI order.
std::span<const InputSchema> preempt_inputs();

// Which argument types a builtin accepts.
enum class ArgumentRule {
  same_quantity,  // all arguments one of number, duration, percent, date; result that type
  same_signed,    // one of number, duration, percent (`abs`); result that type
  number_only,    // numbers; result number
};

// A builtin function. `max_arguments` is nullopt when it takes any number.
struct BuiltinSchema {
  std::string_view name;
  std::size_t min_arguments;
  std::optional<std::size_t> max_arguments;
  ArgumentRule rule;
  std::string_view usage;  // how a call is written, for help text
  std::string_view doc;
};

// Every builtin function.
std::span<const BuiltinSchema> builtin_functions();

// The builtin `name`, or nullptr.
const BuiltinSchema* find_builtin(std::string_view name);

// The types each argument of `rule` may have.
std::span<const Type> accepted_argument_types(ArgumentRule rule);

}  // namespace allot
