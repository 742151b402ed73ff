// tandem/dsl/parallel.hpp — parallel regions: tandem::parallel_for and tandem::reduce.
//
//   auto d = tandem::parallel_for<512>([&](std::size_t i) { return distance(db[i], sample); });
//   auto best = tandem::reduce(d, [](const auto& a, const auto& b) { return tandem::min(a, b); });
//
// parallel_for runs body(0), …, body(n-1) once each while recording, as the
// n instances of one region (docs/DESIGN.md §3): instances may read any value that
// existed before the region and return secure values (anything with
// value_traits: integers, bits, arrays, tuples, Hana structs); they may not
// read each other's values, and values computed inside an instance reach the
// rest of the function only by being returned — either mistake is a
// usage_error naming the region. Instances that record the same gates on
// different data (the usual case) are stored once. The executor runs the
// instances of a region on several threads and connections (exec/).
//
// Regions nest by inlining: a parallel_for or reduce inside an instance runs
// as part of that instance, so functions that use regions compose.
// Outside tandem::compile (public constants only) both just compute.
#pragma once

#include <tandem/dsl/compile.hpp>
#include <tandem/dsl/context.hpp>
#include <tandem/dsl/value_traits.hpp>
#include <tandem/error.hpp>

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#if __has_include(<source_location>)
#include <source_location>
#endif

namespace tandem {

namespace detail {

#if defined(__cpp_lib_source_location)
using call_site = std::source_location;
#else
/// Where a region was written, for its name. Clang 14 with libstdc++ 12 (the
/// compiler of the fuzzing build) has no std::source_location; the builtins
/// it is made of are there.
struct call_site {
    static constexpr call_site current(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) noexcept {
        call_site s;
        s.file_ = file;
        s.line_ = line;
        return s;
    }
    constexpr const char* file_name() const noexcept { return file_; }
    constexpr unsigned line() const noexcept { return line_; }

private:
    const char* file_ = "";
    unsigned line_ = 0;
};
#endif

inline std::string region_name(const char* what, const call_site& loc) {
    std::string file = loc.file_name();
    if (const auto slash = file.find_last_of('/'); slash != std::string::npos) file.erase(0, slash + 1);
    return std::string(what) + " at " + file + ":" + std::to_string(loc.line());
}

/// Records n instances of body as one region; out(i, value) receives instance
/// i's result, translated to the outer circuit.
template <class R, class Body, class Out>
void record_region(std::size_t n, Body& body, Out&& out, std::string name) {
    builder* b = active_builder;
    // Constants, a nested region, or an eager stream (each gate garbled as it
    // is made, its independent ANDs batched by the window's levels anyway): inline.
    if (b == nullptr || b->in_instance() || b->eager() || n == 0) {
        for (std::size_t i = 0; i < n; ++i) out(i, body(i));
        return;
    }
    struct abandon_on_throw {
        builder& b;
        bool done = false;
        ~abandon_on_throw() {
            if (!done) b.abandon_region();
        }
    } guard{*b};
    b->begin_region(std::move(name));
    std::vector<wire_ref> refs(value_traits<R>::bits);
    for (std::size_t i = 0; i < n; ++i) {
        b->begin_instance();
        const R r = body(i);
        ref_cursor cur{refs.data(), 0};
        value_traits<R>::collect(r, cur);
        if (cur.owner != 0 && !b->accepts(cur.owner)) b->reject(cur.owner);
        b->end_instance(refs);
    }
    std::vector<wire_ref> all = b->end_region();
    guard.done = true;
    {
        const builder::cut_hold hold(b);  // a streamed run may cut only once every result is a value
        for (std::size_t i = 0; i < n; ++i) {
            ref_cursor cur{all.data() + i * refs.size(), b->serial()};
            out(i, value_traits<R>::make(cur));
        }
    }
    b->safe_point();
}

template <class Body>
using body_result_t = std::remove_cvref_t<std::invoke_result_t<Body&, std::size_t>>;

}  // namespace detail

/// n = N instances of body(i), i = 0..N-1, as one parallel region; returns their results.
template <std::size_t N, class Body>
auto parallel_for(Body&& body, detail::call_site loc = detail::call_site::current()) {
    static_assert(std::is_invocable_v<Body&, std::size_t>, "tandem::parallel_for: the body must take the index");
    using R = detail::body_result_t<Body>;
    static_assert(!std::is_void_v<R>, "tandem::parallel_for: the body must return the secure values it computes");
    std::array<R, N> results;
    detail::record_region<R>(N, body, [&](std::size_t i, R r) { results[i] = std::move(r); },
                             detail::region_name("parallel_for", loc));
    return results;
}

/// The same with a count known at run time; returns a vector.
template <class Body>
auto parallel_for(std::size_t n, Body&& body, detail::call_site loc = detail::call_site::current()) {
    static_assert(std::is_invocable_v<Body&, std::size_t>, "tandem::parallel_for: the body must take the index");
    using R = detail::body_result_t<Body>;
    static_assert(!std::is_void_v<R>, "tandem::parallel_for: the body must return the secure values it computes");
    std::vector<R> results(n);
    detail::record_region<R>(n, body, [&](std::size_t i, R r) { results[i] = std::move(r); },
                             detail::region_name("parallel_for", loc));
    return results;
}

/// Combines values with an associative op as a balanced tree: ⌈log2 n⌉
/// levels, each a parallel region of op applications (an odd value out waits
/// for the next level). op(a, b) must return the values' type.
template <class T, class Op>
T reduce(std::span<const T> values, Op&& op, detail::call_site loc = detail::call_site::current()) {
    static_assert(std::is_same_v<std::remove_cvref_t<std::invoke_result_t<Op&, const T&, const T&>>, T>,
                  "tandem::reduce: op(a, b) must return the type of the values");
    if (values.empty()) throw usage_error("tandem::reduce: no values to combine");
    std::vector<T> level(values.begin(), values.end());
    for (unsigned depth = 0; level.size() > 1; ++depth) {
        const std::size_t pairs = level.size() / 2;
        auto body = [&](std::size_t i) -> T { return op(level[2 * i], level[2 * i + 1]); };
        std::vector<T> next(pairs + level.size() % 2);
        detail::record_region<T>(pairs, body, [&](std::size_t i, T r) { next[i] = std::move(r); },
                                 detail::region_name("reduce", loc) + " (level " + std::to_string(depth) + ")");
        if (level.size() % 2 != 0) next.back() = std::move(level.back());
        level = std::move(next);
    }
    return std::move(level.front());
}

/// reduce over the values of a std::array.
template <class T, std::size_t N, class Op>
T reduce(const std::array<T, N>& values, Op&& op, detail::call_site loc = detail::call_site::current()) {
    return reduce(std::span<const T>(values), std::forward<Op>(op), loc);
}

/// reduce over the values of a std::vector.
template <class T, class Op>
T reduce(const std::vector<T>& values, Op&& op, detail::call_site loc = detail::call_site::current()) {
    return reduce(std::span<const T>(values), std::forward<Op>(op), loc);
}

}  // namespace tandem
