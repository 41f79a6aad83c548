// Reads trace CSVs (`job_id,submit_s,duration_s,gpus,group,user,status`, and
// optionally `hang_s`): the header names the columns, every error names the
// file, line and column.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <unordered_map>

#include "allot/simulator.h"

#include "allot/duration.h"
#include "allot/files.h"

namespace allot::simulator {
namespace {

constexpr std::array<std::string_view, 7> kColumns = {"job_id", "submit_s", "duration_s", "gpus",
                                                      "group",  "user",     "status"};

// Splits one CSV line; double quotes may wrap a field ("" is a quote inside one).
Expected<std::vector<std::string>, std::string> split_fields(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"' && (quoted || fields.back().empty())) {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) return unexpected(std::string("a quoted field is not closed"));
  return fields;
}

// The latest submission a trace may have, in seconds from its start (the
// longest replay, `--days 3660`), and the longest job: bounded so that no row
// can make a replay allocate without end.
constexpr std::int64_t kLatestSubmit = std::int64_t{3660} * 86400;

// Column positions by name, from the header, and how many columns every row has
// (the header may have more than the named ones, in any order; they are ignored).
struct ColumnIndex {
  std::array<std::size_t, kColumns.size()> at{};
  std::optional<std::size_t> hang;  // the optional `hang_s`
  std::size_t count = 0;
  std::size_t operator[](std::size_t column) const { return at[column]; }
};

Expected<ColumnIndex, TraceError> read_header(std::string_view line, const std::string& file) {
  auto names = split_fields(line);
  if (!names) return unexpected(TraceError{file, 1, "", names.error()});
  ColumnIndex index;
  index.count = names->size();
  for (std::size_t c = 0; c < kColumns.size(); ++c) {
    const auto found = std::find(names->begin(), names->end(), kColumns[c]);
    if (found == names->end()) {
      return unexpected(TraceError{file, 1, std::string(kColumns[c]),
                                   fmt::format("the header has no `{}` column; a trace has the columns {}", kColumns[c],
                                               fmt::join(kColumns, ","))});
    }
    if (std::find(found + 1, names->end(), kColumns[c]) != names->end()) {
      return unexpected(
          TraceError{file, 1, std::string(kColumns[c]), fmt::format("the header names `{}` twice", kColumns[c])});
    }
    index.at[c] = static_cast<std::size_t>(found - names->begin());
  }
  const auto hang = std::find(names->begin(), names->end(), "hang_s");
  if (hang != names->end()) {
    if (std::find(hang + 1, names->end(), "hang_s") != names->end())
      return unexpected(TraceError{file, 1, "hang_s", "the header names `hang_s` twice"});
    index.hang = static_cast<std::size_t>(hang - names->begin());
  }
  return index;
}

// A whole number in [min, max], or an error naming the column.
Expected<std::int64_t, TraceError> whole_number(const std::string& text, std::int64_t min, std::int64_t max,
                                                const std::string& file, int line, std::string_view column) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return unexpected(
        TraceError{file, line, std::string(column), fmt::format("expected a whole number, found `{}`", text)});
  }
  if (value < min || value > max) {
    return unexpected(TraceError{file, line, std::string(column),
                                 fmt::format("`{}` is out of range; expected {} to {}", text, min, max)});
  }
  return value;
}

Expected<TraceRow, TraceError> read_row(const std::vector<std::string>& fields, const ColumnIndex& index,
                                        const std::string& file, int line) {
  TraceRow row;
  row.line = line;
  row.job_id = fields[index[0]];
  row.group = fields[index[4]];
  row.user = fields[index[5]];
  row.status = fields[index[6]];
  if (row.job_id.empty()) return unexpected(TraceError{file, line, "job_id", "the job id is empty"});
  for (const std::size_t column : std::array<std::size_t, 4>{0, 4, 5, 6}) {
    const std::string& text = fields[index[column]];
    if (text.size() > support::kMaxNameBytes) {
      return unexpected(
          TraceError{file, line, std::string(kColumns[column]),
                     fmt::format("the field is {} bytes long; at most {}", text.size(), support::kMaxNameBytes)});
    }
  }
  auto submit = whole_number(fields[index[1]], 0, kLatestSubmit, file, line, "submit_s");
  if (!submit) return unexpected(submit.error());
  auto duration = whole_number(fields[index[2]], 0, support::kMaxDurationSeconds, file, line, "duration_s");
  if (!duration) return unexpected(duration.error());
  auto gpus = whole_number(fields[index[3]], 1, 1'000'000, file, line, "gpus");
  if (!gpus) return unexpected(gpus.error());
  row.submit = *submit;
  row.duration = *duration;
  row.gpus = static_cast<int>(*gpus);
  // Empty: it never hangs. A job hangs before it would have finished (a
  // replay runs at least a second of every job).
  if (index.hang && !fields[*index.hang].empty()) {
    auto hang = whole_number(fields[*index.hang], 0, std::max<std::int64_t>(1, *duration) - 1, file, line, "hang_s");
    if (!hang) return unexpected(hang.error());
    row.hang = *hang;
  }
  return row;
}

std::string_view without_carriage_return(std::string_view line) {
  return !line.empty() && line.back() == '\r' ? line.substr(0, line.size() - 1) : line;
}

}  // namespace

Expected<std::vector<TraceRow>, TraceError> parse_trace(std::string_view text, const std::string& file) {
  // A UTF-8 byte-order mark (spreadsheets write one) is not part of the first column's name.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<TraceRow> rows;
  std::optional<ColumnIndex> index;
  std::unordered_map<std::string, int> seen;
  int line_number = 0;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    const std::string_view line = without_carriage_return(text.substr(begin, end - begin));
    begin = end + 1;
    ++line_number;
    if (!index) {
      auto header = read_header(line, file);
      if (!header) return unexpected(header.error());
      index = *header;
      continue;
    }
    if (line.empty()) continue;
    // Bounded by what it builds: a row is a job of the replay (kMaxWorkloadJobs).
    if (rows.size() == kMaxWorkloadJobs) {
      return unexpected(TraceError{
          file, line_number, "",
          fmt::format("the trace has more than {} jobs, the most a replay takes; cut it", kMaxWorkloadJobs)});
    }
    auto fields = split_fields(line);
    if (!fields) return unexpected(TraceError{file, line_number, "", fields.error()});
    if (fields->size() != index->count) {
      return unexpected(
          TraceError{file, line_number, "",
                     fmt::format("expected {} fields as in the header, found {}", index->count, fields->size())});
    }
    auto row = read_row(*fields, *index, file, line_number);
    if (!row) return unexpected(row.error());
    const auto [previous, fresh] = seen.emplace(row->job_id, line_number);
    if (!fresh) {
      return unexpected(
          TraceError{file, line_number, "job_id",
                     fmt::format("job `{}` appears twice (first on line {})", row->job_id, previous->second)});
    }
    rows.push_back(std::move(*row));
  }
  if (!index) return unexpected(TraceError{file, 0, "", "the file is empty; a trace starts with a header line"});
  return rows;
}

Expected<std::vector<TraceRow>, TraceError> read_trace(const std::string& path) {
  // Bounded: a folder, FIFO or device is refused, a file over the limit is not read.
  auto contents = support::read_file(path, support::kMaxTraceBytes);
  if (!contents) return unexpected(TraceError::cannot_read(path, contents.error().reason));
  return parse_trace(*contents, path);
}

}  // namespace allot::simulator
