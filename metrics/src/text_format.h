// The pieces of the text exposition format 0.0.4: numbers as Prometheus parses
// them, the two escapings, and one sample line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace allot::metrics {

// "+Inf", "-Inf", "NaN"; an integral value below 2^63 as an integer (no
// exponent); any other the shortest text that reads back as the same double.
std::string format_value(double value);

// A label value: backslash, double quote and newline escaped.
std::string escape_label_value(std::string_view value);

// A HELP text: backslash and newline escaped.
std::string escape_help(std::string_view help);

// One label of a sample beyond a family's own (a histogram bucket's `le`).
struct ExtraLabel {
  std::string_view name;
  std::string value;
};

// Appends `name{label="value",...} value\n`, without braces when there are no labels.
void append_sample(std::string& out, std::string_view name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& label_values, const ExtraLabel* extra, double value);

}  // namespace allot::metrics
