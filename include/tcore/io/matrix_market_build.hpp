// tcore/io/matrix_market_build.hpp - the CSR build of the Matrix Market
// reader (tcore/io/matrix_market.hpp); internals, host only.
//
// Entries arrive in file order, already expanded (a mirrored entry right
// after its original), and are kept per block of 2^shift rows in chains of
// 4 KiB chunks from one pool whose size follows from the input size (never
// from a declared count). The CSR is then built block by block - row
// counts, row starts, a stable scatter - so that the scattered writes and
// counters of one block stay in cache; a threaded read shares the blocks
// among its threads (blocks own disjoint rows). Rows come out sorted by column with
// duplicates summed left to right in file order, as sparse::from_triplets
// gives.
#pragma once

#include "../sparse/csr.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tcore::io::detail {

/// Asks the kernel for 2 MiB pages over the aligned interior of a large
/// buffer not yet touched (Linux; a hint, ignored where unsupported):
/// far fewer page faults while the buffer is first written.
inline void mm_prefer_huge_pages(void* data, std::size_t bytes)
{
#if defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + huge - 1) & ~(huge - 1);
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(huge - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}

/// Asks for the cache line at `p` ahead of a write (GCC and Clang; nothing
/// elsewhere). The pool's chains are written in hundreds of interleaved
/// streams, too many for the hardware prefetcher to follow.
inline void mm_prefetch_for_write(const void* p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 1);
#else
    (void)p;
#endif
}

/// Asks for the cache line at `p` ahead of a read (as mm_prefetch_for_write).
inline void mm_prefetch_for_read(const void* p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 0);
#else
    (void)p;
#endif
}

/// What the header says about the entry lines.
struct mm_body_form {
    long long rows = 0, cols = 0;
    int fields = 3;           ///< 2 (pattern), 3 (real, integer) or 4 (complex)
    bool integer = false;     ///< the `integer` field
    bool mirror = false;      ///< symmetric, skew-symmetric or hermitian
    bool skew = false;
    const char* symmetry = "";
};

/// One entry after expansion, 0-based: its position (the value, where the
/// field has one, sits in a parallel pool).
struct mm_slot {
    int row, col;
};

/// The entries, after symmetric expansion, kept in file order per block of
/// 2^shift rows (a few thousand blocks of ~16K entries): each block is a
/// chain of fixed-size chunks carved from one pool sized from the data
/// present, so that building the CSR rows of one block stays in cache.
class alignas(64) mm_row_blocks {  // one cache line apart: parts are filled by different threads
public:
    /// The row-block shift for a matrix of `rows` rows and up to `max_stored` entries.
    static int block_shift(long long rows, long long max_stored)
    {
        const long long target = std::clamp<long long>(max_stored >> 14, 1, 4096);
        int shift = 0;
        while (rows > 0 && ((rows - 1) >> shift) + 1 > target) ++shift;
        return shift;
    }
    /// `max_stored` bounds the entries that can arrive (from the input size);
    /// parts of one matrix read apart share `shift`. Without `values` (a
    /// pattern file) only positions are kept and every value reads as 1.
    void plan(long long rows, long long max_stored, int shift, bool values = true)
    {
        shift_ = shift;
        blocks_.assign(rows > 0 ? static_cast<std::size_t>(((rows - 1) >> shift_) + 1) : 1, block{});
        const std::size_t chunks = static_cast<std::size_t>(max_stored / chunk + 1) + blocks_.size();
        const std::size_t slots = chunks * chunk + ahead;  // uninitialised: written before read
        pool_.reset(new mm_slot[slots]);
        mm_prefer_huge_pages(pool_.get(), slots * sizeof(mm_slot));
        if (values) {
            values_.reset(new double[slots]);
            mm_prefer_huge_pages(values_.get(), slots * sizeof(double));
        } else {
            values_.reset();
        }
        chunk_next_.assign(chunks, -1);
    }
    void add(int r, int c, double v)
    {
        if (values_) add_entry<true>(r, c, v);
        else add_entry<false>(r, c, v);
    }
    /// add() where the caller knows whether values are kept (`Values` as planned).
    template <bool Values>
    void add_entry(int r, int c, double v)
    {
        block& b = blocks_[static_cast<std::size_t>(r) >> shift_];
        if (b.fill == chunk) grow(b);
        mm_prefetch_for_write(b.tail + b.fill + ahead);
        b.tail[b.fill] = {r, c};
        if constexpr (Values) {
            mm_prefetch_for_write(b.tail_value + b.fill + ahead);
            b.tail_value[b.fill] = v;
        } else {
            (void)v;
        }
        ++b.fill;
    }
    std::size_t blocks() const { return blocks_.size(); }
    int shift() const { return shift_; }
    bool has_values() const { return values_ != nullptr; }
    /// Calls f(slot, value) for each entry of block `b`, in arrival order.
    template <class F>
    void for_each(std::size_t b, F&& f) const
    {
        const block& k = blocks_[b];
        for (int c = k.head; c >= 0; c = chunk_next_[static_cast<std::size_t>(c)]) {
            const std::size_t first = static_cast<std::size_t>(c) * chunk;
            const mm_slot* s = pool_.get() + first;
            const int n = c == k.last ? k.fill : chunk;
            if (values_) {
                const double* v = values_.get() + first;
                for (int i = 0; i < n; ++i) f(s[i], v[i]);
            } else {
                for (int i = 0; i < n; ++i) f(s[i], 1.0);
            }
        }
    }
    /// Calls f(slot) for each entry of block `b`, in arrival order (positions only).
    template <class F>
    void for_each_position(std::size_t b, F&& f) const
    {
        const block& k = blocks_[b];
        for (int c = k.head; c >= 0; c = chunk_next_[static_cast<std::size_t>(c)]) {
            const mm_slot* s = pool_.get() + static_cast<std::size_t>(c) * chunk;
            const int n = c == k.last ? k.fill : chunk;
            for (int i = 0; i < n; ++i) f(s[i]);
        }
    }

private:
    static constexpr int chunk = 512;  ///< entries per chunk (4 KiB of positions)
    static constexpr int ahead = 16;   ///< slots between a write and the line asked for (past the pool's end: padding)
    struct block {
        mm_slot* tail = nullptr;
        double* tail_value = nullptr;
        int fill = chunk, head = -1, last = -1;
    };
    void grow(block& b)
    {
        const int c = used_++;  // never past the pool: at most max_stored / chunk + blocks chunks fill up
        if (b.last >= 0) chunk_next_[static_cast<std::size_t>(b.last)] = c;
        else b.head = c;
        b.last = c;
        const std::size_t first = static_cast<std::size_t>(c) * chunk;
        b.tail = pool_.get() + first;
        b.tail_value = values_ ? values_.get() + first : nullptr;
        b.fill = 0;
    }
    std::vector<block> blocks_;
    std::unique_ptr<mm_slot[]> pool_;
    std::unique_ptr<double[]> values_;  ///< parallel to pool_; null for a pattern file
    std::vector<int> chunk_next_;
    int shift_ = 0, used_ = 0;
};

/// Resizes a vector that is still empty to `n` elements, asking for huge
/// pages first (see mm_prefer_huge_pages): the zero fill then faults in
/// 2 MiB pages instead of 4 KiB ones.
template <class T>
void mm_resize_fresh(std::vector<T>& v, std::size_t n)
{
    v.reserve(n);
    mm_prefer_huge_pages(v.data(), n * sizeof(T));
    v.resize(n);
}

/// CSR from the row blocks of `parts` consecutive parts of the file (one
/// when read serially): each row sorted by column (stable: file order among
/// equal columns) and duplicates summed in that order. `stored` is the entry
/// count after expansion. `workers` threads share the row blocks.
inline sparse::csr mm_build_csr(const mm_body_form& f, const mm_row_blocks* in, std::size_t parts, long long stored,
                                std::size_t workers = 1)
{
    const std::size_t rows = static_cast<std::size_t>(f.rows);
    const std::size_t total = static_cast<std::size_t>(stored);
    sparse::csr a;
    a.rows = static_cast<int>(f.rows);
    a.cols = static_cast<int>(f.cols);
    std::vector<int> ptr;
    mm_resize_fresh(ptr, rows + 1);
    mm_resize_fresh(a.col_idx, total);
    mm_resize_fresh(a.values, total);
    int* col = a.col_idx.data();
    double* val = a.values.data();
    const std::size_t blocks = in[0].blocks();
    const int shift = in[0].shift();
    // Blocks own disjoint rows (ptr[r + 1] of their rows) and, once the
    // per-block totals are summed, disjoint ranges of col/val: `workers`
    // threads take contiguous runs of blocks in two phases.
    std::vector<int> block_first(blocks + 1, 0);
    std::vector<char> block_sorted(blocks, 1);
    const auto count_rows = [&](std::size_t b) {
        const std::size_t r0 = b << shift, r1 = std::min(rows, (b + 1) << shift);
        for (std::size_t part = 0; part < parts; ++part)
            in[part].for_each_position(b, [&](const mm_slot& s) { ++ptr[static_cast<std::size_t>(s.row) + 1]; });
        int sum = 0;
        for (std::size_t r = r0; r < r1; ++r) sum += ptr[r + 1];
        block_first[b + 1] = sum;
    };
    const auto fill_rows = [&](std::size_t b) {
        const std::size_t r0 = b << shift, r1 = std::min(rows, (b + 1) << shift);
        int start = block_first[b];
        for (std::size_t r = r0; r < r1; ++r) {  // ptr[r + 1] becomes row r's start, then its end
            const int len = ptr[r + 1];
            ptr[r + 1] = start;
            start += len;
        }
        // The block's part of col/val, asked for in order before the
        // scattered writes below, which would otherwise miss line by line.
        for (int p = block_first[b]; p < block_first[b + 1]; p += 16) mm_prefetch_for_write(col + p);
        for (int p = block_first[b]; p < block_first[b + 1]; p += 8) mm_prefetch_for_write(val + p);
        for (std::size_t part = 0; part < parts; ++part)
            in[part].for_each(b, [&](const mm_slot& s, double v) {
                const int at = ptr[static_cast<std::size_t>(s.row) + 1]++;
                col[at] = s.col;
                val[at] = v;
            });
        int begin = block_first[b];
        bool sorted = true;
        for (std::size_t r = r0; r < r1; ++r) {
            const int end = ptr[r + 1];
            for (int p = begin + 1; p < end; ++p) sorted &= col[p] > col[p - 1];
            begin = end;
        }
        block_sorted[b] = sorted;
    };
    const auto run = [&](const auto& phase) {
        const std::size_t n = std::max<std::size_t>(1, std::min(workers, blocks));
        const auto range = [&](std::size_t w) noexcept {
            for (std::size_t b = blocks * w / n; b < blocks * (w + 1) / n; ++b) phase(b);
        };
        std::vector<std::thread> pool;
        std::size_t started = 1;
        try {
            for (; started < n; ++started) pool.emplace_back(range, started);
        } catch (...) {  // no thread to be had: the rest runs here
        }
        range(0);
        for (std::size_t w = started; w < n; ++w) range(w);
        for (std::thread& th : pool) th.join();
    };
    run(count_rows);
    for (std::size_t b = 0; b < blocks; ++b) block_first[b + 1] += block_first[b];
    run(fill_rows);
    bool sorted_unique = true;
    for (const char s : block_sorted) sorted_unique = sorted_unique && s;
    if (!sorted_unique) {
        std::vector<std::pair<int, double>> row;
        int write = 0, begin = 0;
        for (std::size_t r = 0; r < rows; ++r) {
            const int end = ptr[r + 1], start = write;
            bool sorted = true;
            for (int p = begin + 1; p < end && sorted; ++p) sorted = col[p] >= col[p - 1];
            if (!sorted) {
                row.clear();
                for (int p = begin; p < end; ++p) row.emplace_back(col[p], val[p]);
                std::stable_sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
                for (int p = begin; p < end; ++p) {
                    col[p] = row[static_cast<std::size_t>(p - begin)].first;
                    val[p] = row[static_cast<std::size_t>(p - begin)].second;
                }
            }
            for (int p = begin; p < end; ++p) {
                if (write > start && col[write - 1] == col[p]) {
                    val[write - 1] += val[p];
                } else {
                    col[write] = col[p];
                    val[write] = val[p];
                    ++write;
                }
            }
            ptr[r] = start;
            begin = end;
        }
        ptr[rows] = write;
        a.col_idx.resize(static_cast<std::size_t>(write));
        a.values.resize(static_cast<std::size_t>(write));
    }
    a.row_ptr = std::move(ptr);
    return a;
}

}  // namespace tcore::io::detail
