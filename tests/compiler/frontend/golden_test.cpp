// Golden tests: every folder under tests/golden/check holds a policy
// (`input.allot`, plus any files it imports) and the exact text `allot check`
// prints for it (`expected.txt`). The folder's name is the diagnostic code the
// case is about, optionally followed by `-detail`; the test also asserts that
// this code is reported. "Today" is 2026-12-01 unless the folder has a `now` file.
// (`io_error-folder` holds a folder named `input.allot`, which cannot be read.)
// tests/compiler/backend/diagnostic_codes_test.cpp checks that every code has a case.
//
// Set ALLOT_UPDATE_GOLDEN=1 to rewrite the expected files after an intended change.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "allot/frontend.h"

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream contents;
  contents << stream.rdbuf();
  return contents.str();
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

std::vector<fs::path> case_folders(const fs::path& root) {
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory()) folders.push_back(entry.path());
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

std::string check_case(const fs::path& folder) {
  allot::CheckOptions options;
  std::string now = fs::exists(folder / "now") ? read_all(folder / "now") : "2026-12-01";
  while (!now.empty() && std::isspace(static_cast<unsigned char>(now.back()))) now.pop_back();
  options.today = allot::parse_date(now);
  const fs::path input = fs::relative(folder / "input.allot", fs::current_path());
  allot::CheckResult result = allot::check_files({input.string()}, options);
  std::string text = allot::render_text(result.diagnostics, result.sources, {});
  replace_all(text, (input.parent_path() / "").string(), "");
  return text;
}

}  // namespace

TEST_CASE("every diagnostic golden case prints exactly its expected text", "[golden][check]") {
  const fs::path root = fs::path(ALLOT_SOURCE_DIR) / "tests/golden/check";
  const bool update = std::getenv("ALLOT_UPDATE_GOLDEN") != nullptr;
  const auto folders = case_folders(root);
  REQUIRE_FALSE(folders.empty());
  for (const auto& folder : folders) {
    const std::string name = folder.filename().string();
    const std::string code = name.substr(0, name.find('-'));
    DYNAMIC_SECTION(name) {
      const std::string actual = check_case(folder);
      if (update) {
        std::ofstream(folder / "expected.txt", std::ios::binary) << actual;
      }
      const std::string expected = read_all(folder / "expected.txt");
      CHECK(actual == expected);
      if (code != "clean") CHECK(actual.find("[" + code + "]") != std::string::npos);
      if (code == "clean") CHECK(actual.empty());
    }
  }
}
