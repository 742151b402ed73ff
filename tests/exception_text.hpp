// Test helper: the message of a captured exception.
#pragma once

#include <exception>
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
