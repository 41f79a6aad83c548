#include "suggest.h"

#include <algorithm>

#include "allot/nearest_name.h"

namespace allot {

std::string closest_name(const std::string& name, const std::vector<std::string>& candidates) {
  return support::nearest_name(name, candidates);
}

std::string suggest(const std::string& name, const std::vector<std::string>& candidates) {
  if (std::string best = closest_name(name, candidates); !best.empty()) return "did you mean `" + best + "`?";
  if (candidates.empty() || candidates.size() > 12) return "";
  std::string list;
  for (const auto& candidate : candidates) list += (list.empty() ? "`" : ", `") + candidate + "`";
  return "expected one of " + list;
}

namespace {

std::vector<std::string> words_of(const std::string& name) {
  std::vector<std::string> words;
  std::size_t begin = 0;
  while (begin <= name.size()) {
    const std::size_t end = std::min(name.find('_', begin), name.size());
    if (end - begin >= 3) words.push_back(name.substr(begin, end - begin));
    begin = end + 1;
  }
  return words;
}

bool words_meet(const std::string& a, const std::string& b) {
  return a.compare(0, b.size(), b) == 0 || b.compare(0, a.size(), a) == 0;
}

}  // namespace

std::string suggest_by_words(const std::string& name, const std::vector<std::string>& candidates) {
  std::vector<std::string> found;
  for (const std::string& candidate : candidates) {
    bool shared = false;
    for (const std::string& word : words_of(name)) {
      for (const std::string& other : words_of(candidate)) shared = shared || words_meet(word, other);
    }
    if (shared && std::find(found.begin(), found.end(), candidate) == found.end()) found.push_back(candidate);
  }
  if (found.empty() || found.size() > 3) return "";
  std::string list;
  for (std::size_t i = 0; i < found.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == found.size() ? " or " : ", ") + ("`" + found[i] + "`");
  }
  return "did you mean " + list + "?";
}

}  // namespace allot
