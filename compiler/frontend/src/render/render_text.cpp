// Human-readable diagnostics in the style of rustc and clang.
#include <fmt/format.h>

#include <algorithm>

#include "allot/frontend.h"
#include "allot/text.h"

namespace allot {
namespace {

struct Palette {
  const char* error = "";
  const char* warning = "";
  const char* gutter = "";
  const char* bold = "";
  const char* reset = "";
};

Palette palette(TextStyle style) {
  if (!style.color) return {};
  return {"\x1b[1;31m", "\x1b[1;33m", "\x1b[1;34m", "\x1b[1m", "\x1b[0m"};
}

std::string line_of(const std::string& text, int line) {
  std::size_t begin = 0;
  for (int current = 1; current < line; ++current) {
    begin = text.find('\n', begin);
    if (begin == std::string::npos) return "";
    ++begin;
  }
  std::size_t end = text.find('\n', begin);
  std::string result = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  if (!result.empty() && result.back() == '\r') result.pop_back();
  return result;
}

// Byte offset of the code point at 1-based `column` (or the line's end).
std::size_t byte_offset(const std::string& line, int column) {
  std::size_t offset = 0;
  for (int current = 1; current < column && offset < line.size(); ++current) {
    ++offset;
    while (offset < line.size() && (static_cast<unsigned char>(line[offset]) & 0xC0) == 0x80) ++offset;
  }
  return offset;
}

// Spaces (keeping tabs) that line a caret up under `column`.
std::string indent_to(const std::string& line, int column) {
  std::string prefix = line.substr(0, byte_offset(line, column));
  std::string result;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if ((static_cast<unsigned char>(prefix[i]) & 0xC0) == 0x80) continue;
    result += prefix[i] == '\t' ? '\t' : ' ';
  }
  return result;
}

void render_snippet(std::string& out, const Diagnostic& d, const std::string& text, const Palette& p) {
  const std::string line = line_of(text, d.span.line);
  const std::string number = std::to_string(d.span.line);
  const std::string pad(number.size(), ' ');
  const int line_length = static_cast<int>(
      std::count_if(line.begin(), line.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  const int last = d.span.end_line == d.span.line ? d.span.end_column : line_length + 1;
  const int width = std::max(1, last - d.span.column);
  out += fmt::format("{}{} |{}\n", p.gutter, pad, p.reset);
  out += fmt::format("{}{} |{} {}\n", p.gutter, number, p.reset, support::printable(line));
  const char* color = d.severity == Severity::error ? p.error : p.warning;
  out += fmt::format("{}{} |{} {}{}{}{}\n", p.gutter, pad, p.reset, indent_to(line, d.span.column), color,
                     std::string(static_cast<std::size_t>(width), '^'), p.reset);
}

void render_one(std::string& out, const Diagnostic& d, const SourceTexts& sources, const Palette& p) {
  const bool error = d.severity == Severity::error;
  out += fmt::format("{}{}[{}]{}{}: {}{}\n", error ? p.error : p.warning, error ? "error" : "warning", d.code, p.reset,
                     p.bold, support::printable(d.message), p.reset);
  if (d.span.line <= 0) {
    out += fmt::format("  {}-->{} {}\n", p.gutter, p.reset, support::printable(d.span.file));
  } else {
    const std::string pad(std::to_string(d.span.line).size(), ' ');
    out += fmt::format("{}{}-->{} {}:{}:{}\n", pad, p.gutter, p.reset, support::printable(d.span.file), d.span.line,
                       d.span.column);
    auto source = sources.find(d.span.file);
    if (source != sources.end()) render_snippet(out, d, source->second, p);
  }
  const std::string pad(d.span.line > 0 ? std::to_string(d.span.line).size() : 1, ' ');
  for (const auto& note : d.notes) {
    out +=
        fmt::format("{} {}={} {}note{}: {}", pad, p.gutter, p.reset, p.bold, p.reset, support::printable(note.message));
    if (note.span)
      out += fmt::format(" ({}:{}:{})", support::printable(note.span->file), note.span->line, note.span->column);
    out += "\n";
  }
  if (!d.help.empty())
    out += fmt::format("{} {}={} {}help{}: {}\n", pad, p.gutter, p.reset, p.bold, p.reset, support::printable(d.help));
}

}  // namespace

std::string render_text(const std::vector<Diagnostic>& diagnostics, const SourceTexts& sources, TextStyle style) {
  const Palette p = palette(style);
  std::string out;
  for (const auto& diagnostic : diagnostics) {
    render_one(out, diagnostic, sources, p);
    out += "\n";
  }
  return out;
}

}  // namespace allot
