// tests/host/test_sparse_spgemm_model.cu - the SpGEMM algorithm
// (tcore/patterns/spgemm.cuh) on the CPU.
//
// Symbolic: tiles_meet must say exactly when tile_mask_product is not 0
// (every A mask against random B masks); the tile-level expansion of the
// pairs that meet, OR-ed per (i, j), must give exactly the tiles and masks
// of the CPU structural product (csr_to_mbsr(spgemm_reference)).
// Numeric: the warp of the numeric kernel, 32 simulated lanes per C tile,
// with the building blocks of tcore/patterns/spgemm.cuh that the kernel
// uses (spgemm_pair_first/second, spgemm_pair_a, spgemm_pair_b,
// spgemm_pair_writer, spgemm_pair_partner, spgemm_pair_element) and the
// CUDA-core MMA model (tcore::mma_emulated), and the cce opponent's
// spgemm_essential_term (examples/spgemm/spgemm_cce.cuh): a C tile's tile
// products, in the order the stable sort leaves them, are taken two at a
// time as the kernel does. The values must match the reference; tc/cc and
// cce are both modelled.
#include "common/test_util.hpp"
#include "examples/spgemm/spgemm_cce.cuh"

#include <tcore/io/matrix_market.hpp>
#include <tcore/patterns/spgemm.cuh>
#include <tcore/sparse/generate.hpp>
#include <tcore/sparse/mbsr.hpp>

#include <cfloat>
#include <cmath>
#include <map>
#include <string>
#include <vector>

using namespace tcore;
using tcore::examples::spgemm::spgemm_essential_term;
using tcore::test::tally;

namespace {

tally t;

template <class T, int Count>
struct lane_reader {
    const T (*lanes)[Count];
    __host__ __device__ T operator()(int src, int i) const { return lanes[src][i]; }
};

/// C's tiles and masks from the tile-level expansion (the symbolic phase).
std::map<std::pair<int, int>, unsigned> symbolic(const sparse::mbsr_matrix& a, const sparse::mbsr_matrix& b)
{
    std::map<std::pair<int, int>, unsigned> c;
    for (int i = 0; i < a.block_rows; ++i)
        for (int p = a.tile_ptr[i]; p < a.tile_ptr[i + 1]; ++p) {
            const int k = a.tile_col[p];
            for (int q = b.tile_ptr[k]; q < b.tile_ptr[k + 1]; ++q)
                if (tiles_meet(a.tile_mask[p], b.tile_mask[q]))
                    c[{i, b.tile_col[q]}] |= tile_mask_product(a.tile_mask[p], b.tile_mask[q]);
        }
    return c;
}

/// The numeric kernel's warp for C tile (i, j): 16 values, row-major. The
/// tile products come in expansion order (A tiles of row i by position, then
/// the B tile (k, j)), as the stable sort leaves them; taken two at a time.
std::vector<double> numeric_tile(const sparse::mbsr_matrix& a, const sparse::mbsr_matrix& b, int i, int j, bool mma)
{
    std::vector<unsigned long long> pairs;
    for (int p = a.tile_ptr[i]; p < a.tile_ptr[i + 1]; ++p) {
        const int k = a.tile_col[p];
        for (int q = b.tile_ptr[k]; q < b.tile_ptr[k + 1]; ++q)
            if (b.tile_col[q] == j && tiles_meet(a.tile_mask[p], b.tile_mask[q]))
                pairs.push_back(static_cast<unsigned long long>(p) << 32 | static_cast<unsigned>(q));
    }
    frag_c<f64_m8n8k4> acc[32];
    double ess[32] = {};
    for (auto& c : acc) fill(c, 0.0);
    const int count = static_cast<int>(pairs.size());
    for (int m = 0; m < count; m += 2) {
        const bool two = m + 1 < count;
        const unsigned long long v1 = pairs[m], v2 = two ? pairs[m + 1] : v1;
        const int pa1 = spgemm_pair_first(v1), pb1 = spgemm_pair_second(v1);
        const int pa2 = spgemm_pair_first(v2), pb2 = spgemm_pair_second(v2);
        if (mma) {
            double av[32][1], bv[32][1];
            for (int lane = 0; lane < 32; ++lane) {
                av[lane][0] = spgemm_pair_a(a.tile_val.data(), pa1, pa2, two, lane);
                bv[lane][0] = spgemm_pair_b(b.tile_val.data(), pb1, pb2, two, lane);
            }
            for (int lane = 0; lane < 32; ++lane)
                mma_emulated<f64_m8n8k4>(lane, acc[lane].x, lane_reader<double, 1>{av}, lane_reader<double, 1>{bv});
        } else {
            for (int lane = 0; lane < 32; ++lane) {
                const int half = lane >> 4;
                if (half == 0 || two)
                    ess[lane] = spgemm_essential_term(a.tile_val.data(), b.tile_val.data(), half ? pa2 : pa1,
                                                      half ? pb2 : pb1, lane, ess[lane]);
            }
        }
    }
    std::vector<double> out(16, std::nan(""));
    for (int lane = 0; lane < 32; ++lane) {
        if (mma) {
            if (!spgemm_pair_writer(lane)) continue;
            for (int r = 0; r < 2; ++r)
                out[spgemm_pair_element(lane, r)] = acc[lane].x[r] + acc[spgemm_pair_partner(lane)].x[r];
        } else if (lane < 16) {
            out[lane] = ess[lane] + ess[lane ^ 16];
        }
    }
    return out;
}

void check(const std::string& name, const sparse::csr& a, const sparse::csr& b)
{
    const sparse::csr ref = sparse::spgemm_reference(a, b);
    const sparse::mbsr_matrix ma = sparse::csr_to_mbsr(a), mb = sparse::csr_to_mbsr(b);
    sparse::mbsr_matrix mref = sparse::csr_to_mbsr(ref);
    const auto sym = symbolic(ma, mb);
    bool same = static_cast<long long>(sym.size()) == mref.tiles();
    for (int i = 0; i < mref.block_rows && same; ++i)
        for (int p = mref.tile_ptr[i]; p < mref.tile_ptr[i + 1] && same; ++p) {
            const auto it = sym.find({i, mref.tile_col[p]});
            same = it != sym.end() && it->second == mref.tile_mask[p];
        }
    t.check(same, "%s: symbolic tiles and masks equal the structural product's", name.c_str());

    sparse::csr abs_a = a, abs_b = b;
    for (double& v : abs_a.values) v = std::fabs(v);
    for (double& v : abs_b.values) v = std::fabs(v);
    const sparse::mbsr_matrix mag = sparse::csr_to_mbsr(sparse::spgemm_reference(abs_a, abs_b));
    for (const bool mma : {true, false}) {
        int bad = 0;
        for (int i = 0; i < mref.block_rows; ++i)
            for (int p = mref.tile_ptr[i]; p < mref.tile_ptr[i + 1]; ++p) {
                const std::vector<double> v = numeric_tile(ma, mb, i, mref.tile_col[p], mma);
                for (int e = 0; e < 16; ++e) {
                    const double want = mref.tile_val[16 * static_cast<std::size_t>(p) + e];
                    const double tol = 64 * DBL_EPSILON * mag.tile_val[16 * static_cast<std::size_t>(p) + e] *
                                       (1 + a.cols);
                    if (!(std::fabs(v[e] - want) <= tol) && ++bad <= 3)
                        t.check(false, "%s [%s]: tile (%d, %d) element %d: %.17g vs %.17g", name.c_str(),
                                mma ? "mma" : "essential", i, mref.tile_col[p], e, v[e], want);
                }
            }
        t.check(bad == 0, "%s [%s]: %d values wrong", name.c_str(), mma ? "mma" : "essential", bad);
    }
}

}  // namespace

/// tile_mask_product against the element-by-element boolean product, and
/// tiles_meet(a, b) == (tile_mask_product(a, b) != 0), for every A mask and
/// random B masks of every density.
void meet_rule()
{
    sparse::gen::splitmix64 rng(0x5e7);
    long long wrong = 0, product_wrong = 0;
    for (unsigned bm = 0; bm < 512; ++bm) {
        unsigned b = static_cast<unsigned>(rng.next()) & 0xFFFFu;
        b &= bm % 4 == 0 ? static_cast<unsigned>(rng.next()) : 0xFFFFu;  // sparser masks too
        b &= bm % 8 == 0 ? static_cast<unsigned>(rng.next()) : 0xFFFFu;
        for (unsigned a = 0; a < 0x10000u; ++a) {
            const unsigned c = tile_mask_product(a, b);
            wrong += tiles_meet(a, b) != (c != 0);
            if (a % 61 == 0) {  // the product element by element
                unsigned direct = 0;
                for (int i = 0; i < 4; ++i)
                    for (int k = 0; k < 4; ++k)
                        for (int j = 0; j < 4; ++j)
                            if ((a >> (4 * i + k) & 1u) && (b >> (4 * k + j) & 1u)) direct |= 1u << (4 * i + j);
                product_wrong += c != direct;
            }
        }
    }
    t.check(wrong == 0, "tiles_meet agrees with tile_mask_product != 0 (%lld disagreements)", wrong);
    t.check(product_wrong == 0, "tile_mask_product is the boolean product (%lld wrong)", product_wrong);
}

int main()
{
    using namespace sparse::gen;
    meet_rule();
    for (const matrix_class c : all_classes()) {
        const sparse::csr a = generate(c, 8000, 4);
        check(std::string(class_name(c)) + " A*A", a, a);
    }
    if (const std::string p = tcore::test::shipped_matrix("west0067"); !p.empty()) {
        const sparse::csr w = io::read_matrix_market(p);
        check("west0067 A*A", w, w);
    } else {
        t.skip("matrix west0067 not found (tests/data/matrices)");
    }
    if (const std::string p = tcore::test::shipped_matrix("lp_afiro"); !p.empty()) {
        const sparse::csr l = io::read_matrix_market(p);
        check("lp_afiro A*A^T", l, sparse::transpose(l));
    } else {
        t.skip("matrix lp_afiro not found (tests/data/matrices)");
    }
    check("chain 37x53 * 53x29", random_rows(37, 53, 0, 20, 6), random_rows(53, 29, 0, 15, 7));
    check("wide row 1x600 * 600x9", random_rows(1, 600, 500, 600, 8), random_rows(600, 9, 0, 9, 9));  // many products a tile
    check("empty rows 30x30", random_rows(30, 30, 0, 2, 10), random_rows(30, 30, 0, 2, 11));
    check("all empty", random_rows(6, 6, 0, 0, 1), random_rows(6, 6, 0, 0, 2));
    return t.finish();
}
