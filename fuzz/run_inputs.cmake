# Runs a libFuzzer harness once over every file of its seed corpus and of its
# kept findings, as a regression test (CTest fuzz.<name>): libFuzzer runs
# files given by name one after the other and fails on the first crash, leak,
# sanitizer report or finding.
#   cmake -DHARNESS=<fuzz_x> -DCORPUS=<dir> -DREGRESSIONS=<dir> -P run_inputs.cmake
# The seeds are an honest peer's bytes, so each must also complete: under
# TANDEM_FUZZ_EXPECT=completes a harness calls a tandem::error a finding (the
# seed is stale: the protocol changed and nobody wrote the seeds again), and
# checks the honest results it can. Seeds named fails-* must instead end in a
# tandem::error. Kept findings only need to end well (fuzz/fuzz.hpp).

# files_in(DIR VAR REGEX INCLUDE): the files of DIR (no dot files) whose names
# match REGEX (INCLUDE true) or do not (INCLUDE false).
function(files_in dir var regex include)
  set(files "")
  if(IS_DIRECTORY "${dir}")
    file(GLOB found LIST_DIRECTORIES false "${dir}/*")
    foreach(f IN LISTS found)
      get_filename_component(n "${f}" NAME)
      if(n MATCHES "^\\.")  # .gitkeep and the like
        continue()
      endif()
      if(n MATCHES "${regex}")
        set(match TRUE)
      else()
        set(match FALSE)
      endif()
      if(match STREQUAL include)
        list(APPEND files "${f}")
      endif()
    endforeach()
  endif()
  set(${var} "${files}" PARENT_SCOPE)
endfunction()

# run(WHAT EXPECT FILES...): the harness over FILES with TANDEM_FUZZ_EXPECT=EXPECT.
function(run what expect)
  set(files ${ARGN})
  list(LENGTH files count)
  if(count EQUAL 0)
    return()
  endif()
  message(STATUS "${HARNESS}: ${count} ${what}")
  set(ENV{TANDEM_FUZZ_EXPECT} "${expect}")
  execute_process(COMMAND "${HARNESS}" -runs=1 -timeout=30 ${files} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${HARNESS} failed (exit ${rc}) on one of its ${count} ${what}; its output above names "
                        "it (a stale seed: write the seeds again, fuzz/README.md \"Seeds\")")
  endif()
endfunction()

files_in("${CORPUS}" honest "^fails-" FALSE)
files_in("${CORPUS}" failing "^fails-" TRUE)
files_in("${REGRESSIONS}" kept "." TRUE)
if(NOT honest)
  message(FATAL_ERROR "run_inputs: no honest seeds in ${CORPUS}")
endif()
run("honest seeds, each must complete" completes ${honest})
run("seeds named fails-*, each must end in a tandem::error" fails ${failing})
run("kept findings" anything ${kept})
