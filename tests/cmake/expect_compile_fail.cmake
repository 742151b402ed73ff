# cmake -DBUILD_DIR=… -DTARGET=… -DCONFIG=… -DREGEX=… -P expect_compile_fail.cmake
# Passes when building TARGET fails AND the build output matches REGEX, so the
# test cannot pass on an unrelated error (a typo, a missing header).
foreach(var BUILD_DIR TARGET REGEX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "expect_compile_fail.cmake: ${var} is not set")
  endif()
endforeach()
set(config_args "")
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()

execute_process(
  COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}" ${config_args}
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)

if(result EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled, but it must not:\n${output}")
endif()
if(NOT output MATCHES "${REGEX}")
  message(FATAL_ERROR "${TARGET} failed to compile, but its output does not match \"${REGEX}\":\n${output}")
endif()
message(STATUS "${TARGET} fails to compile, as it must, with \"${REGEX}\"")
