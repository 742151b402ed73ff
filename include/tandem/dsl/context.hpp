// tandem/dsl/context.hpp — which builder a secure value records into.
//
// State is explicit: tandem::compile owns a builder and makes it the active one
// of the calling thread for the duration of the call (a thread_local pointer,
// restored afterwards). Every secure value carries the serial of the builder it
// belongs to (0 for public constants), so a value captured from one compile
// and used in another, or used after its compile ended, is caught at once.
#pragma once

#include <tandem/circuit/builder.hpp>
#include <tandem/detail/thread_bound.hpp>
#include <tandem/error.hpp>

#include <cstdint>

namespace tandem::detail {

inline thread_local builder* active_builder = nullptr;

/// Makes `b` the active builder of this thread while alive (and binds the
/// thread: the pointer is a thread_local, detail/thread_bound.hpp).
class active_builder_scope {
public:
    explicit active_builder_scope(builder& b) noexcept : previous_(active_builder) { active_builder = &b; }
    ~active_builder_scope() { active_builder = previous_; }
    active_builder_scope(const active_builder_scope&) = delete;
    active_builder_scope& operator=(const active_builder_scope&) = delete;

private:
    builder* previous_;
    thread_bound_scope bound_;
};

/// Owner of the result of combining values owned by `a` and `b` (0 = public
/// constant). Inside a region instance every computed value belongs to the
/// instance (builder.hpp), whatever its operands' owners.
inline std::uint32_t join_owner(std::uint32_t a, std::uint32_t b) {
    if (builder* bl = active_builder; bl != nullptr && bl->in_instance()) {
        if (a != 0 && !bl->accepts(a)) bl->reject(a);
        if (b != 0 && !bl->accepts(b)) bl->reject(b);
        return a == 0 && b == 0 ? 0 : bl->current_serial();
    }
    if (a == 0 || a == b) return b;
    if (b == 0) return a;
    if (builder* bl = active_builder; bl != nullptr) {  // a value that escaped a region says so
        if (!bl->accepts(a)) bl->reject(a);
        if (!bl->accepts(b)) bl->reject(b);
    }
    throw usage_error(
        "tandem: an operation mixes secure values recorded by two different tandem::compile calls; "
        "every secure value must come from the inputs or computations of the compile it is used in");
}

/// Owner of a value computed from one value owned by `a`.
inline std::uint32_t result_owner(std::uint32_t a) { return join_owner(a, a); }

/// Links a value just made from recorded wires into the live list of the
/// active builder when that builder streams (docs/DESIGN.md §11) and owns the value;
/// may cut the segment there (builder::track).
inline void track_value(live_link& l, wire_ref* refs, std::uint32_t n, std::uint32_t owner) {
    if (owner == 0) return;
    builder* b = active_builder;
    if (b == nullptr || !b->streaming() || owner != b->serial()) return;
    b->track(l, refs, n);
}

/// A builder that only ever sees constant operands: operations on public
/// constants outside any compile fold without recording anything.
inline builder& constant_folder() {
    thread_local builder folder;
    return folder;
}

/// The builder that operations on values owned by `owner` must record into.
inline builder& builder_for(std::uint32_t owner) {
    builder* b = active_builder;
    if (owner == 0) return b != nullptr ? *b : constant_folder();
    if (b == nullptr)
        throw usage_error(
            "tandem: a secure value was used outside tandem::compile (was it stored and used after its "
            "compile returned, or passed to another thread?); operate on secure values only inside the "
            "function given to tandem::compile");
    if (!b->accepts(owner)) b->reject(owner);
    return *b;
}

}  // namespace tandem::detail
