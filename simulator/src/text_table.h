// A terminal table: a label column, then aligned cells, by the columns a
// terminal shows (support::display_width: colour codes count nothing, a wide
// character two). The comparison table and the load sweep use it.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "allot/text.h"

namespace allot::simulator {

// Rows of label + one cell per column, printed with aligned columns.
class Table {
 public:
  // Names in the header, labels and cells may come from input (policy names on
  // the command line, trace fields): each is stored printable(), keeping only
  // the colour verdict() itself put around a cell.
  Table(std::vector<std::string> header, bool color) : color_(color) {
    for (const std::string& name : header) header_.push_back(support::printable(name));
  }

  void row(std::string label, std::vector<std::string> cells) {
    for (std::string& cell : cells) cell = shown(cell);
    rows_.push_back({support::printable(label), std::move(cells)});
  }
  void section(std::string title) { rows_.push_back({support::printable(title), {}}); }

  std::string render() const {
    std::size_t label_width = 0;
    std::vector<std::size_t> widths(header_.size(), 0);
    for (std::size_t c = 0; c < header_.size(); ++c) widths[c] = support::display_width(header_[c]);
    for (const auto& [label, cells] : rows_) {
      label_width = std::max(label_width, support::display_width(label));
      for (std::size_t c = 0; c < cells.size() && c < widths.size(); ++c)
        widths[c] = std::max(widths[c], support::display_width(cells[c]));
    }
    std::string out = "  " + std::string(label_width, ' ');
    for (std::size_t c = 0; c < header_.size(); ++c) out += "  " + support::pad_left(header_[c], widths[c]);
    out += "\n";
    for (const auto& [label, cells] : rows_) {
      out += "  " + support::pad_right(label, label_width);
      for (std::size_t c = 0; c < cells.size(); ++c) {
        out += "  " + support::pad_left(cells[c], c < widths.size() ? widths[c] : 0);
      }
      out += "\n";
    }
    return out;
  }

  // A verdict, coloured on a terminal.
  std::string verdict(bool passed, const std::string& text) const {
    if (!color_) return text;
    return std::string(passed ? kGreen : kRed) + text + std::string(kReset);
  }

 private:
  static constexpr std::string_view kGreen = "\x1b[32m", kRed = "\x1b[31m", kReset = "\x1b[0m";

  // A cell as printed: printable(), except the colour of a verdict() around it.
  static std::string shown(std::string_view cell) {
    for (std::string_view color : {kGreen, kRed}) {
      if (cell.size() >= color.size() + kReset.size() && cell.substr(0, color.size()) == color &&
          cell.substr(cell.size() - kReset.size()) == kReset) {
        const std::string_view text = cell.substr(color.size(), cell.size() - color.size() - kReset.size());
        return std::string(color) + support::printable(text) + std::string(kReset);
      }
    }
    return support::printable(cell);
  }

  std::vector<std::string> header_;
  bool color_;
  std::vector<std::pair<std::string, std::vector<std::string>>> rows_;
};

}  // namespace allot::simulator
