// tandem/detail/big_vector.hpp — vectors for arrays of millions of gates.
//
// A circuit of 10^7 gates touches hundreds of MiB once. Two costs dominate a
// naive std::vector there, and both are paid by the kernel, not by tandem:
//  * page faults — blocks of 1 MiB and more are therefore mapped directly,
//    and those of 8 MiB and more marked for transparent huge pages
//    (madvise(MADV_HUGEPAGE), honoured when the kernel's THP mode is
//    "madvise" or "always"), 512× fewer faults;
//  * zeroing fresh pages — freed blocks are therefore kept in a small
//    process-wide cache (at most block_cache::capacity bytes, reused by the
//    next allocation of the same size), so a program that compiles many
//    circuits pays for fresh memory once (bench_record: ~40 % of a compile).
// Smaller blocks, and platforms without mmap, use the ordinary allocator.
// A big_vector grows a mapped block with mremap (no copy, never old and new
// at once) or into a cached block (resident already, no zeroing); the block
// it leaves is not wiped, so arrays of secrets are never grown in place
// (session/stream.hpp copies labels into a new array and wipes the old).

// Reused blocks are not cleared: big_vector holds public circuit data, or
// label arrays that gc/ wipes before freeing them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
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
    /// The smallest cached block of `bytes` to `most` bytes (its size in
    /// `got`), or nullptr: a growing array takes it instead of fresh pages.
    void* take_at_least(std::size_t bytes, std::size_t most, std::size_t& got) {
        std::lock_guard lock(mutex_);
        std::size_t best = blocks_.size();
        for (std::size_t i = 0; i < blocks_.size(); ++i)
            if (blocks_[i].bytes >= bytes && blocks_[i].bytes <= most && (best == blocks_.size() || blocks_[i].bytes < blocks_[best].bytes)) best = i;
        if (best == blocks_.size()) return nullptr;
        void* p = blocks_[best].p;
        got = blocks_[best].bytes;
        held_ -= got;
        blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(best));
        return p;
    }
    /// Unmaps the oldest blocks until at least `bytes` are gone (or none is
    /// left): an array growing in place into fresh pages takes its new
    /// memory from the cache's share, so the two together hold no more than
    /// before (a recording of 10^7 gates grew past cached blocks it could
    /// not use, 48 MiB of them).
    void release(std::size_t bytes) noexcept {
        std::lock_guard lock(mutex_);
        std::size_t freed = 0;
        while (freed < bytes && !blocks_.empty()) {
            munmap(blocks_.front().p, blocks_.front().bytes);
            freed += blocks_.front().bytes;
            held_ -= blocks_.front().bytes;
            blocks_.erase(blocks_.begin());
        }
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
    /// Blocks from this size on are marked for huge pages. Below it a block
    /// has at most 2048 small pages (within the second-level TLB of Zen 3 and
    /// recent Intel cores) and faults a few thousand times at most, while a
    /// block touched in part would be resident in whole 2 MiB pages: a
    /// streamed segment's recording (2.9 MiB touched of a 4 MiB block, reused
    /// segment after segment) cost 4 MiB where 2.9 suffice.
    static constexpr std::size_t huge_pages_from = std::size_t{8} << 20;
    /// A hint to the kernel (failure only costs speed).
    static void advise(void* p, std::size_t bytes) noexcept {
#if defined(__linux__)
        if (bytes >= huge_pages_from) madvise(p, bytes, MADV_HUGEPAGE);
#else
        (void)p, (void)bytes;
#endif
    }

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
            advise(p, bytes);
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

/// A vector of trivially copyable elements on big_allocator. Unlike
/// std::vector it grows a mapped block in place where the kernel can
/// (mremap: the pages move, nothing is copied), so appending to an array of
/// gigabytes never holds the old and the new array at once — compile appends
/// each segment's gates to the circuit this way (dsl/compile.hpp). resize()
/// leaves new elements uninitialised: every pass that uses a big_vector
/// writes each element before reading it.
template <class T>
class big_vector {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "big_vector holds plain data");

public:
    using value_type = T;
    using iterator = T*;
    using const_iterator = const T*;

    big_vector() noexcept = default;
    explicit big_vector(std::size_t n) { resize(n); }
    big_vector(std::initializer_list<T> init) {
        resize(init.size());
        std::copy(init.begin(), init.end(), p_);
    }
    big_vector(const big_vector& o) {
        resize(o.n_);
        if (o.n_ != 0) std::memcpy(static_cast<void*>(p_), o.p_, o.n_ * sizeof(T));
    }
    big_vector(big_vector&& o) noexcept
        : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)), cap_(std::exchange(o.cap_, 0)) {}
    big_vector& operator=(const big_vector& o) {
        if (this != &o) {
            big_vector copy(o);
            swap(copy);
        }
        return *this;
    }
    big_vector& operator=(big_vector&& o) noexcept {
        big_vector gone(std::move(o));
        swap(gone);
        return *this;
    }
    ~big_vector() { release(); }

    void swap(big_vector& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(n_, o.n_);
        std::swap(cap_, o.cap_);
    }

    std::size_t size() const noexcept { return n_; }
    std::size_t capacity() const noexcept { return cap_; }
    bool empty() const noexcept { return n_ == 0; }
    T* data() noexcept { return p_; }
    const T* data() const noexcept { return p_; }
    T& operator[](std::size_t i) noexcept { return p_[i]; }
    const T& operator[](std::size_t i) const noexcept { return p_[i]; }
    T& back() noexcept { return p_[n_ - 1]; }
    T* begin() noexcept { return p_; }
    T* end() noexcept { return p_ + n_; }
    const T* begin() const noexcept { return p_; }
    const T* end() const noexcept { return p_ + n_; }

    void reserve(std::size_t n) {
        if (n > cap_) grow_to(n);
    }
    void resize(std::size_t n) {
        if (n > cap_) grow_to(std::max(n, cap_ + cap_ / 2));
        n_ = n;
    }
    /// resize(n), with new elements set to v.
    void resize(std::size_t n, const T& v) {
        const std::size_t old = n_;
        resize(n);
        if (n > old) std::fill(p_ + old, p_ + n, v);
    }
    void assign(std::size_t n, const T& v) {
        n_ = 0;
        resize(n, v);
    }
    /// One compare and a store while there is room: the recorder appends
    /// every gate it records this way (circuit/builder.hpp).
    [[gnu::always_inline]] void push_back(const T& v) {
        if (n_ == cap_) [[unlikely]]
            grow_to(std::max<std::size_t>(16, 2 * cap_));
        p_[n_++] = v;
    }
    /// Appends [first, last) (not from this vector).
    void append(const T* first, const T* last) {
        const std::size_t old = n_, k = static_cast<std::size_t>(last - first);
        resize(old + k);
        if (k != 0) std::memcpy(static_cast<void*>(p_ + old), first, k * sizeof(T));
    }
    void clear() noexcept { n_ = 0; }
    /// Frees the storage.
    void release() noexcept {
        if (p_ != nullptr) big_allocator<T>{}.deallocate(p_, cap_);
        p_ = nullptr;
        n_ = cap_ = 0;
    }

private:
    [[gnu::noinline]] void grow_to(std::size_t cap) {
        using alloc = big_allocator<T>;
        if (cap > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
#if defined(__linux__) && defined(MREMAP_MAYMOVE)
        const std::size_t from = alloc::mapped_size(cap_), to = alloc::mapped_size(cap);
        std::size_t got = 0;
        if (to >= alloc::mapped_from) {
            // A cached block is resident already: copying into it adds no
            // memory and spares the kernel zeroing fresh pages. An array
            // that grows is likely to grow on, so it may take a block of any
            // size (at the smallest size, copying least); a new one at most
            // twice what it asked for.
            const std::size_t most = p_ != nullptr ? static_cast<std::size_t>(-1) : 2 * to;
            if (void* q = block_cache::instance().take_at_least(to, most, got)) {
                if (n_ != 0) std::memcpy(q, static_cast<const void*>(p_), n_ * sizeof(T));
                if (p_ != nullptr) alloc{}.deallocate(p_, cap_);
                p_ = static_cast<T*>(q);
                cap_ = got / sizeof(T);
                return;
            }
        }
        if (p_ != nullptr && from >= alloc::mapped_from && to > from) {
            block_cache::instance().release(to - from);
            void* q = mremap(p_, from, to, MREMAP_MAYMOVE);
            if (q == MAP_FAILED) throw std::bad_alloc();
            alloc::advise(q, to);
            p_ = static_cast<T*>(q);
            cap_ = cap;
            return;
        }
#endif
        T* q = alloc{}.allocate(cap);
        if (n_ != 0) std::memcpy(static_cast<void*>(q), p_, n_ * sizeof(T));
        if (p_ != nullptr) alloc{}.deallocate(p_, cap_);
        p_ = q;
        cap_ = cap;
    }

    T* p_ = nullptr;
    std::size_t n_ = 0;
    std::size_t cap_ = 0;
};

}  // namespace tandem::detail

