// tandem/detail/big_vector.hpp — vectors for arrays of millions of gates.
//
// A circuit of 10^7 gates touches hundreds of MiB once; with 4 KiB pages the
// page faults cost more than the work (bench_record: a third of the time).
// Blocks of 1 MiB and more are therefore mapped directly and marked for
// transparent huge pages (madvise(MADV_HUGEPAGE), honoured when the kernel's
// THP mode is "madvise" or "always"), which cuts the faults 512-fold. Smaller
// blocks, and platforms without mmap, use the ordinary allocator.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tandem::detail {

template <class T>
struct big_allocator {
    using value_type = T;
    static constexpr std::size_t mapped_from = std::size_t{1} << 20;

    big_allocator() noexcept = default;
    template <class U>
    big_allocator(const big_allocator<U>&) noexcept {}

    T* allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
#if defined(__linux__)
        const std::size_t bytes = n * sizeof(T);
        if (bytes >= mapped_from) {
            void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED) throw std::bad_alloc();
            madvise(p, bytes, MADV_HUGEPAGE);  // a hint: failure only costs speed
            return static_cast<T*>(p);
        }
#endif
        return std::allocator<T>{}.allocate(n);
    }
    void deallocate(T* p, std::size_t n) noexcept {
#if defined(__linux__)
        if (n * sizeof(T) >= mapped_from) {
            munmap(p, n * sizeof(T));
            return;
        }
#endif
        std::allocator<T>{}.deallocate(p, n);
    }
    /// resize() leaves trivial elements uninitialised: every pass that uses a
    /// big_vector writes each element before reading it.
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    template <class U>
    friend bool operator==(const big_allocator&, const big_allocator<U>&) noexcept {
        return true;
    }
};

template <class T>
using big_vector = std::vector<T, big_allocator<T>>;

}  // namespace tandem::detail

namespace tandem::detail {

/// An append-only array in chunks of 2^20 elements: growing it never copies
/// or re-faults what is already stored (a recording of 10^7 gates would
/// otherwise be copied on every doubling). The first chunk grows like a
/// vector, so small recordings stay small.
template <class T>
class chunked_vector {
public:
    static constexpr std::size_t chunk_bits = 20;
    static constexpr std::size_t chunk_size = std::size_t{1} << chunk_bits;

    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }

    void push_back(const T& v) {
        if ((size_ & (chunk_size - 1)) == 0 && size_ != 0) {
            chunks_.emplace_back();
            chunks_.back().reserve(chunk_size);
        } else if (chunks_.empty()) {
            chunks_.emplace_back();
        }
        chunks_.back().push_back(v);
        ++size_;
    }

    T& operator[](std::size_t i) noexcept { return chunks_[i >> chunk_bits][i & (chunk_size - 1)]; }
    const T& operator[](std::size_t i) const noexcept { return chunks_[i >> chunk_bits][i & (chunk_size - 1)]; }

    /// Releases the storage.
    void clear() noexcept {
        chunks_.clear();
        size_ = 0;
    }

private:
    std::vector<big_vector<T>> chunks_;
    std::size_t size_ = 0;
};

}  // namespace tandem::detail
