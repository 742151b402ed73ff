// Test helpers: the message of a captured exception, and whether the protocol named the failure.
#pragma once

#include <tandem/error.hpp>

#include <exception>
#include <functional>
#include <string>

/// what() of the exception in e, or "" if e is empty or not a std::exception.
inline std::string message_of(std::exception_ptr e) {
    try {
        if (e) std::rethrow_exception(e);
    } catch (const std::exception& x) {
        return x.what();
    } catch (...) {
    }
    return "";
}

/// Whether e holds a security_error or a protocol_error: a failure the
/// protocol named, not only the link closing after one.
inline bool named_failure(const std::exception_ptr& e) {
    try {
        if (e) std::rethrow_exception(e);
    } catch (const tandem::security_error&) {
        return true;
    } catch (const tandem::protocol_error&) {
        return true;
    } catch (...) {
    }
    return false;
}

/// what() of the usage_error f throws, or "(no usage_error)" if it throws none.
inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const tandem::usage_error& e) {
        return e.what();
    }
    return "(no usage_error)";
}
