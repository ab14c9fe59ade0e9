// tests/gpu/test_user_bfs_step.cu - a worked user kernel: one frontier step
// of a BFS on a random bit matrix, written as a user would with the
// bit-matrix frontier step of tcore/patterns/bitbfs.cuh
// (bitbfs::slice_frontier_step: D = A_slice * [f .. f] on the 1-bit MMA,
// then the hit rows that were not visited yet are claimed).
//
// The user's format (host, their own code): an n x n bit matrix (row v = the
// out-neighbours of vertex v) in 8x128 slices, a flat list of the non-empty
// ones, each with its row block R, column block C and 32 words (word 4r + w
// = slice row r, columns 32w .. 32w + 31). The list is shuffled so that the
// slices of one row block land on different warps: slice_frontier_step
// claims rows with atomics, so warps may step one row block at once. Warp w
// takes slices w, w + warps, ...; lane l passes slice word l and frontier
// word 4C + l % 4 (the A and B maps of b1_m8n8k128). Slice densities vary
// (1/64, 1/8, 1/2 of the bits); n is not a multiple of 8 or 128 (rows and
// columns past n stay 0). Visited is random with the frontier inside it.
// Backends tensor_core (BMMA.88128.AND.POPC) and cuda_core.
//
// Checked against a CPU step, exactly (no rounding: bits and counts):
//   the mask each call returns (rows of the slice with a frontier
//     neighbour), stored per slice into an output poisoned with 0xFFFFFFFF;
//   the next bitmap (rows newly found) and the visited bitmap after;
//   levels: depth + 1 for the newly found rows, the poison value
//     (0x5A5A5A5A) everywhere else (the step writes no other level);
//   the tally: new vertices and their degree sum (CSR degrees of a
//     separate random graph: step_counts uses the csr_view for degrees).
// There is no vendor primitive for a bit-matrix BFS step (cuSPARSE SpMV on
// a 0/1 matrix gives the counts, not the claims); the CPU step is the
// reference. Planted fault "perturb": one returned mask bit flipped.
#include "common/test_util.hpp"

#include <tcore/patterns/bitbfs.cuh>

#include <algorithm>
#include <cstdio>
#include <vector>

using tcore::test::device_buffer;
using tcore::test::tally;
namespace bb = tcore::bitbfs;

namespace {

constexpr int warps_per_block = 4;
constexpr int level_poison = 0x5A5A5A5A;

/// One frontier step over a flat list of slices, warp w taking slices w,
/// w + warps, ...: returned masks to hit_mask, tallies to totals[0..1].
template <class Backend>
__global__ void user_bfs_step(const unsigned* bits, const int* slice_row, const int* slice_col, int slices,
                              bb::step_state st, bb::csr_view c, unsigned* hit_mask, unsigned long long* totals)
{
    const int lane = tcore::lane_id();
    const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
    const int warps = static_cast<int>(gridDim.x * blockDim.x / 32);
    bb::step_counts cnt;
    for (int k = warp; k < slices; k += warps) {  // warp-uniform bounds: all lanes call the step
        const int C = slice_col[k];
        const unsigned a = bits[static_cast<long long>(k) * bb::slice_words + lane];
        const unsigned f = st.frontier[4 * C + (lane & 3)];
        const unsigned hits = bb::slice_frontier_step<Backend>(st, c, slice_row[k], a, f, cnt);
        if (lane == 0) hit_mask[k] = hits;
    }
    if (cnt.vertices) atomicAdd(&totals[0], cnt.vertices);
    if (cnt.degrees) atomicAdd(&totals[1], cnt.degrees);
}

struct bit_matrix {
    int n = 0;
    std::vector<int> row, col;    ///< row block and column block of each slice
    std::vector<unsigned> bits;   ///< 32 words per slice
};

bit_matrix random_bit_matrix(int n, tcore::test::rng& r)
{
    bit_matrix m;
    m.n = n;
    const int row_blocks = (n + 7) / 8, col_blocks = (n + 127) / 128;
    for (int R = 0; R < row_blocks; ++R)
        for (int C = 0; C < col_blocks; ++C) {
            if (r.next() % 10 >= 3) continue;  // 30% of the slices exist
            constexpr unsigned density_shifts[3] = {6, 3, 1};  // 1/64, 1/8, 1/2 of the bits
            const unsigned density_shift = density_shifts[r.next() % 3];
            unsigned w[32] = {};
            unsigned any = 0;
            for (int row = 0; row < 8; ++row)
                for (int j = 0; j < 128; ++j) {
                    const int v = 8 * R + row, u = 128 * C + j;
                    if (v >= n || u >= n) continue;
                    if (r.next() % (1u << density_shift) == 0) w[4 * row + j / 32] |= 1u << (j % 32), any = 1;
                }
            if (!any) continue;
            m.row.push_back(R), m.col.push_back(C);
            m.bits.insert(m.bits.end(), w, w + 32);
        }
    // Shuffle the list (the user's order is arbitrary).
    const int s = static_cast<int>(m.row.size());
    for (int i = s - 1; i > 0; --i) {
        const int j = static_cast<int>(r.next() % static_cast<unsigned>(i + 1));
        std::swap(m.row[i], m.row[j]), std::swap(m.col[i], m.col[j]);
        for (int t = 0; t < 32; ++t) std::swap(m.bits[32 * i + t], m.bits[32 * j + t]);
    }
    return m;
}

template <class Backend>
void check_step(tally& t, const char* bname, int n, tcore::test::rng& r)
{
    const bit_matrix m = random_bit_matrix(n, r);
    const int slices = static_cast<int>(m.row.size());
    const std::size_t words = (static_cast<std::size_t>(n) + 127) / 128 * 4;
    auto bit = [](const std::vector<unsigned>& b, int v) { return (b[v >> 5] >> (v & 31)) & 1u; };
    // Frontier (10%) inside visited (frontier + 25% more); degrees 0..40.
    std::vector<unsigned> frontier(words, 0u), visited(words, 0u);
    for (int v = 0; v < n; ++v) {
        if (r.next() % 10 == 0) frontier[v >> 5] |= 1u << (v & 31);
        if (bit(frontier, v) || r.next() % 4 == 0) visited[v >> 5] |= 1u << (v & 31);
    }
    std::vector<long long> row_ptr(static_cast<std::size_t>(n) + 1, 0);
    for (int v = 0; v < n; ++v) row_ptr[v + 1] = row_ptr[v] + static_cast<long long>(r.next() % 41);
    const int depth = 3;

    // CPU step.
    std::vector<unsigned> want_mask(static_cast<std::size_t>(slices), 0u), want_next(words, 0u);
    for (int k = 0; k < slices; ++k)
        for (int row = 0; row < 8; ++row)
            for (int w = 0; w < 4; ++w)
                if (m.bits[32 * k + 4 * row + w] & frontier[4 * m.col[k] + w]) want_mask[k] |= 1u << row;
    for (int k = 0; k < slices; ++k)
        for (int row = 0; row < 8; ++row) {
            const int v = 8 * m.row[k] + row;
            if (((want_mask[k] >> row) & 1u) && !bit(visited, v)) want_next[v >> 5] |= 1u << (v & 31);
        }
    std::vector<unsigned> want_visited(words);
    std::vector<int> want_level(static_cast<std::size_t>(n), level_poison);
    unsigned long long want_vertices = 0, want_degrees = 0;
    for (std::size_t i = 0; i < words; ++i) want_visited[i] = visited[i] | want_next[i];
    for (int v = 0; v < n; ++v)
        if (bit(want_next, v)) want_level[v] = depth + 1, ++want_vertices, want_degrees += row_ptr[v + 1] - row_ptr[v];

    // GPU step.
    device_buffer<unsigned> d_bits(m.bits.size()), d_frontier(words), d_visited(words), d_next(words);
    device_buffer<unsigned> d_mask(static_cast<std::size_t>(slices));
    device_buffer<int> d_row(m.row.size()), d_col(m.col.size()), d_level(static_cast<std::size_t>(n));
    device_buffer<long long> d_row_ptr(row_ptr.size());
    device_buffer<unsigned long long> d_totals(2);
    d_bits.upload(m.bits), d_frontier.upload(frontier), d_visited.upload(visited);
    d_row.upload(m.row), d_col.upload(m.col), d_row_ptr.upload(row_ptr);
    d_next.poison(0), d_totals.poison(0);  // the step ORs into next and adds into the tallies
    d_mask.poison(0xFF), d_level.poison(0x5A);
    bb::step_state st{d_visited.ptr, d_frontier.ptr, d_next.ptr, d_level.ptr, depth};
    bb::csr_view c;
    c.n = n, c.row_ptr = d_row_ptr.ptr;
    const int blocks = 7;  // fewer warps than slices: each warp takes several
    user_bfs_step<Backend><<<blocks, 32 * warps_per_block>>>(d_bits.ptr, d_row.ptr, d_col.ptr, slices, st, c, d_mask.ptr,
                                                             d_totals.ptr);
    TCORE_CHECK_LAUNCH();
    TCORE_CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> got_mask = d_mask.download();
    if (tcore::test::planted("perturb") && slices > 0) got_mask[0] ^= 1u;
    const std::vector<unsigned> got_next = d_next.download(), got_visited = d_visited.download();
    const std::vector<int> got_level = d_level.download();
    const std::vector<unsigned long long> totals = d_totals.download();

    int bad_mask = 0, bad_level = 0;
    for (int k = 0; k < slices; ++k) bad_mask += got_mask[k] != want_mask[k];
    for (int v = 0; v < n; ++v) bad_level += got_level[v] != want_level[v];
    t.check(bad_mask == 0, "%s n=%d: %d of %d returned masks wrong", bname, n, bad_mask, slices);
    t.check(got_next == want_next, "%s n=%d: next bitmap wrong", bname, n);
    t.check(got_visited == want_visited, "%s n=%d: visited bitmap wrong", bname, n);
    t.check(bad_level == 0, "%s n=%d: %d levels wrong", bname, n, bad_level);
    t.check(totals[0] == want_vertices && totals[1] == want_degrees, "%s n=%d: tally %llu vertices / %llu degrees, expected %llu / %llu",
            bname, n, totals[0], totals[1], want_vertices, want_degrees);
    std::printf("  %-11s n=%-5d %5d slices, %4llu vertices found\n", bname, n, slices, want_vertices);
}

}  // namespace

int main()
{
    tcore::test::require_gpu_or_skip();
    tally t;
    tcore::test::rng r(tcore::test::seed());
    for (int n : {1003, 300}) {
        check_step<tcore::tensor_core>(t, "tensor_core", n, r);
        check_step<tcore::cuda_core>(t, "cuda_core", n, r);
    }
    return t.finish();
}
