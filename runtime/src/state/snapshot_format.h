// Spellings shared by the snapshot reader and writer (docs/STATE.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace allot::runtime::snapshot {

// The baseline priority label as a snapshot writes it: "none", "low", "medium", "high".
const char* label_name(int label);
// The label a name stands for, or nullopt.
std::optional<int> label_value(std::string_view name);

// A TOML basic string with quotes and escapes: "exploration/ana".
std::string quoted(std::string_view text);
// A key: bare when it can be (`gpus_per_node`), quoted otherwise (`"exploration/ana"`).
std::string key(std::string_view text);
// A number that reads back as the same double (shortest form; -0 as 0).
std::string number(double value);

}  // namespace allot::runtime::snapshot
