// The Allot front end's public interface (allot_frontend): check policy files,
// format them, and render the diagnostics for people and for CI. Compiling a
// policy to code is the back end's (allot/compile.h). Everything in
// compiler/frontend/src is internal and may change without notice.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "allot/date.h"
#include "allot/diagnostic.h"

namespace allot {

// Parses `YYYY-MM-DD`; nullopt for anything else or an impossible day.
std::optional<Date> parse_date(const std::string& text);
// Formats as `YYYY-MM-DD`.
std::string format_date(Date date);

// The folder holding Allot's standard library (stdlib/), where imports are
// looked up when the importing file's folder does not have them: an installed
// binary's `share/allot` (support::installed_data_folder), else the source tree.
std::vector<std::string> default_import_path();

// What `allot check --cluster FILE` knows of the cluster a policy is for (the
// CLI reads the inventory; the checker needs only these facts).
struct ClusterFacts {
  std::string file;                    // the inventory, as named in messages
  std::vector<std::string> gpu_types;  // distinct
  int nodes = 0;
  int total_gpus = 0;
};

// What the checker needs to know about the world outside the policy text.
struct CheckOptions {
  // "Today" for review dates and exception expiry; the system date when empty.
  std::optional<Date> today;
  // A review date closer than this many days is a warning.
  int review_warning_days = 14;
  // An exception may not expire further than this many days after today.
  int max_exception_horizon_days = 90;
  // Folders an import is looked up in after the importing file's own folder
  // (docs/LANGUAGE.md, "Imports"); by default the one that holds Allot's stdlib/.
  std::vector<std::string> import_path = default_import_path();
  // Imports may name absolute paths and files outside the root policy's folder
  // and the import path. Off: a policy can read only what sits beside it.
  bool allow_outside_imports = false;
  // Dates that pass while a policy runs (`review_date_passed`,
  // `exception_expired`) are warnings instead of errors. For schedulers: on the
  // morning a review date passes, CI (`allot check`) must fail, but a running
  // cluster must keep scheduling (`allot slurm` says so loudly instead, and an
  // expired exception stops applying at its expiry, docs/SLURM.md).
  bool passed_dates_are_warnings = false;
  // With a cluster: a `gpu_hours` weight for a GPU type the cluster lacks (a
  // misspelt `a10O` would weigh every A100 1.0), a GPU type without a weight,
  // and a class asking for more GPUs or nodes than the cluster has.
  std::optional<ClusterFacts> cluster{};
  // What `cluster` finds is a warning instead of an error (same codes): for a
  // scheduler given the cluster it runs on (`allot serve`), which keeps
  // running a policy that weighs a type it lacks and says so, as `allot
  // check --cluster` in CI must not.
  bool cluster_facts_are_warnings = false;
};

// The diagnostics of one run over one or more policy files, sorted by location.
struct CheckResult {
  std::vector<Diagnostic> diagnostics;
  SourceTexts sources;
  bool has_errors() const;
  bool has_warnings() const;
  // True when a named file could not be read at all (the CLI exits 2).
  bool has_io_errors() const;
};

// Where `name` is declared, for an editor's "go to definition" (`allot lsp`):
// a function, a class, an exception or a budget-tree node of the policy `path`
// (with `text`, as an editor holds it) or of a file it imports; the policy's
// own declarations first. nullopt when nothing of that name is declared.
std::optional<SourceSpan> find_declaration(const std::string& path, const std::string& text, const std::string& name,
                                           const CheckOptions& options);

// Checks each file (and the library files it imports). A file that cannot be
// read is reported as an `io_error` diagnostic; see `CheckResult::has_io_errors`.
CheckResult check_files(const std::vector<std::string>& paths, const CheckOptions& options);

// Checks one policy given as text; `name` is used in diagnostics and as the
// base for relative imports.
CheckResult check_source(const std::string& name, const std::string& text, const CheckOptions& options);

// The canonical layout of a policy file, or the diagnostics that prevent
// formatting it (syntax errors). Comments are preserved; formatting is idempotent.
struct FormatResult {
  std::optional<std::string> formatted;
  std::vector<Diagnostic> diagnostics;
};
FormatResult format_source(const std::string& name, const std::string& text);

// Renderers. All take diagnostics already sorted by location.
struct TextStyle {
  bool color = false;
};
std::string render_text(const std::vector<Diagnostic>& diagnostics, const SourceTexts& sources, TextStyle style);
std::string render_json(const std::vector<Diagnostic>& diagnostics);
std::string render_sarif(const std::vector<Diagnostic>& diagnostics);
std::string render_github(const std::vector<Diagnostic>& diagnostics);

}  // namespace allot
