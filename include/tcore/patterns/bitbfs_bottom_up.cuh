// tcore/patterns/bitbfs_bottom_up.cuh - the bottom-up step of the hybrid
// bitmap BFS (bitbfs.cuh): bottom_up and its parts, the CSR scan of two
// words of vertices at once (csr_parents), the end of a word
// (settle_word) and the walk of a word's hub slice lists
// (bottom_up_sliced_word). The product is slice_hits (bitbfs.cuh) on the
// dense slices of column block 0 (first_block_bits, device/bfs.cuh): in a
// degree-ordered graph the 128 largest hubs hold most parents.
#pragma once

#include "bitbfs.cuh"

namespace tcore::bitbfs {

/// Bottom-up, CSR part, for W words of vertices at once (lane l: vertex l
/// of each; all their loads in flight together): each row that is `mine`
/// and has no parent yet scans entries p .. end - 1, 4 a load, for a
/// neighbour >= min_col in the frontier, at most `loads` loads. Sets hit,
/// advances p. Per lane; no warp collectives.
template <int W>
__device__ inline void csr_parents(const csr_view& c, const step_state& st, int min_col, int loads,
                                   const bool (&mine)[W], long long (&p)[W], const long long (&end)[W], bool (&hit)[W],
                                   step_counts& cnt)
{
    bool live[W];
#pragma unroll
    for (int i = 0; i < W; ++i) live[i] = mine[i] && !hit[i] && p[i] < end[i];
    for (int load = 0; load < loads; ++load) {
        bool any = false;
#pragma unroll
        for (int i = 0; i < W; ++i) any |= live[i];
        if (!any) break;
        int u[W][4];
#pragma unroll
        for (int i = 0; i < W; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) u[i][j] = live[i] && p[i] + j < end[i] ? c.col[p[i] + j] : -1;
#pragma unroll
        for (int i = 0; i < W; ++i) {
#pragma unroll
            for (int j = 0; j < 4; ++j)
                hit[i] |= u[i][j] >= min_col && ((st.frontier[u[i][j] >> 5] >> (u[i][j] & 31)) & 1u);
            if (live[i]) cnt.entries += static_cast<unsigned long long>(min(4ll, end[i] - p[i]));
            p[i] += 4;
            live[i] = live[i] && !hit[i] && p[i] < end[i];
        }
    }
}

/// Bottom-up, row heads (csr_view::heads) for W words of vertices at once
/// (lane l: vertex l of each): each row that is `mine` and has no parent
/// yet tests its up to head_entries heads against the frontier, all loads
/// in flight together. Sets hit. Per lane; no warp collectives.
template <int W>
__device__ inline void head_parents(const step_state& st, const bool (&mine)[W], const int4 (&head)[W], bool (&hit)[W],
                                    step_counts& cnt)
{
#pragma unroll
    for (int i = 0; i < W; ++i) {
        if (!mine[i] || hit[i]) continue;
        const int u[head_entries] = {head[i].x, head[i].y, head[i].z, head[i].w};
#pragma unroll
        for (int j = 0; j < head_entries; ++j) {
            hit[i] |= u[j] >= 0 && ((st.frontier[u[j] >> 5] >> (u[j] & 31)) & 1u);
            cnt.entries += u[j] >= 0;
        }
    }
}

/// Bottom-up, the end of a word: the vertices `found` (warp-uniform) of
/// word w (visited bits `seen` before the step) get visited, a next bit
/// (the warp owns the word: plain stores) and level depth + 1, and are
/// tallied with their degree `degree` (this lane's vertex). All 32 lanes.
__device__ inline void settle_word(const step_state& st, int w, unsigned seen, unsigned found, long long degree,
                                   step_counts& cnt)
{
    if (found == 0) return;
    const int lane = lane_id();
    if (lane == 0) {
        st.visited[w] = seen | found;
        st.next[w] = found;
    }
    if ((found >> lane) & 1u) {
        st.level[32 * w + lane] = st.depth + 1;
        cnt.vertices += 1;
        cnt.degrees += static_cast<unsigned long long>(degree);
        cnt.heavy += degree > heavy_degree;
    }
}

/// Bottom-up, one word w with hub slices (todo: its unvisited vertices,
/// warp-uniform). Each row's first 4 CSR entries are tested first, hub
/// columns included: in a degree-ordered graph they are its largest
/// neighbours, which hold most parents, and one load tests them (the
/// slices cost three dependent loads and 128 bytes a row block). Then the
/// hub slices of the word's 4 row blocks, 8 per block at a time: lane
/// 4j + i looks at slice j of row block i (its metadata, then the 4
/// frontier words of its column block, both in one round trip for all 32
/// lanes); the slices with a wanted row and frontier bits ("live") are
/// multiplied 4 at a time (their words loaded together), slice 0 of every
/// block first, and a block's remaining slices are dropped once each of
/// its unvisited rows has a parent. The rows left scan the rest of their
/// CSR rows for a frontier neighbour >= g.columns (the slices covered the
/// hub columns). All 32 lanes.
template <class Backend>
__device__ inline void bottom_up_sliced_word(const slices_view& g, const csr_view& c, const step_state& st, int w,
                                             unsigned todo, unsigned seen, step_counts& cnt)
{
    const int lane = lane_id();
    const int i_mine = lane & 3, j_mine = lane >> 2;  // this lane's row block and slice within a round
    long long range = 0;  // slice range of the row blocks (lanes 0..4), loaded with the row bounds
    if (lane <= 4) range = g.row_ptr[min(4 * w + lane, g.row_blocks)];
    const int v = 32 * w + lane;
    const bool mine[1] = {((todo >> lane) & 1u) != 0};
    long long p[1] = {0}, end[1] = {0};
    if (mine[0]) p[0] = c.row_ptr[v], end[0] = c.row_ptr[v + 1];
    const long long degree = end[0] - p[0];
    bool hit[1] = {false};
    csr_parents(c, st, 0, 1, mine, p, end, hit, cnt);
    unsigned found = __ballot_sync(full_warp, hit[0]);
    const long long beg = __shfl_sync(full_warp, range, i_mine);
    const long long stop = __shfl_sync(full_warp, range, i_mine + 1);
    for (long long q = beg + j_mine;; q += 8) {
        const unsigned rows = ((todo & ~found) >> (8 * i_mine)) & 0xffu;
        const bool slot = rows != 0 && q < stop;
        if (!__any_sync(full_warp, slot)) break;
        const unsigned meta = slot ? g.slice_meta[q] : 0u;
        const bool wanted = ((meta >> 24) & rows) != 0;
        uint4 fw = make_uint4(0u, 0u, 0u, 0u);
        if (wanted) fw = reinterpret_cast<const uint4*>(st.frontier)[meta & 0xffffffu];
        unsigned live = __ballot_sync(full_warp, wanted && (fw.x | fw.y | fw.z | fw.w) != 0u);
        while (live) {
            int from[batch];
            unsigned a[batch], f[batch];
#pragma unroll
            for (int k = 0; k < batch; ++k) {
                from[k] = live ? __ffs(live) - 1 : -1;  // warp-uniform
                live &= live - 1u;
                const int src = from[k] < 0 ? 0 : from[k];
                const long long qs = __shfl_sync(full_warp, q, src);
                const unsigned f0 = __shfl_sync(full_warp, fw.x, src), f1 = __shfl_sync(full_warp, fw.y, src);
                const unsigned f2 = __shfl_sync(full_warp, fw.z, src), f3 = __shfl_sync(full_warp, fw.w, src);
                const int t = lane & 3;
                f[k] = t == 0 ? f0 : t == 1 ? f1 : t == 2 ? f2 : f3;
                a[k] = from[k] >= 0 ? g.bits[qs * slice_words + lane] : 0u;
            }
#pragma unroll
            for (int k = 0; k < batch; ++k)
                if (from[k] >= 0) {
                    const int i = from[k] & 3;
                    found |= (slice_hits<Backend>(a[k], f[k]) & (todo >> (8 * i)) & 0xffu) << (8 * i);
                    if (lane == 0) cnt.slices += 1;
                }
            // Drop the live slices of row blocks whose unvisited rows all have a parent.
            const unsigned pending = todo & ~found;
            unsigned keep = 0;
#pragma unroll
            for (int i = 0; i < 4; ++i)
                if ((pending >> (8 * i)) & 0xffu) keep |= 0x11111111u << i;
            live &= keep;
        }
    }
    hit[0] = ((found >> lane) & 1u) != 0;
    csr_parents(c, st, g.columns, 1 << 30, mine, p, end, hit, cnt);
    settle_word(st, w, seen, found | __ballot_sync(full_warp, hit[0]), degree, cnt);
}

/// Bottom-up: lane l of warp `warp` reads visited word warp + warps (32 r +
/// l) in round r, and the warp works through the words with unvisited
/// vertices (group w = visited word w = row blocks 4w .. 4w + 3), two at a
/// time, all their loads in flight together. With g.first_block_cols > 0
/// each word's 4 row blocks are first multiplied with the frontier of
/// column block 0 (their dense slices, g.first_block: read straight from
/// w, beside the row bounds, so the product adds no dependent load), and
/// the rows without a parent there scan their CSR rows for a frontier
/// neighbour >= first_block_cols, 4 entries a load. With sparse hub slices
/// only (first_block_cols 0, g.columns > 0), words go one at a time
/// through bottom_up_sliced_word; with no slices, every row scans its CSR
/// row. The warp alone writes its visited and next words. The step is
/// latency-bound: dependent loads matter more than bytes.
template <class Backend>
__device__ inline void bottom_up(const slices_view& g, const csr_view& c, const step_state& st, long long warp,
                                 long long warps, step_counts& cnt)
{
    const int lane = lane_id();
    const int n = c.n;
    const long long words = (n + 31) / 32;
    const bool dense = g.first_block_cols > 0;
    const bool sparse = !dense && g.columns > 0;
    // the frontier of column block 0 as the B operand (word lane % 4); no
    // product where it is empty
    const unsigned f0 = dense ? st.frontier[lane & 3] : 0u;
    const bool products = __any_sync(full_warp, f0 != 0u);
    unsigned ahead = warp + warps * lane < words ? st.visited[warp + warps * lane] : ~0u;
    for (long long round = warp; round < words; round += 32 * warps) {
        const long long w_mine = round + warps * lane;
        unsigned seen_mine = ahead, todo_mine = 0;
        // the next round's word, in flight while this round's words are worked through
        ahead = w_mine + 32 * warps < words ? st.visited[w_mine + 32 * warps] : ~0u;
        if (w_mine < words) {
            const int in_word = static_cast<int>(min(32ll, n - 32 * w_mine));
            todo_mine = ~seen_mine & (in_word == 32 ? full_warp : ((1u << in_word) - 1u));
        }
        unsigned words_left = __ballot_sync(full_warp, todo_mine != 0);
        while (words_left) {
            if (sparse) {
                const int src = __ffs(words_left) - 1;
                words_left &= words_left - 1u;
                bottom_up_sliced_word<Backend>(g, c, st, static_cast<int>(round + warps * src),
                                               __shfl_sync(full_warp, todo_mine, src),
                                               __shfl_sync(full_warp, seen_mine, src), cnt);
                continue;
            }
            int w[2];
            unsigned todo[2], seen[2], a[2][4], found[2] = {0u, 0u}, info[2] = {0u, 0u};
            bool mine[2], hit[2];
            long long p[2] = {0, 0}, end[2] = {0, 0};
            int4 head[2];
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const int src = words_left ? __ffs(words_left) - 1 : 0;
                const bool real = words_left != 0;  // warp-uniform
                words_left &= words_left - 1u;
                w[i] = static_cast<int>(round + warps * src);
                todo[i] = real ? __shfl_sync(full_warp, todo_mine, src) : 0u;
                seen[i] = __shfl_sync(full_warp, seen_mine, src);
                mine[i] = (todo[i] >> lane) & 1u;
                const int v = 32 * w[i] + lane;
                if (mine[i]) p[i] = c.row_ptr[v], end[i] = c.row_ptr[v + 1];
                head[i] = make_int4(-1, -1, -1, -1);
                if (mine[i] && c.heads) head[i] = c.heads[v], info[i] = c.heads_info[v];
#pragma unroll
                for (int b = 0; b < 4; ++b)  // slice word `lane` of row block 4w + b (A map)
                    a[i][b] = products && ((todo[i] >> (8 * b)) & 0xffu)
                                  ? g.first_block[(4ll * w[i] + b) * slice_words + lane]
                                  : 0u;
            }
            const long long degree[2] = {end[0] - p[0], end[1] - p[1]};
            if (products) {
#pragma unroll
                for (int i = 0; i < 2; ++i)
#pragma unroll
                    for (int b = 0; b < 4; ++b) {
                        const unsigned rows = (todo[i] >> (8 * b)) & 0xffu;  // warp-uniform
                        if (rows == 0) continue;
                        found[i] |= (slice_hits<Backend>(a[i][b], f0) & rows) << (8 * b);
                        if (lane == 0) cnt.slices += 1;
                    }
            }
#pragma unroll
            for (int i = 0; i < 2; ++i) hit[i] = (found[i] >> lane) & 1u;
            head_parents(st, mine, head, hit, cnt);
#pragma unroll
            for (int i = 0; i < 2; ++i) p[i] += row_info_after(info[i]);  // 0 without heads
            csr_parents(c, st, g.first_block_cols, 1 << 30, mine, p, end, hit, cnt);
#pragma unroll
            for (int i = 0; i < 2; ++i)
                settle_word(st, w[i], seen[i], found[i] | __ballot_sync(full_warp, hit[i]), degree[i], cnt);
        }
    }
}

}  // namespace tcore::bitbfs
