// The library's translation unit for the DSL's recorder, lay-out and the
// compile's segment joiner (CMake target tandem::tandem unless
// TANDEM_HEADER_ONLY is on): non-template code that every file recording a
// function would otherwise compile again.
#ifndef TANDEM_SEPARATE_COMPILATION
#error "src/core.cpp is compiled with TANDEM_SEPARATE_COMPILATION (CMake's tandem::tandem sets it)"
#endif

#include <tandem/circuit/builder_impl.hpp>
#include <tandem/circuit/layout_impl.hpp>
#include <tandem/dsl/compile_impl.hpp>
