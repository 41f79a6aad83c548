// Text from hostile input shown to a person: every message that may quote a
// file name, a key, a value or a source line goes through printable(), so that
// no input can send escape sequences to the operator's terminal.
#pragma once

#include <string>
#include <string_view>

namespace allot::support {

// `text` with each control character (C0 except tab, DEL, and C1 in UTF-8)
// replaced by one visible code point: U+2400 + c for C0 ("␛" for ESC), "␡" for
// DEL, U+FFFD for C1. One code point for one, so columns stay where they were.
std::string printable(std::string_view text);

}  // namespace allot::support
