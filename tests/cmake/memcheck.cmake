# cmake -DVALGRIND=… -DEXE=… -DSUPPRESSIONS=… -DMODE=clean|canary [-DARGS=…] -P memcheck.cmake
# Runs EXE under valgrind's memcheck (tests/secret_independence.cpp).
#   clean:  passes when memcheck reports no error (exit code 0): no branch
#           and no address in tandem's code depends on a marked secret.
#   canary: passes only when memcheck reports the deliberate branch on a
#           secret, and the secret-dependent address, in the canary function,
#           traced back to a mark of the library's (exit code 97, both
#           messages, the function named, the client request as the origin),
#           so the check above cannot pass by checking nothing.
foreach(var VALGRIND EXE SUPPRESSIONS MODE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "memcheck.cmake: ${var} is not set")
  endif()
endforeach()
set(error_exit 97)
execute_process(
  COMMAND "${VALGRIND}" --tool=memcheck --error-exitcode=${error_exit} --track-origins=yes
    --leak-check=no --num-callers=40 --fair-sched=yes "--suppressions=${SUPPRESSIONS}"
    "${EXE}" ${ARGS}
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)

if(MODE STREQUAL "clean")
  if(NOT result EQUAL 0)
    if(result EQUAL error_exit)
      set(why "memcheck reported errors: a branch or an address depends on a secret (or another memory error)")
    else()
      set(why "it exited with ${result}")
    endif()
    message(FATAL_ERROR "${EXE} under valgrind: ${why}\n${output}")
  endif()
  if(NOT output MATCHES "ERROR SUMMARY: 0 errors")
    message(FATAL_ERROR "${EXE} under valgrind: no clean error summary\n${output}")
  endif()
  message(STATUS "memcheck: no secret-dependent branch or address\n${output}")
elseif(MODE STREQUAL "canary")
  set(missing "")
  if(NOT result EQUAL error_exit)
    string(APPEND missing " exit code ${error_exit} (got ${result});")
  endif()
  foreach(what "Conditional jump or move depends on uninitialised value" "Use of uninitialised value of size"
               "canary_branch_on_a_secret_label" "Uninitialised value was created by a client request")
    string(FIND "${output}" "${what}" at)
    if(at EQUAL -1)
      string(APPEND missing " \"${what}\";")
    endif()
  endforeach()
  if(missing)
    message(FATAL_ERROR "memcheck did not catch the deliberate branch on a secret; missing:${missing}\n${output}")
  endif()
  message(STATUS "memcheck caught the deliberate branch on a secret, as it must")
else()
  message(FATAL_ERROR "memcheck.cmake: MODE must be clean or canary, not ${MODE}")
endif()
