// tandem/dsl/bit.hpp — secure_bit, one secret Boolean.
#pragma once

#include <tandem/dsl/context.hpp>

#include <concepts>
#include <cstdint>

namespace tandem {

/// A secret bit. A thin handle: a wire reference plus the builder it belongs to.
/// Default-constructed, or built from a bool, it is a public constant. In a
/// streamed run it is also a member of its builder's live list (docs/DESIGN.md §11),
/// which is how the builder knows which wires are still needed.
class secure_bit {
public:
    /// The public constant false.
    constexpr secure_bit() noexcept = default;
    /// A public constant.
    template <std::same_as<bool> B>
    constexpr secure_bit(B value) noexcept : ref_(detail::constant_ref(value)) {}  // NOLINT: public constants mix in

    /// For tandem's own use: wraps a recorded wire.
    secure_bit(detail::wire_ref ref, std::uint32_t owner) : ref_(ref), owner_(owner) {
        detail::track_value(link_, &ref_, 1, owner_);
    }
    /// A copy: the same wire (no gate).
    secure_bit(const secure_bit& o) noexcept : ref_(o.ref_), owner_(o.owner_) { link_.follow(o.link_, &ref_, 1); }
    secure_bit& operator=(const secure_bit& o) noexcept {
        ref_ = o.ref_;
        owner_ = o.owner_;
        link_.follow(o.link_, &ref_, 1);
        return *this;
    }
    ~secure_bit() = default;

    /// For tandem's own use: the wire reference.
    constexpr detail::wire_ref ref() const noexcept { return ref_; }
    /// For tandem's own use: the builder (or region instance) the value belongs to.
    constexpr std::uint32_t owner() const noexcept { return owner_; }
    /// True if the value is a public constant (known while recording).
    constexpr bool is_public() const noexcept { return ref_.is_constant(); }

    /// Not: free.
    friend secure_bit operator~(const secure_bit& a) noexcept { return {~a.ref_, a.owner_}; }
    /// Not: free.
    friend secure_bit operator!(const secure_bit& a) noexcept { return {~a.ref_, a.owner_}; }

    /// And: one AND gate unless an operand is public.
    friend secure_bit operator&(const secure_bit& a, const secure_bit& b) {
        const std::uint32_t o = detail::join_owner(a.owner_, b.owner_);
        return {detail::builder_for(o).and_(a.ref_, b.ref_), o};
    }
    /// Exclusive or: free.
    friend secure_bit operator^(const secure_bit& a, const secure_bit& b) {
        const std::uint32_t o = detail::join_owner(a.owner_, b.owner_);
        return {detail::builder_for(o).xor_(a.ref_, b.ref_), o};
    }
    /// Or: one AND gate unless an operand is public.
    friend secure_bit operator|(const secure_bit& a, const secure_bit& b) {
        const std::uint32_t o = detail::join_owner(a.owner_, b.owner_);
        return {detail::builder_for(o).or_(a.ref_, b.ref_), o};
    }
    /// a & b (both sides are always evaluated).
    friend secure_bit operator&&(const secure_bit& a, const secure_bit& b) { return a & b; }
    /// a | b (both sides are always evaluated).
    friend secure_bit operator||(const secure_bit& a, const secure_bit& b) { return a | b; }
    /// Equality: free.
    friend secure_bit operator==(const secure_bit& a, const secure_bit& b) { return ~(a ^ b); }
    /// Inequality: free.
    friend secure_bit operator!=(const secure_bit& a, const secure_bit& b) { return a ^ b; }

    secure_bit& operator&=(const secure_bit& b) { return *this = *this & b; }
    secure_bit& operator|=(const secure_bit& b) { return *this = *this | b; }
    secure_bit& operator^=(const secure_bit& b) { return *this = *this ^ b; }

private:
    detail::wire_ref ref_{};
    std::uint32_t owner_ = 0;
    detail::live_link link_;
};

/// c ? a : b, one AND.
inline secure_bit select(const secure_bit& c, const secure_bit& a, const secure_bit& b) {
    const std::uint32_t o = detail::join_owner(c.owner(), detail::join_owner(a.owner(), b.owner()));
    return {detail::builder_for(o).mux(c.ref(), a.ref(), b.ref()), o};
}

}  // namespace tandem
