// The translation unit that builds the precompiled <tandem/tandem.hpp>
// (CMakeLists.txt, tandem_pch); tests, examples and benchmarks reuse it.
