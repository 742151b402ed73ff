# Builds and runs tests/package/consumer against tandem the way a user would.
#
#   cmake -DMODE=find_package|add_subdirectory -DTANDEM_SOURCE_DIR=… -DTANDEM_BUILD_DIR=…
#         -DCONSUMER_DIR=… -DWORK_DIR=… -DGENERATOR=… [-DMAKE_PROGRAM=…] [-DCXX_COMPILER=…]
#         -P run_consumer.cmake
#
# find_package:     install the build tree TANDEM_BUILD_DIR (this one, built as a user
#                   builds before installing) into WORK_DIR/prefix, then build the
#                   consumer with CMAKE_PREFIX_PATH=WORK_DIR/prefix. (Installing a second
#                   tree configured alone would compile tandem-run again: 80 s of CI.)
#                   The consumer links the installed libtandem.a (compiled mode).
# add_subdirectory: build the consumer with tandem's source tree as a subdirectory,
#                   header-only (TANDEM_HEADER_ONLY=ON): both modes are tested as
#                   users get them, and this test does not compile the library again.
# Any failing step stops with FATAL_ERROR and that step's output.
cmake_minimum_required(VERSION 3.21)

foreach(var MODE TANDEM_SOURCE_DIR TANDEM_BUILD_DIR CONSUMER_DIR WORK_DIR GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: ${var} is not set")
  endif()
endforeach()

set(config Release)
set(common_args -G "${GENERATOR}" "-DCMAKE_BUILD_TYPE=${config}"
  -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
  -DCMAKE_FIND_PACKAGE_NO_SYSTEM_PACKAGE_REGISTRY=ON)
if(MAKE_PROGRAM)
  list(APPEND common_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(CXX_COMPILER)
  list(APPEND common_args "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()

function(step what)
  message(STATUS "package.${MODE}: ${what}")
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE result
    OUTPUT_VARIABLE output
    ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "package.${MODE}: ${what} failed (${result}):\n  ${ARGN}\n${output}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(consumer_build "${WORK_DIR}/consumer-build")

if(MODE STREQUAL "find_package")
  set(prefix "${WORK_DIR}/prefix")
  step("install tandem" "${CMAKE_COMMAND}" --install "${TANDEM_BUILD_DIR}" --prefix "${prefix}")
  # tandem-run is installed with the package and runs from there.
  set(installed_runner "${prefix}/bin/tandem-run")
  if(NOT EXISTS "${installed_runner}")
    message(FATAL_ERROR "package.${MODE}: tandem-run was not installed (no ${installed_runner})")
  endif()
  execute_process(COMMAND "${installed_runner}" plain add8 --input 200 100 --output dec
    RESULT_VARIABLE runner_result OUTPUT_VARIABLE runner_output ERROR_VARIABLE runner_output)
  if(NOT runner_result EQUAL 0 OR NOT runner_output MATCHES "output 0 \\(8 bits\\): 44")
    message(FATAL_ERROR "package.${MODE}: the installed tandem-run did not compute 200 + 100 mod 256 = 44 "
      "(${runner_result}):\n${runner_output}")
  endif()
  file(GLOB_RECURSE installed_config "${prefix}/*/tandemConfig.cmake")
  if(NOT installed_config)
    message(FATAL_ERROR "package.${MODE}: no tandemConfig.cmake under ${prefix}")
  endif()
  step("configure consumer" "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${consumer_build}" ${common_args}
    -DTANDEM_CONSUMER_MODE=find_package "-DCMAKE_PREFIX_PATH=${prefix}")
  # The consumer must have found the installed package, not some other tandem.
  file(STRINGS "${consumer_build}/CMakeCache.txt" tandem_dir REGEX "^tandem_DIR:")
  string(REGEX REPLACE "^tandem_DIR:[A-Z]*=" "" tandem_dir "${tandem_dir}")
  file(REAL_PATH "${prefix}" prefix_real)
  file(REAL_PATH "${tandem_dir}" tandem_dir_real)
  string(FIND "${tandem_dir_real}" "${prefix_real}/" at)
  if(NOT at EQUAL 0)
    message(FATAL_ERROR "package.${MODE}: the consumer found tandem in ${tandem_dir}, not under ${prefix}")
  endif()
elseif(MODE STREQUAL "add_subdirectory")
  step("configure consumer" "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${consumer_build}" ${common_args}
    -DTANDEM_CONSUMER_MODE=add_subdirectory "-DTANDEM_SOURCE_DIR=${TANDEM_SOURCE_DIR}" -DTANDEM_HEADER_ONLY=ON)
  # As a subproject tandem must not build its tests, examples, benchmarks or tools.
  foreach(dir tests examples bench tools)
    if(EXISTS "${consumer_build}/tandem_build/${dir}")
      message(FATAL_ERROR "package.${MODE}: tandem configured its ${dir} as a subproject")
    endif()
  endforeach()
else()
  message(FATAL_ERROR "run_consumer.cmake: MODE must be find_package or add_subdirectory, not '${MODE}'")
endif()

step("build consumer" "${CMAKE_COMMAND}" --build "${consumer_build}" --config ${config})
step("run consumer" "${consumer_build}/bin/tandem_consumer")
message(STATUS "package.${MODE}: ok")
