# The CTest test docs.doxygen (cmake/tandemDocs.cmake): builds the API
# reference afresh into OUT and fails if doxygen warned (the configured
# Doxyfile has WARN_AS_ERROR = FAIL_ON_WARNINGS), printing the warnings.
#   cmake -DDOXYGEN=<doxygen> -DDOXYFILE=<OUT>/Doxyfile -DOUT=<folder> -P tandemDocsCheck.cmake
file(REMOVE_RECURSE "${OUT}/html")
file(REMOVE "${OUT}/warnings.log")
execute_process(COMMAND "${DOXYGEN}" "${DOXYFILE}" RESULT_VARIABLE rc)
set(log "")
if(EXISTS "${OUT}/warnings.log")
  file(READ "${OUT}/warnings.log" log)
endif()
if(NOT rc EQUAL 0 OR NOT log STREQUAL "")
  message(FATAL_ERROR "doxygen warned (exit status ${rc}); fix these in include/tandem or docs/:\n${log}")
endif()
message(STATUS "docs.doxygen: no warnings; pages in ${OUT}/html/index.html")
