# transcript.modes_agree and transcript.matches_x86: the two-party program
# tests/transcript/transcript.cpp prints a digest of each party's transcript
# under fixed seeds. Each program given (COMPILED: built against
# tandem::tandem; HEADER_ONLY: against tandem::headers) must succeed and print
# exactly EXPECTED's lines (tests/transcript/expected.txt): the same bytes on
# the wire in both build modes, on every CPU and instruction set — an AArch64
# build under qemu included — and from release to release. A change to the
# protocol changes them on purpose: then bump protocol_version and rewrite
# expected.txt from the new program's output (and say so in the commit).
file(READ "${EXPECTED}" expected)
foreach(which IN ITEMS COMPILED HEADER_ONLY)
  if(NOT DEFINED ${which})
    continue()
  endif()
  separate_arguments(command UNIX_COMMAND "${EMULATOR} ${${which}}")
  execute_process(COMMAND ${command} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${${which}} failed (${rc}): ${err}${out}")
  endif()
  message(STATUS "${which}:\n${out}")
  if(NOT out STREQUAL expected)
    message(FATAL_ERROR "the ${which} build put other bytes on the wire than ${EXPECTED} records:\n"
      "got:\n${out}\nexpected:\n${expected}\n"
      "If the protocol changed on purpose, bump protocol_version and rewrite the file from this output.")
  endif()
endforeach()
