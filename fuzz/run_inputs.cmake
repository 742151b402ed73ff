# Runs a libFuzzer harness once over every file in the folders INPUTS (a
# list), as a regression test: libFuzzer runs files given by name one after
# the other and fails on the first crash, leak or sanitizer report.
#   cmake -DHARNESS=<fuzz_x> "-DINPUTS=<dir>;<dir>" -P run_inputs.cmake
set(files "")
foreach(dir IN LISTS INPUTS)
  if(IS_DIRECTORY "${dir}")
    file(GLOB found LIST_DIRECTORIES false "${dir}/*")
    foreach(f IN LISTS found)
      get_filename_component(n "${f}" NAME)
      if(NOT n MATCHES "^\\.")  # .gitkeep and the like
        list(APPEND files "${f}")
      endif()
    endforeach()
  endif()
endforeach()
if(NOT files)
  message(FATAL_ERROR "run_inputs: no input files in ${INPUTS}")
endif()
list(LENGTH files count)
message(STATUS "${HARNESS}: ${count} inputs")
execute_process(COMMAND "${HARNESS}" -runs=1 -timeout=30 ${files} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${HARNESS} failed (exit ${rc}) on one of its ${count} inputs; its output above names it")
endif()
