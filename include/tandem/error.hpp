// tandem/error.hpp — the exceptions tandem throws.
//
// Three kinds of failure, each with its own type so callers can react
// differently (docs/DESIGN.md §9):
//   usage_error    — the caller misused the API (bad input, value outside its
//                    compile, malformed file). Fix the calling code.
//   protocol_error — the peer sent something this party did not expect
//                    (mismatched program or configuration, corrupt stream).
//   network_error  — the link failed (closed socket, deadline passed).
//   security_error — a check that a malicious peer cannot pass failed: the
//                    peer cheated (or the stream was tampered with). The run
//                    is aborted and nothing it produced may be used.
// Internal invariant violations are bugs in tandem and are reported as
// std::logic_error through detail::check_internal.
#pragma once

#include <stdexcept>
#include <string>

namespace tandem {

/// Base of every exception tandem throws on purpose.
class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The caller used the API in a way it does not support; the message says how to fix it.
class usage_error : public error {
public:
    using error::error;
};

/// The peer did something the protocol does not allow.
class protocol_error : public error {
public:
    using error::error;
};

/// A security check failed: the peer deviated from the protocol (or someone
/// on the path tampered with the stream). The message names the step.
class security_error : public error {
public:
    using error::error;
};

/// The network failed or a deadline passed.
class network_error : public error {
public:
    using error::error;
};

namespace detail {

/// Throws std::logic_error: a broken internal invariant, i.e. a bug in tandem.
[[noreturn]] inline void internal_error(const std::string& what) {
    throw std::logic_error("tandem internal error (please report): " + what);
}

}  // namespace detail
}  // namespace tandem
