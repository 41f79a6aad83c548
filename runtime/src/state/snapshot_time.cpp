// Times as people type them on a command line and as snapshots write them
// (support/dates.h).
#include "allot/dates.h"
#include "allot/snapshot.h"

namespace allot::runtime {

std::string format_timestamp(Seconds time) { return support::format_timestamp(time); }

std::optional<Seconds> parse_timestamp(std::string_view text) { return support::parse_timestamp(text); }

}  // namespace allot::runtime
