// What `allot-lint` carries (`allot check` and `allot fmt`, with no LLVM and no
// libslurm: docs/INSTALL.md), and what every `allot` command shares: the
// paths, the import path, the version, dates and colour. Each command returns
// the process exit code: 0 success, 1 problems found in the input, 2 usage or
// I/O failure.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "allot/frontend.h"

namespace allot::cli {

struct CheckArguments {
  std::vector<std::string> paths;
  std::string now;  // YYYY-MM-DD, empty for today
  std::string format = "text";
  bool deny_warnings = false;
  int max_exception_days = 90;
  bool allow_outside_imports = false;
  std::optional<ClusterFacts> cluster;  // `allot check --cluster FILE` (the full binary reads the inventory)
  std::string explain;                  // `--explain CODE`: print the code's entry of docs/DIAGNOSTICS.md instead
};
int run_check(const CheckArguments& arguments);

// `allot lsp`: a language server on standard input and output (docs/EDITORS.md);
// returns 0 after `shutdown` and `exit`, 1 when the input ends without them.
int run_lsp();

// `allot check --explain CODE`: the code's entry of docs/DIAGNOSTICS.md on
// standard output (0), or a did-you-mean for an unknown code (2).
int run_explain_code(const std::string& code);

struct FmtArguments {
  std::vector<std::string> paths;
  bool check = false;
  bool write = false;
  bool diff = false;  // print what --write would change as a unified diff (exit 1 when it would)
};
int run_fmt(const FmtArguments& arguments);

// Expands folders into the `*.allot` files below them (sorted); files stay as
// given. Returns false (after printing why) when a path does not exist, a
// folder holds no `*.allot` file, a subfolder cannot be read, or a `*.allot` symlink in a folder leads anywhere
// but to a regular `.allot` file inside that folder (docs/SECURITY.md).
bool expand_paths(const std::vector<std::string>& paths, std::vector<std::string>& files);

// Where every command looks up a policy's imports, after the importing
// file's own folder: the `-I` folders in order, then ALLOT_PATH's
// (colon-separated), then the stdlib. main() sets the `-I` folders once.
void set_import_folders(std::vector<std::string> folders);
std::vector<std::string> import_path();

// "allot 0.1.0 (3f2a9c1d0b7e)": the version and the commit it was built from
// (`git describe` at the last configure; "unknown" outside a git checkout).
std::string version_text();

// Flushes standard output and tells whether everything written to it arrived
// (a full disk, a closed pipe, /dev/full); prints the reason when not. Every
// command's exit goes through it (main.cpp): output that was cut short exits 2.
bool flush_stdout();

// Reads a `--now YYYY-MM-DD` argument into `today` (left unset when `now` is
// empty). Returns false after telling the user what was wrong.
bool read_now(const std::string& now, std::optional<Date>& today);

// An interval option: "5s", "2m", "1h30m" (support/duration.h) or whole
// seconds; at least a second. nullopt for anything else.
std::optional<std::int64_t> parse_interval(const std::string& text);

// Whether stdout (use_color) or stderr (stderr_color) should get ANSI colour:
// that stream is a terminal, and NO_COLOR is unset.
bool use_color();
bool stderr_color();

// Where text with terminal colour is printed: with `color`, the standard stream
// without main()'s guard (support/text.h; every writer that colours passes its
// input text through printable() itself), otherwise the guarded stream.
std::ostream& colored_stdout(bool color);
std::ostream& colored_stderr(bool color);

// Where a policy's exact text is printed (`fmt`, `import slurm`): the guarded
// stream on a terminal, the bytes as they are into a pipe or file, where a
// string's control character is data, not a command to a terminal.
std::ostream& policy_stdout();

}  // namespace allot::cli
