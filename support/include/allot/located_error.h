// Why an input file cannot be used, located so an operator can fix it without
// guessing: the one error type of every reader of files (inventories, state
// snapshots, traces, replay and Slurm mapping files).
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace allot::support {

struct LocatedError {
  LocatedError() = default;
  LocatedError(std::string file, int line, std::string field, std::string message,
               std::optional<int> column = std::nullopt)
      : file(std::move(file)), line(line), field(std::move(field)), message(std::move(message)), column(column) {}

  std::string file;
  int line = 0;       // 1-based; 0 when the problem is the file as a whole
  std::string field;  // e.g. "node[3].gpus"; empty when not about one field
  std::string message;
  std::optional<int> column;  // 1-based, when the reader knows it
  // The file could not be read at all (missing, not a regular file, over its
  // size limit, an I/O error), as opposed to a problem in what it says: the
  // drivers exit 2 for the first, 1 for the second.
  bool unreadable = false;

  // "FILE: cannot read the file: REASON", marked unreadable.
  static LocatedError cannot_read(std::string file, const std::string& reason);

  // "FILE:LINE:COLUMN: FIELD: MESSAGE", as compilers print errors; the column,
  // the line and the field are left out when unknown. Control characters of
  // the input are made visible (text.h).
  std::string to_string() const;
};

}  // namespace allot::support
