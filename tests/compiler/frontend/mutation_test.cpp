// Deterministic mutation testing of the front end: every policy, library and
// golden input is damaged in thousands of small ways (lines deleted, duplicated
// or swapped, bytes flipped, inserted or deleted, the file truncated, a slice
// repeated) and the checker and formatter must still behave: no exception,
// well-formed diagnostics on real lines, and idempotent formatting.
//
// The mutants come from a fixed seed, so a failure names a mutant that
// reproduces. ALLOT_MUTATIONS sets how many mutants to try (default 3000).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "allot/frontend.h"
#include "parse/parse_tree.h"

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream contents;
  contents << stream.rdbuf();
  return contents.str();
}

// Every *.allot below the folders that hold real policies and test inputs.
std::vector<fs::path> policy_files() {
  std::vector<fs::path> files;
  for (const char* folder : {"policies", "stdlib", "tests/golden"}) {
    const fs::path root = fs::path(ALLOT_SOURCE_DIR) / folder;
    if (!fs::is_directory(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (entry.is_regular_file() && entry.path().extension() == ".allot") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::size_t mutation_count() {
  const char* setting = std::getenv("ALLOT_MUTATIONS");
  return setting != nullptr ? std::strtoul(setting, nullptr, 10) : 3000;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    end = end == std::string::npos ? text.size() : end + 1;
    lines.push_back(text.substr(begin, end - begin));
    begin = end;
  }
  return lines;
}

std::string join(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line;
  return text;
}

// One damaged copy of a file, and what was done to it (for the failure report).
struct Mutant {
  std::string text;
  std::string description;
};

class Mutator {
 public:
  explicit Mutator(std::uint32_t seed) : random_(seed) {}

  Mutant mutate(const std::string& original) {
    switch (below(8)) {
      case 0:
        return line_edit(original, "delete", [](auto& lines, std::size_t i, std::size_t) {
          lines.erase(lines.begin() + static_cast<long>(i));
        });
      case 1:
        return line_edit(original, "duplicate", [](auto& lines, std::size_t i, std::size_t) {
          lines.insert(lines.begin() + static_cast<long>(i), lines[i]);
        });
      case 2:
        return line_edit(original, "swap",
                         [](auto& lines, std::size_t i, std::size_t j) { std::swap(lines[i], lines[j]); });
      case 3:
        return flip_byte(original);
      case 4:
        return insert_byte(original);
      case 5:
        return delete_byte(original);
      case 6:
        return truncate(original);
      default:
        return repeat_slice(original);
    }
  }

 private:
  // A uniform integer in [0, bound), or 0 when bound is 0.
  std::size_t below(std::size_t bound) {
    if (bound == 0) return 0;
    return std::uniform_int_distribution<std::size_t>(0, bound - 1)(random_);
  }

  // Any byte, including NUL, control characters and bytes >= 0x80.
  char any_byte() { return static_cast<char>(below(256)); }

  template <typename Edit>
  Mutant line_edit(const std::string& original, const char* verb, Edit edit) {
    std::vector<std::string> lines = split_lines(original);
    if (lines.empty()) return {original, "no change (empty file)"};
    const std::size_t i = below(lines.size()), j = below(lines.size());
    edit(lines, i, j);
    return {join(lines), std::string(verb) + " line " + std::to_string(i + 1) +
                             (std::string(verb) == "swap" ? " with line " + std::to_string(j + 1) : "")};
  }

  Mutant flip_byte(std::string text) {
    if (text.empty()) return {text, "no change (empty file)"};
    const std::size_t at = below(text.size());
    const char replacement = any_byte();
    text[at] = replacement;
    return {text, "set byte " + std::to_string(at) + " to " + std::to_string(static_cast<unsigned char>(replacement))};
  }

  Mutant insert_byte(std::string text) {
    const std::size_t at = below(text.size() + 1);
    const char inserted = any_byte();
    text.insert(at, 1, inserted);
    return {text, "insert byte " + std::to_string(static_cast<unsigned char>(inserted)) + " at " + std::to_string(at)};
  }

  Mutant delete_byte(std::string text) {
    if (text.empty()) return {text, "no change (empty file)"};
    const std::size_t at = below(text.size());
    text.erase(at, 1);
    return {text, "delete byte " + std::to_string(at)};
  }

  Mutant truncate(const std::string& text) {
    const std::size_t at = below(text.size() + 1);
    return {text.substr(0, at), "truncate at byte " + std::to_string(at)};
  }

  Mutant repeat_slice(std::string text) {
    const std::size_t begin = below(text.size() + 1);
    const std::size_t length = below(std::min<std::size_t>(text.size() - begin, 200) + 1);
    const std::size_t copies = 1 + below(4);
    std::string slice = text.substr(begin, length);
    for (std::size_t i = 0; i < copies; ++i) text.insert(begin, slice);
    return {text, "repeat bytes " + std::to_string(begin) + ".." + std::to_string(begin + length) + " " +
                      std::to_string(copies) + " more times"};
  }

  std::mt19937 random_;
};

// Lines as an editor counts them (a final line without a newline counts too).
int line_count(const std::string& text) {
  const auto newlines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  return newlines + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

// What is wrong with one diagnostic, or empty.
std::string diagnostic_problem(const allot::Diagnostic& d, const allot::SourceTexts& sources) {
  if (d.code.empty()) return "a diagnostic has no code";
  if (d.message.empty()) return "`" + d.code + "` has no message";
  // Messages quote the input; a quote cut mid-character would corrupt JSON and terminals.
  if (allot::find_invalid_utf8(d.message) != std::string::npos)
    return "`" + d.code + "` has a message that is not UTF-8";
  if (d.span.line == 0) return d.code == "io_error" ? "" : "`" + d.code + "` has no line";
  const auto source = sources.find(d.span.file);
  if (source == sources.end()) return "`" + d.code + "` points into `" + d.span.file + "`, which was not read";
  const int last_line = line_count(source->second) + 1;
  if (d.span.line < 1 || d.span.line > last_line || d.span.column < 1) {
    return "`" + d.code + "` points at line " + std::to_string(d.span.line) + " column " +
           std::to_string(d.span.column) + " of a file with " + std::to_string(last_line - 1) + " lines";
  }
  if (std::make_pair(d.span.end_line, d.span.end_column) < std::make_pair(d.span.line, d.span.column)) {
    return "`" + d.code + "` ends before it begins";
  }
  return "";
}

// What is wrong with checking and formatting one mutant, or empty.
std::string mutant_problem(const std::string& name, const std::string& text) {
  allot::CheckOptions options;
  options.today = allot::parse_date("2026-12-01");
  try {
    const allot::CheckResult result = allot::check_source(name, text, options);
    bool any_error = false;
    for (const auto& d : result.diagnostics) {
      if (std::string problem = diagnostic_problem(d, result.sources); !problem.empty()) return problem;
      any_error = any_error || d.severity == allot::Severity::error;
    }
    if (any_error && !result.has_errors()) return "has_errors() is false despite an error";
  } catch (const std::exception& error) {
    return std::string("check_source threw: ") + error.what();
  }
  try {
    const allot::FormatResult first = allot::format_source(name, text);
    if (!first.formatted) return first.diagnostics.empty() ? "formatting failed without a diagnostic" : "";
    const allot::FormatResult second = allot::format_source(name, *first.formatted);
    if (!second.formatted) return "the formatted text does not format again";
    if (*second.formatted != *first.formatted) return "formatting is not idempotent";
  } catch (const std::exception& error) {
    return std::string("format_source threw: ") + error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the front end survives thousands of damaged policies", "[mutation]") {
  const std::vector<fs::path> files = policy_files();
  REQUIRE_FALSE(files.empty());
  std::vector<std::string> originals;
  for (const auto& file : files) originals.push_back(read_all(file));

  Mutator mutator(20261201);
  const std::size_t mutants = mutation_count();
  std::vector<std::string> failures;
  for (std::size_t k = 0; k < mutants; ++k) {
    const std::size_t index = k % files.size();
    const Mutant mutant = mutator.mutate(originals[index]);
    const std::string problem = mutant_problem(files[index].string(), mutant.text);
    if (!problem.empty()) {
      failures.push_back("mutant #" + std::to_string(k) + " of " +
                         fs::relative(files[index], ALLOT_SOURCE_DIR).string() + " (" + mutant.description +
                         "): " + problem);
    }
  }
  std::string report;
  for (std::size_t i = 0; i < std::min<std::size_t>(failures.size(), 20); ++i) report += failures[i] + "\n";
  INFO(failures.size() << " of " << mutants << " mutants failed; the first ones:\n" << report);
  CHECK(failures.empty());
}
