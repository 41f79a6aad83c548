// File paths as CI systems want them: relative to the repository root (the
// working directory) with forward slashes.
#pragma once

#include <string>

namespace allot {

// `file` relative to the working directory, normalised, with `/` separators
// and no leading `./`. An absolute path outside the working directory stays
// absolute; a relative one that leaves it keeps its `../`.
std::string repository_path(const std::string& file);

// `path` as a relative URI reference: every byte outside the unreserved set
// and `/` is percent-encoded (RFC 3986), so spaces and UTF-8 survive.
std::string uri_reference(const std::string& path);

}  // namespace allot
