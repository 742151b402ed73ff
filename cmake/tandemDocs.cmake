# tandem's API reference (doxygen), included from the top CMakeLists.txt.
#
#   cmake --build <build> --target docs     -> <build>/docs/html/index.html
#   ctest --test-dir <build> -L docs        -> docs.doxygen: the same pages, no warnings
#
# docs/Doxyfile.in is configured twice: once for the `docs` target, once for
# the check, which writes to a folder of its own and fails on any doxygen
# warning (WARN_AS_ERROR = FAIL_ON_WARNINGS; undocumented members are not
# warned about, WARN_IF_UNDOCUMENTED = NO). Without doxygen the `docs`
# target fails with one line saying how to install it.

# Only for tandem's own build: as a subproject, a target named `docs` would
# clash with the including project's.
if(NOT PROJECT_IS_TOP_LEVEL)
  return()
endif()

find_package(Doxygen QUIET)

if(DOXYGEN_FOUND)
  set(TANDEM_DOCS_OUTPUT "${CMAKE_BINARY_DIR}/docs")
  set(TANDEM_DOCS_WARN_AS_ERROR NO)
  configure_file("${PROJECT_SOURCE_DIR}/docs/Doxyfile.in" "${CMAKE_BINARY_DIR}/docs/Doxyfile" @ONLY)
  add_custom_target(docs
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_BINARY_DIR}/docs"
    COMMAND Doxygen::doxygen "${CMAKE_BINARY_DIR}/docs/Doxyfile"
    COMMAND "${CMAKE_COMMAND}" -E echo "tandem: API reference in ${CMAKE_BINARY_DIR}/docs/html/index.html"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    COMMENT "Running doxygen over include/tandem and docs/"
    VERBATIM)

  if(TANDEM_TESTS AND TANDEM_PACKAGE_TESTS)
    set(TANDEM_DOCS_OUTPUT "${CMAKE_BINARY_DIR}/docs-check")
    set(TANDEM_DOCS_WARN_AS_ERROR FAIL_ON_WARNINGS)
    configure_file("${PROJECT_SOURCE_DIR}/docs/Doxyfile.in" "${CMAKE_BINARY_DIR}/docs-check/Doxyfile" @ONLY)
    add_test(NAME docs.doxygen
      COMMAND "${CMAKE_COMMAND}"
        -DDOXYGEN=$<TARGET_FILE:Doxygen::doxygen>
        -DDOXYFILE=${CMAKE_BINARY_DIR}/docs-check/Doxyfile
        -DOUT=${CMAKE_BINARY_DIR}/docs-check
        -P "${PROJECT_SOURCE_DIR}/cmake/tandemDocsCheck.cmake"
      WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
    set_tests_properties(docs.doxygen PROPERTIES LABELS docs TIMEOUT 120)
  endif()
else()
  add_custom_target(docs
    COMMAND "${CMAKE_COMMAND}" -E echo "tandem: doxygen is not installed; run: bash scripts/setup-deps.sh --docs"
    COMMAND "${CMAKE_COMMAND}" -E false
    VERBATIM)
endif()
