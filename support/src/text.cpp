#include "allot/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <utility>

namespace allot::support {
namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD

unsigned char byte_at(std::string_view text, std::size_t i) {
  return i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
}

// A C1 control (U+0080..U+009F) in UTF-8: C2 80..C2 9F.
bool is_c1_at(std::string_view text, std::size_t i) {
  return byte_at(text, i) == 0xC2 && byte_at(text, i + 1) >= 0x80 && byte_at(text, i + 1) <= 0x9F;
}

// A bidi embedding, override or isolate (U+202A..U+202E, U+2066..U+2069) in
// UTF-8: they reorder what a terminal or editor shows (Trojan Source).
bool is_bidi_control_at(std::string_view text, std::size_t i) {
  if (byte_at(text, i) != 0xE2) return false;
  const unsigned char second = byte_at(text, i + 1), third = byte_at(text, i + 2);
  return (second == 0x80 && third >= 0xAA && third <= 0xAE) || (second == 0x81 && third >= 0xA6 && third <= 0xA9);
}

// Bytes at the end of `text` that begin a UTF-8 sequence whose other bytes
// have not come yet (0 when the text ends on a whole character).
std::size_t unfinished_utf8_tail(std::string_view text) {
  for (std::size_t back = 1; back <= 3 && back <= text.size(); ++back) {
    const auto c = static_cast<unsigned char>(text[text.size() - back]);
    if (c < 0x80) return 0;
    if (c < 0xC0) continue;  // a continuation byte: look further back
    const std::size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    return length > back ? back : 0;
  }
  return 0;
}

// Passes everything written to it on to `target` through printable(). It holds
// back only an unfinished UTF-8 character, so that a control sequence split
// across two writes is still seen whole; every write is passed on at once, so
// output through it and through `target` directly stays in order.
class PrintableBuffer final : public std::streambuf {
 public:
  explicit PrintableBuffer(std::streambuf* target) : target_(target) {}

 protected:
  std::streamsize xsputn(const char* bytes, std::streamsize count) override {
    held_.append(bytes, static_cast<std::size_t>(count));
    const std::size_t ready = held_.size() - unfinished_utf8_tail(held_);
    if (!pass_on(std::string_view(held_).substr(0, ready))) return 0;
    held_.erase(0, ready);
    return count;
  }

  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return sync() == 0 ? traits_type::not_eof(c) : c;
    const char byte = traits_type::to_char_type(c);
    return xsputn(&byte, 1) == 1 ? c : traits_type::eof();
  }

  int sync() override {
    const bool passed = pass_on(held_);
    held_.clear();
    return passed && target_->pubsync() == 0 ? 0 : -1;
  }

 private:
  bool pass_on(std::string_view text) {
    const std::string shown = printable(text);
    return target_->sputn(shown.data(), static_cast<std::streamsize>(shown.size())) ==
           static_cast<std::streamsize>(shown.size());
  }

  std::streambuf* target_;
  std::string held_;
};

// The standard streams' own buffers, kept when guard_standard_streams() puts
// a PrintableBuffer in front of them. Never freed: std::cout is flushed at exit,
// after every static object is gone.
struct Originals {
  std::ostream out{std::cout.rdbuf()};
  std::ostream err{std::cerr.rdbuf()};
};

Originals& originals() {
  static auto* kept = new Originals();
  return *kept;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) {
      // U+2400 + c (U+2421 for DEL): E2 90 80+c.
      out += '\xE2';
      out += '\x90';
      out += static_cast<char>(0x80 + (c == 0x7F ? 0x21 : c));
    } else if (is_c1_at(text, i)) {
      out += kReplacement;
      i += 1;
    } else if (is_bidi_control_at(text, i)) {
      out += kReplacement;
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

namespace {

// The code point of the UTF-8 sequence at `i` and its length, or 0 and 1 for a
// byte that does not start a whole, well-formed sequence.
std::pair<char32_t, std::size_t> decode_at(std::string_view text, std::size_t i) {
  const unsigned char lead = byte_at(text, i);
  const std::size_t length = lead >= 0xF5 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 1;
  if (lead < 0x80 || length == 1 || i + length > text.size()) return {lead < 0x80 ? lead : 0, 1};
  char32_t code = lead & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    const unsigned char next = byte_at(text, i + k);
    if ((next & 0xC0) != 0x80) return {0, 1};
    code = (code << 6) | (next & 0x3F);
  }
  return {code, length};
}

// East Asian wide and full-width ranges (Unicode's EastAsianWidth W and F, in
// the blocks names and labels use) and the emoji blocks terminals draw wide.
bool is_wide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) || (c >= 0x3041 && c <= 0x33FF) ||
         (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
         (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
         (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
         (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD);
}

// Combining marks, drawn on the character before them.
bool is_combining(char32_t c) {
  return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) || (c >= 0x1DC0 && c <= 0x1DFF) ||
         (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xFE20 && c <= 0xFE2F) || c == 0x200B || c == 0x200C || c == 0x200D;
}

}  // namespace

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\x1b' && byte_at(text, i + 1) == '[') {
      std::size_t end = i + 2;
      while (end < text.size() && (byte_at(text, end) < 0x40 || byte_at(text, end) > 0x7E)) ++end;
      i = std::min(end + 1, text.size());
      continue;
    }
    const auto [code, length] = decode_at(text, i);
    width += is_combining(code) ? 0 : is_wide(code) ? 2 : 1;
    i += length;
  }
  return width;
}

std::string pad_right(std::string_view text, std::size_t width) {
  const std::size_t shown = display_width(text);
  return std::string(text) + std::string(shown < width ? width - shown : 0, ' ');
}

std::string pad_left(std::string_view text, std::size_t width) {
  const std::size_t shown = display_width(text);
  return std::string(shown < width ? width - shown : 0, ' ') + std::string(text);
}

std::string json_without_controls(std::string dumped) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto escape = [](std::string& out, unsigned code) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(code >> shift) & 0xF];
  };
  // Documents are large (a cycle over a full queue is hundreds of megabytes)
  // and almost never hold such a character: returned as they are, not copied.
  std::size_t first = 0;
  while (first < dumped.size() && dumped[first] != '\x7f' && !is_c1_at(dumped, first) &&
         !is_bidi_control_at(dumped, first)) {
    ++first;
  }
  if (first == dumped.size()) return dumped;
  std::string out = dumped.substr(0, first);
  out.reserve(dumped.size() + 16);
  for (std::size_t i = first; i < dumped.size(); ++i) {
    const auto c = static_cast<unsigned char>(dumped[i]);
    if (c == 0x7F) {
      escape(out, c);
    } else if (is_c1_at(dumped, i)) {
      escape(out, byte_at(dumped, i + 1));
      i += 1;
    } else if (is_bidi_control_at(dumped, i)) {
      escape(out, 0x2000u | ((byte_at(dumped, i + 1) & 0x3Fu) << 6) | (byte_at(dumped, i + 2) & 0x3Fu));
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

void guard_standard_streams() {
  static bool guarded = false;
  if (guarded) return;
  guarded = true;
  Originals& kept = originals();
  std::cout.rdbuf(new PrintableBuffer(kept.out.rdbuf()));
  std::cerr.rdbuf(new PrintableBuffer(kept.err.rdbuf()));
}

std::ostream& unguarded_stdout() {
  std::cout.flush();
  return originals().out;
}

std::ostream& unguarded_stderr() {
  std::cerr.flush();
  return originals().err;
}

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string format_decimal(double value, int decimals) {
  std::string text = fmt::format("{:.{}f}", value, decimals);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text;
}

}  // namespace allot::support
