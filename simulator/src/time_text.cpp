#include "time_text.h"

#include "allot/dates.h"

namespace allot::simulator {

std::string format_timestamp(runtime::Seconds seconds) { return support::format_timestamp(seconds); }

std::string format_day(runtime::Seconds seconds) { return format_timestamp(seconds).substr(0, 10); }

}  // namespace allot::simulator
