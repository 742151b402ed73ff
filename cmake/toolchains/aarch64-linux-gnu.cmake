# Cross-compiles tandem for AArch64 Linux with Debian's cross compiler, and
# runs the resulting programs under qemu-user (CTest's tests included, through
# CMAKE_CROSSCOMPILING_EMULATOR). Used by the "aarch64" preset.
#
# Needs (scripts/setup-deps.sh --arm64 installs them): g++-aarch64-linux-gnu,
# qemu-user, and the arm64 build of the one library that is not header-only
# (dpkg --add-architecture arm64; libsodium-dev:arm64).
# Header-only dependencies (Boost.Hana, doctest) come from /usr/include
# as on the host.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Programs run under qemu-user with the arm64 multiarch C library of the
# libraries above (/lib/ld-linux-aarch64.so.1, /lib/aarch64-linux-gnu), not
# with `-L /usr/aarch64-linux-gnu`: that prefix holds the cross compiler's own
# copy of glibc, whose loader then meets the multiarch libc.so.6 of the same
# release but another build, and the first pthread_create spins for ever.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)

# pkg-config (libsodium) must read the arm64 .pc files, not the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)

# The C++ runtime is linked in statically: the multiarch prefix above holds
# only what the arm64 libsodium pulls in (libc6, libgcc-s1), not libstdc++6,
# and a machine without libstdc++6:arm64 otherwise fails every test program at
# load time ("libstdc++.so.6: cannot open shared object file").
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static-libstdc++ -static-libgcc")
