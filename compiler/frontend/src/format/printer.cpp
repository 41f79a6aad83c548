#include "printer.h"

#include <algorithm>

namespace allot::format {
namespace {

enum class Mode { flat, broken };

// One pending piece of work: a node, the indentation its line breaks use, and
// whether its enclosing group was printed flat.
struct Command {
  int indent = 0;
  Mode mode = Mode::broken;
  const DocNode* node = nullptr;
};

std::string strip_trailing_spaces(std::string text) {
  const std::size_t end = text.find_last_not_of(" \t\r");  // a CR before spaces ends a line too
  text.erase(end == std::string::npos ? 0 : end + 1);
  return text;
}

// Trailing spaces off every line of `text` (a line may hold a multi-line comment).
std::string strip_trailing_spaces_per_line(const std::string& text) {
  std::string result;
  std::size_t start = 0;
  while (true) {
    const std::size_t newline = text.find('\n', start);
    result += strip_trailing_spaces(text.substr(start, newline - start));
    if (newline == std::string::npos) return result;
    result += '\n';
    start = newline + 1;
  }
}

// The width of `text` up to its first newline.
int first_line_width(const std::string& text) { return display_width(text.substr(0, text.find('\n'))); }

class Printer {
 public:
  explicit Printer(int width) : width_(width) {}

  std::string run(const Doc& root) {
    stack_.push_back({0, Mode::broken, root.get()});
    while (!stack_.empty()) {
      const Command command = stack_.back();
      stack_.pop_back();
      step(command);
    }
    end_line(0);
    while (out_.ends_with("\n\n")) out_.pop_back();
    return out_;
  }

 private:
  void step(const Command& command) {
    const DocNode& node = *command.node;
    switch (node.kind) {
      case DocKind::text:
        return put(node.text);
      case DocKind::trailing_comment:
        return put_trailing_comment(node.text);
      case DocKind::line:
        return command.mode == Mode::flat ? put(" ") : end_line(command.indent);
      case DocKind::hard_line:
        return end_line(command.indent);
      case DocKind::blank_line:
        return blank(command.indent);
      case DocKind::if_break:
        if (command.mode == Mode::broken) put(node.text);
        return;
      case DocKind::indent:
        return push_parts(stack_, {command.indent + node.indent, command.mode, &node});
      case DocKind::concat:
        return push_parts(stack_, command);
      case DocKind::group:
        return push_parts(stack_, {command.indent, choose_mode(command), &node});
    }
  }

  Mode choose_mode(const Command& group) const {
    if (group.node->forces_break) return Mode::broken;
    if (group.mode == Mode::flat) return Mode::flat;
    return fits({group.indent, Mode::flat, group.node}) ? Mode::flat : Mode::broken;
  }

  static void push_parts(std::vector<Command>& stack, const Command& command) {
    const auto& parts = command.node->parts;
    for (auto part = parts.rbegin(); part != parts.rend(); ++part) {
      stack.push_back({command.indent, command.mode, part->get()});
    }
  }

  // Whether `candidate`, printed flat, and whatever follows it up to the next
  // line break fit in what is left of the current line.
  bool fits(const Command& candidate) const {
    int remaining = width_ - column();
    std::vector<Command> todo{candidate};
    std::size_t rest = stack_.size();
    while (remaining >= 0) {
      if (todo.empty()) {
        if (rest == 0) return true;
        todo.push_back(stack_[--rest]);
        continue;
      }
      const Command command = todo.back();
      todo.pop_back();
      const DocNode& node = *command.node;
      switch (node.kind) {
        case DocKind::text:
          remaining -= first_line_width(node.text);
          if (node.text.find('\n') != std::string::npos) return remaining >= 0;
          break;
        case DocKind::trailing_comment:
          // A line comment ends the line wherever it is, so it never forces a break.
          if (is_line_comment(node.text)) return true;
          remaining -= 1 + first_line_width(node.text);
          if (node.text.find('\n') != std::string::npos) return remaining >= 0;
          break;
        case DocKind::line:
          if (command.mode == Mode::broken) return true;
          remaining -= 1;
          break;
        case DocKind::hard_line:
        case DocKind::blank_line:
          return true;
        case DocKind::if_break:
          if (command.mode == Mode::broken) remaining -= display_width(node.text);
          break;
        case DocKind::indent:
          push_parts(todo, {command.indent + node.indent, command.mode, &node});
          break;
        case DocKind::concat:
          push_parts(todo, command);
          break;
        case DocKind::group:
          push_parts(todo, {command.indent, node.forces_break ? Mode::broken : command.mode, &node});
          break;
      }
    }
    return false;
  }

  bool line_is_empty() const { return line_.empty() && pending_comments_.empty(); }

  int column() const {
    if (line_is_empty()) return next_indent_;
    const std::size_t newline = line_.rfind('\n');
    int result =
        newline == std::string::npos ? line_indent_ + display_width(line_) : display_width(line_.substr(newline + 1));
    for (const auto& comment : pending_comments_) result += 1 + first_line_width(comment);
    return result;
  }

  void put(const std::string& text) {
    comment_only_line_ = false;
    if (line_is_empty()) {
      // A line never starts with a space.
      const std::size_t first = text.find_first_not_of(' ');
      if (first == std::string::npos) return;
      line_indent_ = next_indent_;
      line_ = text.substr(first);
      return;
    }
    if (!pending_comments_.empty()) place_pending_comments(text);
    line_ += text;
  }

  // Block comments after code wait until we know whether code follows them on
  // the same line (one space each side) or the line ends (two spaces before).
  void put_trailing_comment(const std::string& comment) {
    if (line_is_empty()) {
      // The code it follows is not printed (a dropped comma): the comment
      // starts the line, and later ones join it as comments after a comment do.
      put(comment);
      comment_only_line_ = true;
      return;
    }
    if (comment_only_line_) {
      line_ += (is_line_comment(comment) ? "  " : " ") + comment;
      return;
    }
    if (!is_line_comment(comment)) {
      pending_comments_.push_back(comment);
      return;
    }
    append_pending_comments_at_line_end();
    line_ += "  " + comment;
  }

  // Two spaces between code and the first comment, one between comments.
  void append_pending_comments_at_line_end() {
    line_ = strip_trailing_spaces(line_);
    for (std::size_t i = 0; i < pending_comments_.size(); ++i) line_ += (i == 0 ? "  " : " ") + pending_comments_[i];
    pending_comments_.clear();
  }

  void place_pending_comments(const std::string& next) {
    line_ = strip_trailing_spaces(line_);
    for (const auto& comment : pending_comments_) {
      if (!line_.ends_with('(')) line_ += ' ';
      line_ += comment;
    }
    pending_comments_.clear();
    const bool tight =
        next.empty() || next.front() == ' ' || next.front() == ')' || next.front() == ',' || next.front() == '.';
    if (!tight) line_ += ' ';
  }

  // Ends the current line (if it has anything) and sets the next line's indentation.
  void end_line(int next_indent) {
    comment_only_line_ = false;
    if (!line_is_empty()) {
      append_pending_comments_at_line_end();
      out_ += std::string(static_cast<std::size_t>(line_indent_), ' ') + strip_trailing_spaces_per_line(line_) + "\n";
      line_.clear();
    }
    next_indent_ = next_indent;
  }

  void blank(int next_indent) {
    end_line(next_indent);
    if (!out_.empty() && !out_.ends_with("\n\n")) out_ += '\n';
  }

  int width_;
  std::vector<Command> stack_;
  std::string out_;
  std::string line_;  // the current line, without its indentation
  int line_indent_ = 0;
  int next_indent_ = 0;
  std::vector<std::string> pending_comments_;
  bool comment_only_line_ = false;  // the line holds trailing comments only
};

}  // namespace

int display_width(const std::string& text) {
  return static_cast<int>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string print(const Doc& doc, int width) { return Printer(width).run(doc); }

}  // namespace allot::format
