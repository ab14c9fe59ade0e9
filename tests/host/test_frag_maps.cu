// tests/host/test_frag_maps.cu - the lane maps of every MMA shape, on the CPU.
//
// For A, B and C of each shape: the map (lane, index) -> (row, col) hits every
// element of its matrix exactly once; a_home / b_home are its exact inverse;
// the map equals the fact sheet (docs/mma-fragments.md) written out
// here twice, independently of the headers: as the PTX formulas of sections
// 1-5 and as the CuTe (thread, value) layouts of the appendix (plus the
// explicit element lists the sheet gives). For C, index i = row slot *
// c_cols + column slot. Finally the property the cuda_core MMA relies on:
// for every k and accumulator slot the register index a_home / b_home return
// is the same on all 32 lanes (b1: each fetched word holds 32 consecutive k).
#include "common/test_util.hpp"

#include <tcore/frag.cuh>

#include <functional>
#include <string>
#include <vector>

using namespace tcore;
using tcore::test::tally;

namespace {

using map_fn = std::function<coord(int lane, int i)>;
using inverse_fn = std::function<home(int row, int col)>;

bool same(coord x, coord y) { return x.row == y.row && x.col == y.col; }

// -- the fact sheet, section by section (g = lane / 4, t = lane % 4) ---------

int g_of(int lane) { return lane >> 2; }
int t_of(int lane) { return lane & 3; }

// Section 1: FP64 m8n8k4.
coord sheet_f64_m8n8k4_a(int l, int) { return {g_of(l), t_of(l)}; }
coord sheet_f64_m8n8k4_b(int l, int) { return {t_of(l), g_of(l)}; }
coord sheet_f64_m8n8k4_c(int l, int i) { return {g_of(l), 2 * t_of(l) + i}; }
// Section 2 (FP64 m16n8k4/8/16) and section 3 (TF32 m16n8k8): one formula.
coord sheet_m16n8_a(int l, int i) { return {g_of(l) + 8 * (i & 1), t_of(l) + 4 * (i >> 1)}; }
coord sheet_m16n8_b(int l, int i) { return {t_of(l) + 4 * i, g_of(l)}; }
coord sheet_m16n8_c(int l, int i) { return {g_of(l) + 8 * (i >> 1), 2 * t_of(l) + (i & 1)}; }
// Section 4: FP16 m16n8k16, per 16-bit element e.
coord sheet_f16_a(int l, int e) { return {g_of(l) + 8 * ((e >> 1) & 1), 2 * t_of(l) + (e & 1) + 8 * (e >> 2)}; }
coord sheet_f16_b(int l, int e) { return {2 * t_of(l) + (e & 1) + 8 * (e >> 1), g_of(l)}; }
// Section 5: b1 m8n8k128, per bit v.
coord sheet_b1_a(int l, int v) { return {g_of(l), 32 * t_of(l) + v}; }
coord sheet_b1_b(int l, int v) { return {32 * t_of(l) + v, g_of(l)}; }

// Section 2's explicit list for m16n8k16 A: a_i at (g + dr, t + dc).
constexpr int f64_k16_a_list[8][2] = {{0, 0}, {8, 0}, {0, 4}, {8, 4}, {0, 8}, {8, 8}, {0, 12}, {8, 12}};
coord list_f64_a(int l, int i) { return {g_of(l) + f64_k16_a_list[i][0], t_of(l) + f64_k16_a_list[i][1]}; }
// Section 4's register list for FP16 A: reg r = elements 2r (lo), 2r+1 (hi) at (g + dr, 2t + dc + hi).
constexpr int f16_a_regs[4][2] = {{0, 0}, {8, 0}, {0, 8}, {8, 8}};
coord list_f16_a(int l, int e)
{
    return {g_of(l) + f16_a_regs[e >> 1][0], 2 * t_of(l) + f16_a_regs[e >> 1][1] + (e & 1)};
}
// FP16 B: reg0 = rows 2t, 2t+1 of column g; reg1 = rows 2t+8, 2t+9.
constexpr int f16_b_regs[2] = {0, 8};
coord list_f16_b(int l, int e) { return {2 * t_of(l) + f16_b_regs[e >> 1] + (e & 1), g_of(l)}; }
// C of the 16x8 shapes: c0 (g, 2t), c1 (g, 2t+1), c2 (g+8, 2t), c3 (g+8, 2t+1).
constexpr int c16_list[4][2] = {{0, 0}, {0, 1}, {8, 0}, {8, 1}};
coord list_c16(int l, int i) { return {g_of(l) + c16_list[i][0], 2 * t_of(l) + c16_list[i][1]}; }

// -- the appendix: CuTe (thread, value) layouts ------------------------------
// Thread mode (4,8) = (t, g) with strides (st, sg); value mode colexicographic
// (v0 fastest) with the listed shape and strides. The index x points into a
// column-major tile with `tile_rows` rows: (x % tile_rows, x / tile_rows).
// A tiles are (M,K), B tiles (N,K) and C tiles (M,N).
struct cute_layout {
    int st, sg;
    std::vector<int> vshape, vstride;
    int index(int lane, int v) const
    {
        int x = st * t_of(lane) + sg * g_of(lane);
        for (std::size_t m = 0; m < vshape.size(); ++m) {
            x += (v % vshape[m]) * vstride[m];
            v /= vshape[m];
        }
        return x;
    }
};
map_fn cute_mk(cute_layout L, int tile_rows)  // A (M,K) or C (M,N): row = first mode
{
    return [=](int lane, int v) { const int x = L.index(lane, v); return coord{x % tile_rows, x / tile_rows}; };
}
map_fn cute_nk(cute_layout L, int n)  // B given as (N,K): swap into (K,N)
{
    return [=](int lane, int v) { const int x = L.index(lane, v); return coord{x / n, x % n}; };
}
const cute_layout cute_8x8x4_ab{8, 1, {1}, {0}};                 // ((4,8),1):((8,1),0)
const cute_layout cute_c8x8{16, 1, {2}, {8}};                    // ((4,8),2):((16,1),8)
const cute_layout cute_16x8x4_a{16, 1, {2}, {8}};                // ((4,8),2):((16,1),8)
const cute_layout cute_16x8x8_a{16, 1, {2, 2}, {8, 64}};         // ((4,8),(2,2)):((16,1),(8,64))
const cute_layout cute_16x8x8_b{8, 1, {2}, {32}};                // ((4,8),2):((8,1),32)
const cute_layout cute_16x8x16_a{16, 1, {2, 4}, {8, 64}};        // ((4,8),(2,4)):((16,1),(8,64))
const cute_layout cute_16x8x16_b{8, 1, {4}, {32}};               // ((4,8),4):((8,1),32)
const cute_layout cute_c16x8{32, 1, {2, 2}, {16, 8}};            // ((4,8),(2,2)):((32,1),(16,8))
const cute_layout cute_f16_a{32, 1, {2, 2, 2}, {16, 8, 128}};    // ((4,8),(2,2,2)):((32,1),(16,8,128))
const cute_layout cute_f16_b{16, 1, {2, 2}, {8, 64}};            // ((4,8),(2,2)):((16,1),(8,64))
const cute_layout cute_b1_ab{256, 1, {32}, {8}};                 // ((4,8),32):((256,1),8)

// -- generic checks ----------------------------------------------------------

/// One operand's map: bijection, inverse (if any), agreement with references.
void check_operand(tally& t, const std::string& what, int rows, int cols, int per_lane, map_fn f,
                   inverse_fn inv, const std::vector<std::pair<const char*, map_fn>>& refs)
{
    t.check(32 * per_lane == rows * cols, "%s: 32 lanes x %d elements != %d x %d", what.c_str(), per_lane, rows,
            cols);
    std::vector<int> hits(rows * cols, 0);
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < per_lane; ++i) {
            const coord rc = f(lane, i);
            const bool inside = rc.row >= 0 && rc.row < rows && rc.col >= 0 && rc.col < cols;
            if (t.check(inside, "%s: lane %d element %d -> (%d, %d) outside %dx%d", what.c_str(), lane, i, rc.row,
                        rc.col, rows, cols))
                ++hits[rc.row * cols + rc.col];
        }
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            t.check(hits[r * cols + c] == 1, "%s: (%d, %d) covered %d times", what.c_str(), r, c, hits[r * cols + c]);

    if (inv) {
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < per_lane; ++i) {
                const coord rc = f(lane, i);
                const home h = inv(rc.row, rc.col);
                t.check(h.lane == lane && h.index == i, "%s: home(%d, %d) = {%d, %d}, expected {%d, %d}",
                        what.c_str(), rc.row, rc.col, h.lane, h.index, lane, i);
            }
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                const home h = inv(r, c);
                const bool valid = h.lane >= 0 && h.lane < 32 && h.index >= 0 && h.index < per_lane;
                t.check(valid && same(f(h.lane, h.index), coord{r, c}), "%s: map(home(%d, %d)) != (%d, %d)",
                        what.c_str(), r, c, r, c);
            }
    }
    for (const auto& [ref_name, ref] : refs) {
        int bad = 0;
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < per_lane; ++i) {
                const coord got = f(lane, i), want = ref(lane, i);
                if (!same(got, want) && ++bad <= 3)
                    t.check(false, "%s vs %s: lane %d element %d -> (%d, %d), sheet says (%d, %d)", what.c_str(),
                            ref_name, lane, i, got.row, got.col, want.row, want.col);
            }
        t.check(bad == 0, "%s agrees with %s (%d mismatches)", what.c_str(), ref_name, bad);
    }
}

/// C index i = row slot * c_cols + column slot, and the per-(k, slot)
/// register index of a_home / b_home is lane-independent.
template <class Shape>
void check_slots_and_uniformity(tally& t)
{
    const char* name = Shape::name();
    t.check(Shape::c_rows * Shape::c_cols == Shape::c_count, "%s: c_rows * c_cols == c_count", name);
    t.check(Shape::k_steps == Shape::k, "%s: k_steps == k", name);
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < Shape::c_count; ++i) {
            const int r = i / Shape::c_cols, c = i % Shape::c_cols;
            const coord rc = Shape::c_coord(lane, i);
            t.check(rc.row == Shape::c_coord(lane, r * Shape::c_cols).row && rc.col == Shape::c_coord(lane, c).col,
                    "%s: lane %d c%d is not (row slot %d, column slot %d)", name, lane, i, r, c);
        }
    for (int k = 0; k < Shape::k; ++k) {
        for (int r = 0; r < Shape::c_rows; ++r) {
            const int idx0 = Shape::a_home(Shape::c_coord(0, r * Shape::c_cols).row, k).index;
            for (int lane = 1; lane < 32; ++lane) {
                const int idx = Shape::a_home(Shape::c_coord(lane, r * Shape::c_cols).row, k).index;
                t.check(idx == idx0, "%s: A register of (k %d, row slot %d) is %d on lane %d, %d on lane 0", name, k,
                        r, idx, lane, idx0);
            }
        }
        for (int c = 0; c < Shape::c_cols; ++c) {
            const int idx0 = Shape::b_home(k, Shape::c_coord(0, c).col).index;
            for (int lane = 1; lane < 32; ++lane) {
                const int idx = Shape::b_home(k, Shape::c_coord(lane, c).col).index;
                t.check(idx == idx0, "%s: B register of (k %d, column slot %d) is %d on lane %d, %d on lane 0", name,
                        k, c, idx, lane, idx0);
            }
        }
    }
}

template <class S>
map_fn a_of() { return [](int l, int i) { return S::a_coord(l, i); }; }
template <class S>
map_fn b_of() { return [](int l, int i) { return S::b_coord(l, i); }; }
template <class S>
map_fn c_of() { return [](int l, int i) { return S::c_coord(l, i); }; }
template <class S>
inverse_fn a_inv() { return [](int r, int c) { return S::a_home(r, c); }; }
template <class S>
inverse_fn b_inv() { return [](int r, int c) { return S::b_home(r, c); }; }

template <class S>
void check_shape(tally& t, map_fn sheet_a, map_fn sheet_b, map_fn sheet_c, map_fn cute_a, map_fn cute_b,
                 map_fn cute_c, map_fn list_a = nullptr, map_fn list_b = nullptr, map_fn list_c = nullptr)
{
    const std::string n = S::name();
    auto refs = [](map_fn sheet, map_fn cute, map_fn list) {
        std::vector<std::pair<const char*, map_fn>> r{{"PTX formula", sheet}, {"CuTe layout", cute}};
        if (list) r.push_back({"element list", list});
        return r;
    };
    check_operand(t, n + " A", S::m, S::k, S::a_count, a_of<S>(), a_inv<S>(), refs(sheet_a, cute_a, list_a));
    check_operand(t, n + " B", S::k, S::n, S::b_count, b_of<S>(), b_inv<S>(), refs(sheet_b, cute_b, list_b));
    check_operand(t, n + " C", S::m, S::n, S::c_count, c_of<S>(), nullptr, refs(sheet_c, cute_c, list_c));
    check_slots_and_uniformity<S>(t);
}

/// b1 at bit level: maps per bit; the cuda_core MMA fetches whole words, so
/// the word at a_home(row, 32w).lane must hold bits v = k - 32w in order.
void check_b1(tally& t)
{
    using S = b1_m8n8k128;
    const std::string n = S::name();
    t.check(S::a_count == 1 && S::b_count == 1 && S::bits == 32, "b1: one 32-bit register per lane for A and B");
    check_operand(t, n + " A bits", S::m, S::k, S::bits, a_of<S>(), a_inv<S>(),
                  {{"PTX formula", sheet_b1_a}, {"CuTe layout", cute_mk(cute_b1_ab, 8)}});
    check_operand(t, n + " B bits", S::k, S::n, S::bits, b_of<S>(), b_inv<S>(),
                  {{"PTX formula", sheet_b1_b}, {"CuTe layout", cute_nk(cute_b1_ab, 8)}});
    check_operand(t, n + " C", S::m, S::n, S::c_count, c_of<S>(), nullptr,
                  {{"PTX formula", sheet_f64_m8n8k4_c}, {"CuTe layout", cute_mk(cute_c8x8, 8)}});
    for (int w = 0; w < 4; ++w)
        for (int x = 0; x < 8; ++x) {
            const int a_lane = S::a_home(x, 32 * w).lane, b_lane = S::b_home(32 * w, x).lane;
            for (int v = 0; v < 32; ++v) {
                const home ha = S::a_home(x, 32 * w + v), hb = S::b_home(32 * w + v, x);
                t.check(ha.lane == a_lane && ha.index == v, "b1: A(%d, %d) not bit %d of lane %d's word", x,
                        32 * w + v, v, a_lane);
                t.check(hb.lane == b_lane && hb.index == v, "b1: B(%d, %d) not bit %d of lane %d's word",
                        32 * w + v, x, v, b_lane);
            }
        }
}

}  // namespace

int main()
{
    tally t;
    check_shape<f64_m8n8k4>(t, sheet_f64_m8n8k4_a, sheet_f64_m8n8k4_b, sheet_f64_m8n8k4_c,
                            cute_mk(cute_8x8x4_ab, 8), cute_nk(cute_8x8x4_ab, 8), cute_mk(cute_c8x8, 8));
    check_shape<f64_m16n8k4>(t, sheet_m16n8_a, sheet_m16n8_b, sheet_m16n8_c, cute_mk(cute_16x8x4_a, 16),
                             cute_nk(cute_8x8x4_ab, 8), cute_mk(cute_c16x8, 16), list_f64_a, nullptr, list_c16);
    check_shape<f64_m16n8k8>(t, sheet_m16n8_a, sheet_m16n8_b, sheet_m16n8_c, cute_mk(cute_16x8x8_a, 16),
                             cute_nk(cute_16x8x8_b, 8), cute_mk(cute_c16x8, 16), list_f64_a, nullptr, list_c16);
    check_shape<f64_m16n8k16>(t, sheet_m16n8_a, sheet_m16n8_b, sheet_m16n8_c, cute_mk(cute_16x8x16_a, 16),
                              cute_nk(cute_16x8x16_b, 8), cute_mk(cute_c16x8, 16), list_f64_a, nullptr, list_c16);
    check_shape<tf32_m16n8k8>(t, sheet_m16n8_a, sheet_m16n8_b, sheet_m16n8_c, cute_mk(cute_16x8x8_a, 16),
                              cute_nk(cute_16x8x8_b, 8), cute_mk(cute_c16x8, 16), list_f64_a, nullptr, list_c16);
    check_shape<f16_m16n8k16_f32acc>(t, sheet_f16_a, sheet_f16_b, sheet_m16n8_c, cute_mk(cute_f16_a, 16),
                                     cute_nk(cute_f16_b, 8), cute_mk(cute_c16x8, 16), list_f16_a, list_f16_b,
                                     list_c16);
    check_shape<f16_m16n8k16_f16acc>(t, sheet_f16_a, sheet_f16_b, sheet_m16n8_c, cute_mk(cute_f16_a, 16),
                                     cute_nk(cute_f16_b, 8), cute_mk(cute_c16x8, 16), list_f16_a, list_f16_b,
                                     list_c16);
    check_b1(t);
    return t.finish();
}
