# Build step (cli/CMakeLists.txt): writes ${OUTPUT}, a C++ file defining
# `std::string_view ${NAME}()` that returns the bytes of ${INPUT}, so the
# binaries carry a document (docs/DIAGNOSTICS.md for `allot check --explain`).
file(READ "${INPUT}" content)
set(delimiter "allot_embedded")
string(FIND "${content}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter ${delimiter}")
endif()
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by cli/embed_text.cmake; do not edit.\n#include <string_view>\n\nnamespace allot::cli {\n\nstd::string_view ${NAME}() {\n  static constexpr std::string_view text = R\"${delimiter}(${content})${delimiter}\";\n  return text;\n}\n\n}  // namespace allot::cli\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
