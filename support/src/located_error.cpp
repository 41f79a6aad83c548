#include "allot/located_error.h"

#include <fmt/format.h>

#include <utility>

#include "allot/text.h"

namespace allot::support {

LocatedError LocatedError::cannot_read(std::string file, const std::string& reason) {
  LocatedError error(std::move(file), 0, "", "cannot read the file: " + reason);
  error.unreadable = true;
  return error;
}

std::string LocatedError::to_string() const {
  std::string text = file;
  if (line > 0) text += fmt::format(":{}", line);
  if (line > 0 && column) text += fmt::format(":{}", *column);
  if (!field.empty()) text += fmt::format(": {}", field);
  // Names, keys and values come from the input: never raw control bytes to a terminal.
  return printable(fmt::format("{}: {}", text, message));
}

}  // namespace allot::support
