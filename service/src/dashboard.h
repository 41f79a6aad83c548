// The dashboard's page (service/web/dashboard.html), built into the binary at
// configure time (service/CMakeLists.txt): no CDN, no file read at run time.
#pragma once

#include <string_view>

namespace allot::service {

std::string_view dashboard_html();

}  // namespace allot::service
