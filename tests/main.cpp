// doctest's runner: main() and the framework, compiled once per build tree and
// linked into every test executable (tests/CMakeLists.txt, tandem_test_main).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
