#include "rule_catalog.h"

#include "../diagnostic_codes.h"

namespace allot {

std::string rule_summary(const std::string& code) {
  // Every code the checker reports is in the table (diagnostic_codes.h); an
  // unknown one still renders, from the code's words.
  if (const auto found = find_code(code)) return std::string(code_info(*found).summary);
  std::string words = code;
  for (char& c : words) {
    if (c == '_') c = ' ';
  }
  return words;
}

std::string rule_name(const std::string& code) {
  std::string name;
  bool word_start = true;
  for (const char c : code) {
    if (c == '_') {
      word_start = true;
      continue;
    }
    name += word_start && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    word_start = false;
  }
  return name;
}

}  // namespace allot
