# Install-time step (packaging/CMakeLists.txt): the manual page and the bash
# completion of ${allot_name}, written by the built binary itself.
set(root "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
file(MAKE_DIRECTORY "${root}/${allot_mandir}/man1" "${root}/${allot_completions}")
execute_process(COMMAND "${allot_binary}" help --man OUTPUT_FILE "${root}/${allot_mandir}/man1/${allot_name}.1"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${allot_binary} help --man failed (${status})")
endif()
execute_process(COMMAND "${allot_binary}" completion bash OUTPUT_FILE "${root}/${allot_completions}/${allot_name}"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${allot_binary} completion bash failed (${status})")
endif()
message(STATUS "Installing: ${root}/${allot_mandir}/man1/${allot_name}.1 and its bash completion")
