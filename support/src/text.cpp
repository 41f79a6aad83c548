#include "allot/text.h"

namespace allot::support {

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
    } else if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      out += "\xEF\xBF\xBD";  // a C1 control (U+0080..U+009F), as U+FFFD
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace allot::support
