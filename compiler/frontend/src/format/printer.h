// Turns a Doc into text: each group is printed on one line when it fits in the
// line width (counting the rest of the line), otherwise its line breaks are
// taken. Trailing spaces never reach the output and it ends with one newline.
#pragma once

#include <string>

#include "doc.h"

namespace allot::format {

// The widest line the formatter aims for, in code points.
inline constexpr int kLineWidth = 100;

// Renders `doc`; empty when the doc prints nothing.
std::string print(const Doc& doc, int width = kLineWidth);

// The number of code points in UTF-8 `text`.
int display_width(const std::string& text);

}  // namespace allot::format
