// tandem/detail/big_vector.hpp — vectors for arrays of millions of gates.
//
// A circuit of 10^7 gates touches hundreds of MiB once. Two costs dominate a
// naive std::vector there, and both are paid by the kernel, not by tandem:
//  * page faults — blocks of 1 MiB and more are therefore mapped directly and
//    marked for transparent huge pages (madvise(MADV_HUGEPAGE), honoured when
//    the kernel's THP mode is "madvise" or "always"), 512× fewer faults;
//  * zeroing fresh pages — freed blocks are therefore kept in a small
//    process-wide cache (at most block_cache::capacity bytes, reused by the
//    next allocation of the same size), so a program that compiles many
//    circuits pays for fresh memory once (bench_record: ~40 % of a compile).
// Smaller blocks, and platforms without mmap, use the ordinary allocator.
// Reused blocks are not cleared: big_vector holds public circuit data, or
// label arrays that gc/ wipes before freeing them.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tandem::detail {

/// Freed mapped blocks, kept for reuse. Thread-safe; bounded.
class block_cache {
public:
    static constexpr std::size_t capacity = std::size_t{512} << 20;

    static block_cache& instance() {
        static block_cache cache;
        return cache;
    }

#if defined(__linux__)
    /// A cached block of exactly `bytes`, or nullptr.
    void* take(std::size_t bytes) {
        std::lock_guard lock(mutex_);
        for (std::size_t i = blocks_.size(); i-- > 0;) {
            if (blocks_[i].bytes != bytes) continue;
            void* p = blocks_[i].p;
            held_ -= bytes;
            blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
            return p;
        }
        return nullptr;
    }
    /// Keeps the block, or unmaps it (and older blocks) to stay under capacity.
    void give(void* p, std::size_t bytes) noexcept {
        std::lock_guard lock(mutex_);
        if (bytes > capacity) {
            munmap(p, bytes);
            return;
        }
        while (held_ + bytes > capacity || blocks_.size() == max_blocks) {
            munmap(blocks_.front().p, blocks_.front().bytes);
            held_ -= blocks_.front().bytes;
            blocks_.erase(blocks_.begin());
        }
        blocks_.push_back({p, bytes});  // never reallocates: reserved max_blocks
        held_ += bytes;
    }
    ~block_cache() {
        for (const block& b : blocks_) munmap(b.p, b.bytes);
    }
#endif

private:
    static constexpr std::size_t max_blocks = 64;
    block_cache() { blocks_.reserve(max_blocks); }

    struct block {
        void* p;
        std::size_t bytes;
    };
    std::mutex mutex_;
    std::vector<block> blocks_;
    std::size_t held_ = 0;
};

template <class T>
struct big_allocator {
    using value_type = T;
    static constexpr std::size_t mapped_from = std::size_t{1} << 20;

    big_allocator() noexcept = default;
    template <class U>
    big_allocator(const big_allocator<U>&) noexcept {}

    /// Mapped blocks come in whole huge pages, so equal-sized requests share a size.
    static constexpr std::size_t mapped_size(std::size_t n) noexcept {
        constexpr std::size_t huge_page = std::size_t{2} << 20;
        const std::size_t bytes = n * sizeof(T);
        return bytes < mapped_from ? bytes : (bytes + huge_page - 1) / huge_page * huge_page;
    }

    T* allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
#if defined(__linux__)
        const std::size_t bytes = mapped_size(n);
        if (bytes >= mapped_from) {
            if (void* p = block_cache::instance().take(bytes)) return static_cast<T*>(p);
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
        if (mapped_size(n) >= mapped_from) {
            block_cache::instance().give(p, mapped_size(n));
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
