// Progress reports through a job's Slurm Comment (docs/SLURM.md "Progress").
// A job's owner may set its Comment (AdminComment is for administrators, and
// the adapter's own messages); `allot-progress` writes the word
//   allot:progress=<epoch seconds>[,checkpoint=<epoch seconds>]
// (or `allot:checkpoint=<epoch seconds>`) into it, keeping the owner's other
// text. Internal to slurm/.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "allot/cluster_state.h"
#include "allot/expected.h"

namespace allot::slurm {

using runtime::Seconds;

struct CommentReport {
  std::optional<Seconds> progress;
  std::optional<Seconds> checkpoint;
};

// The report in `comment` (the last `allot:` word counts), nullopt when it has
// none, or why its word cannot be read.
Expected<std::optional<CommentReport>, std::string> read_comment_report(std::string_view comment);

// The comment without its `allot:` words and the spaces around them: what the
// mapping file's `comment` globs match, so a report never changes a job's class.
std::string comment_without_report(std::string_view comment);

// Whether every time in the report is before `started`: a report of an
// earlier run of a requeued job, which Slurm keeps in the Comment; not this run's.
bool reports_earlier_run(const CommentReport& report, Seconds started);

// Why a report cannot be taken for a run that started at `started`, given the
// one taken before (if any), at `now`; nullopt when it can.
std::optional<std::string> report_problem(const CommentReport& report, Seconds started, Seconds now,
                                          const std::optional<CommentReport>& before);

}  // namespace allot::slurm
