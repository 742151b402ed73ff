# Finds tandem's dependencies. Shared by the top-level CMakeLists.txt and by the
# installed tandemConfig.cmake, so a build from source and find_package(tandem)
# see exactly the same dependencies.
#
# Creates or reuses:
#   Boost::headers    Boost.Hana (header-only)          Debian: libboost-dev
#   Threads::Threads
#   tandem::sodium    libsodium, via pkg-config          Debian: libsodium-dev
#   tandem::asio      standalone Asio (header-only)      Debian: libasio-dev
#   OpenSSL::SSL      OpenSSL >= 1.1.1, for TLS links    Debian: libssl-dev
#   TBB::tbb          oneTBB, for asynchronous sessions  Debian: libtbb-dev
#
# This file defines every target before the installed tandemTargets.cmake
# (which links them into tandem::tandem) is read.
#
# A missing dependency stops the configuration with a message naming the
# Debian package to install. Inside tandemConfig.cmake (TANDEM_DEPENDENCIES_FOR_PACKAGE
# set), it instead sets tandem_FOUND to FALSE with that message, as a package
# configuration file should; find_package(tandem REQUIRED) then stops with it.

set(_tandem_missing "")
set(_tandem_missing_packages "")
macro(_tandem_missing_dependency what package)
  string(APPEND _tandem_missing "\n  tandem needs ${what}: apt-get install ${package}")
  list(APPEND _tandem_missing_packages ${package})
endmacro()

# Boost: only the headers (Hana).
if(NOT TARGET Boost::headers)
  find_package(Boost 1.74 QUIET)
endif()
if(NOT TARGET Boost::headers)
  _tandem_missing_dependency("Boost.Hana (Boost >= 1.74 headers)" libboost-dev)
endif()

# Threads.
if(NOT TARGET Threads::Threads)
  set(THREADS_PREFER_PTHREAD_FLAG ON)
  find_package(Threads QUIET)
endif()
if(NOT TARGET Threads::Threads)
  _tandem_missing_dependency("a threads library" libc6-dev)
endif()

# libsodium: pkg-config first, then a plain search for the header and library.
if(NOT TARGET tandem::sodium)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(TANDEM_SODIUM QUIET IMPORTED_TARGET libsodium>=1.0.18)
  endif()
  if(TARGET PkgConfig::TANDEM_SODIUM)
    add_library(tandem::sodium INTERFACE IMPORTED)
    target_link_libraries(tandem::sodium INTERFACE PkgConfig::TANDEM_SODIUM)
  else()
    find_path(TANDEM_SODIUM_INCLUDE_DIR NAMES sodium.h)
    find_library(TANDEM_SODIUM_LIBRARY NAMES sodium libsodium)
    mark_as_advanced(TANDEM_SODIUM_INCLUDE_DIR TANDEM_SODIUM_LIBRARY)
    if(TANDEM_SODIUM_INCLUDE_DIR AND TANDEM_SODIUM_LIBRARY)
      add_library(tandem::sodium INTERFACE IMPORTED)
      target_include_directories(tandem::sodium INTERFACE "${TANDEM_SODIUM_INCLUDE_DIR}")
      target_link_libraries(tandem::sodium INTERFACE "${TANDEM_SODIUM_LIBRARY}")
    endif()
  endif()
endif()
if(NOT TARGET tandem::sodium)
  _tandem_missing_dependency("libsodium (found with pkg-config)" "libsodium-dev pkg-config")
endif()

# Standalone Asio: headers only. The compiled library (src/net.cpp) is the
# one place that includes it, unless tandem is used header-only.
if(NOT TARGET tandem::asio)
  find_path(TANDEM_ASIO_INCLUDE_DIR NAMES asio.hpp)
  mark_as_advanced(TANDEM_ASIO_INCLUDE_DIR)
  if(TANDEM_ASIO_INCLUDE_DIR)
    add_library(tandem::asio INTERFACE IMPORTED)
    target_include_directories(tandem::asio INTERFACE "${TANDEM_ASIO_INCLUDE_DIR}")
    target_compile_definitions(tandem::asio INTERFACE ASIO_STANDALONE ASIO_NO_DEPRECATED)
  endif()
endif()
if(NOT TARGET tandem::asio)
  _tandem_missing_dependency("standalone Asio (asio.hpp)" libasio-dev)
endif()

# OpenSSL: TLS 1.3 links (net/tls.hpp) through Asio's SSL layer, compiled
# once into the library (src/net.cpp) unless tandem is used header-only.
if(NOT TARGET OpenSSL::SSL)
  find_package(OpenSSL 1.1.1 QUIET)
endif()
if(NOT TARGET OpenSSL::SSL)
  _tandem_missing_dependency("OpenSSL >= 1.1.1 (TLS links)" libssl-dev)
endif()

# oneTBB: the arena and resumable tasks of asynchronous sessions
# (tandem/async.hpp), compiled once into the library (src/async.cpp) unless
# tandem is used header-only.
if(NOT TARGET TBB::tbb)
  find_package(TBB 2021 QUIET)
endif()
if(NOT TARGET TBB::tbb)
  _tandem_missing_dependency("oneTBB >= 2021 (asynchronous sessions)" libtbb-dev)
endif()

if(_tandem_missing)
  list(REMOVE_DUPLICATES _tandem_missing_packages)
  list(JOIN _tandem_missing_packages " " _tandem_missing_packages)
  set(_tandem_missing_message
    "tandem: missing dependencies:${_tandem_missing}\n"
    "On Debian/Ubuntu, all at once: apt-get install ${_tandem_missing_packages}\n"
    "(or run scripts/setup-deps.sh from tandem's source tree)")
  string(CONCAT _tandem_missing_message ${_tandem_missing_message})
  if(TANDEM_DEPENDENCIES_FOR_PACKAGE)
    set(tandem_FOUND FALSE)
    set(tandem_NOT_FOUND_MESSAGE "${_tandem_missing_message}")
  else()
    message(FATAL_ERROR "${_tandem_missing_message}")
  endif()
endif()
unset(_tandem_missing)
unset(_tandem_missing_packages)
unset(_tandem_missing_message)
