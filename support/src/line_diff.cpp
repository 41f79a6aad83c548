#include "allot/line_diff.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace allot::support {
namespace {

constexpr std::size_t kMaxLines = 20000;
// Edits beyond this many mean two different files, not a change: not shown
// (the frontiers kept take memory in proportion to its square).
constexpr long kMaxEdits = 2000;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

struct Edit {
  char kind;           // ' ', '-', '+'
  std::size_t before;  // line index in `before` (for ' ' and '-')
  std::size_t after;   // line index in `after` (for ' ' and '+')
};

// The edit script by Myers' O((N+M)D) algorithm, keeping each round's frontier.
std::optional<std::vector<Edit>> edits(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const long n = static_cast<long>(a.size()), m = static_cast<long>(b.size()), max = n + m;
  std::vector<long> v(static_cast<std::size_t>(2 * max + 2), 0);
  std::vector<std::vector<long>> trace;
  const auto at = [&](long k) -> long& { return v[static_cast<std::size_t>(k + max + 1)]; };
  for (long d = 0; d <= max; ++d) {
    if (d > kMaxEdits) return std::nullopt;
    // The frontier before round d, for diagonals -d..d (all the walk back reads of it).
    trace.emplace_back(v.begin() + (max + 1 - d), v.begin() + (max + 1 + d + 1));
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? at(k + 1) : at(k - 1) + 1;
      long y = x - k;
      while (x < n && y < m && a[static_cast<std::size_t>(x)] == b[static_cast<std::size_t>(y)]) ++x, ++y;
      at(k) = x;
      if (x >= n && y >= m) {
        // Walk back through the frontiers.
        std::vector<Edit> script;
        long cx = n, cy = m;
        for (long e = d; e > 0; --e) {
          const std::vector<long>& prev = trace[static_cast<std::size_t>(e)];
          const auto p = [&](long kk) { return prev[static_cast<std::size_t>(kk + e)]; };
          const long ck = cx - cy;
          const long pk = (ck == -e || (ck != e && p(ck - 1) < p(ck + 1))) ? ck + 1 : ck - 1;
          const long px = p(pk), py = px - pk;
          while (cx > px && cy > py)
            script.push_back({' ', static_cast<std::size_t>(--cx), static_cast<std::size_t>(--cy)});
          if (cx == px) {
            script.push_back({'+', static_cast<std::size_t>(cx), static_cast<std::size_t>(--cy)});
          } else {
            script.push_back({'-', static_cast<std::size_t>(--cx), static_cast<std::size_t>(cy)});
          }
        }
        while (cx > 0 && cy > 0)
          script.push_back({' ', static_cast<std::size_t>(--cx), static_cast<std::size_t>(--cy)});
        std::reverse(script.begin(), script.end());
        return script;
      }
    }
  }
  return std::vector<Edit>{};
}

}  // namespace

std::optional<std::string> unified_diff(const std::string& before, const std::string& after, int context) {
  const std::vector<std::string> a = lines_of(before), b = lines_of(after);
  if (a.size() > kMaxLines || b.size() > kMaxLines) return std::nullopt;
  const std::optional<std::vector<Edit>> found = edits(a, b);
  if (!found) return std::nullopt;
  const std::vector<Edit>& script = *found;
  std::string out;
  const auto width = static_cast<std::size_t>(std::max(0, context));
  std::size_t i = 0;
  while (i < script.size()) {
    if (script[i].kind == ' ') {
      ++i;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` after the last change near it.
    std::size_t first = i >= width ? i - width : 0;
    std::size_t last = i;
    for (std::size_t j = i; j < script.size(); ++j) {
      if (script[j].kind != ' ') last = j;
      if (j - last > 2 * width) break;
    }
    const std::size_t end = std::min(script.size(), last + width + 1);
    std::size_t before_count = 0, after_count = 0;
    for (std::size_t j = first; j < end; ++j) {
      before_count += script[j].kind != '+';
      after_count += script[j].kind != '-';
    }
    const Edit& head = script[first];
    out += fmt::format("@@ -{},{} +{},{} @@\n", head.before + (before_count ? 1 : 0), before_count,
                       head.after + (after_count ? 1 : 0), after_count);
    for (std::size_t j = first; j < end; ++j) {
      const Edit& edit = script[j];
      out += edit.kind;
      out += edit.kind == '+' ? b[edit.after] : a[edit.before];
      out += '\n';
    }
    i = end;
  }
  return out;
}

}  // namespace allot::support
