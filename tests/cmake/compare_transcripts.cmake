# transcript.modes_agree: the same two-party program built against
# tandem::tandem (COMPILED) and tandem::headers (HEADER_ONLY) must succeed and
# print the same transcript digests (tests/transcript/transcript.cpp).
foreach(which IN ITEMS COMPILED HEADER_ONLY)
  execute_process(COMMAND "${${which}}" OUTPUT_VARIABLE out_${which} ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${${which}} failed (${rc}): ${err}${out_${which}}")
  endif()
  message(STATUS "${which}:\n${out_${which}}")
endforeach()
if(out_COMPILED STREQUAL "")
  message(FATAL_ERROR "the transcript program printed nothing")
endif()
if(NOT out_COMPILED STREQUAL out_HEADER_ONLY)
  message(FATAL_ERROR "the compiled library and header-only builds put different bytes on the wire:\n"
    "compiled:\n${out_COMPILED}\nheader-only:\n${out_HEADER_ONLY}")
endif()
