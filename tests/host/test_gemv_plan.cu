// tests/host/test_gemv_plan.cu - CPU checks of the GEMV launch plans and
// argument checks of tcore/patterns/device/gemv.cuh:
//   * plan_gemv and plan_gemv_mma over row / column tile counts (boundaries
//     of every doubling) and SM counts: ksplit a power of two, at most 16 and
//     at most the column steps; whole row tiles per block, at most
//     gemv_max_threads threads; every row tile in one block, no empty block;
//   * plan_gemv_mma keeps plan_gemv's plan where that splits columns over
//     fewer than 4 warps or rows have fewer than 16 K-steps (the K = 4
//     shapes at n = 16), and otherwise gives row-major 1 row tile x
//     max(ksplit, 8) warps, column-major 2 row tiles x min(ksplit, 8);
//   * plan_gemv_split (valid_split below) over the same counts;
//   * the plans the comments name for an H100 (132 SMs);
//   * gemv_check refuses bad arguments with tcore::error (y overlapping x or
//     A, y inside A's row padding, an lda whose storage overflows, lda below
//     the row length, negative sizes, null pointers) and accepts y right
//     before A's first or after its last element.
#include "common/test_util.hpp"

#include <tcore/patterns/device/gemv.cuh>

#include <cstdio>
#include <set>
#include <vector>

using namespace tcore;

namespace {

test::tally T;

bool same(const gemv_plan& a, const gemv_plan& b)
{
    return a.ksplit == b.ksplit && a.warps == b.warps && a.blocks == b.blocks;
}

/// What the tc/cc kernel needs of a plan (gemv_kernel: warps / ksplit row tiles
/// per block, at most gemv_max_threads), and no warp without a K-step.
bool valid_plan(const gemv_plan& p, long long row_tiles, long long col_tiles)
{
    const bool pow2 = p.ksplit >= 1 && (p.ksplit & (p.ksplit - 1)) == 0;
    if (!pow2 || p.ksplit > 16 || p.ksplit > std::max(1LL, col_tiles)) return false;
    if (p.warps < p.ksplit || p.warps % p.ksplit != 0 || 32 * p.warps > gemv_max_threads) return false;
    const long long rows = p.warps / p.ksplit;
    return p.blocks * rows >= row_tiles && (p.blocks - 1) * rows < row_tiles;
}

/// plan_gemv_split: plan_gemv_mma's plan where that has a block per SM or
/// more, or where fewer than 2 parts fit; otherwise 2 x 4 (column-major) or
/// 1 x 8 (row-major) blocks over every row tile, parts of at least
/// 2 ksplit K-steps that cover the columns with no empty part, no more parts
/// than 32 blocks per SM need.
bool valid_split(const gemv_plan& q, const gemv_plan& mma, layout L, long long row_tiles, long long col_tiles, int sms)
{
    if (q.parts == 1) return same(q, mma) && (mma.blocks >= sms || col_tiles / (2LL * (L == layout::col_major ? 4 : 8)) < 2);
    if (mma.blocks >= sms || q.parts < 2 || !valid_plan(q, row_tiles, col_tiles)) return false;
    const bool shape = L == layout::col_major ? q.ksplit == 4 && q.warps == 8 : q.ksplit == 8 && q.warps == 8;
    const bool cover = q.part_steps * q.parts >= col_tiles && (q.parts - 1) * q.part_steps < col_tiles;
    const bool sizes = q.part_steps >= 2 * q.ksplit && q.blocks * (q.parts - 1) < 32LL * sms && q.parts <= 65535;
    return shape && cover && sizes;
}

void check_plans()
{
    const int sms_list[] = {1, 2, 16, 78, 108, 114, 132, 144};
    int bad_plan = 0, bad_mma = 0, bad_shape = 0, bad_split = 0, cases = 0;
    for (int sms : sms_list) {
        std::set<long long> rows = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000000};
        for (long long k = 1; k <= 16; k *= 2)
            for (long long d = -1; d <= 1; ++d) {
                rows.insert(32LL * sms / k + d);  // where ksplit stops doubling
                rows.insert(sms * k + d);         // where rows per block halve
            }
        const long long cols_list[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 100, 1024, 1LL << 20};
        for (long long rt : rows) {
            if (rt < 1) continue;
            for (long long ct : cols_list) {
                const gemv_plan base = plan_gemv(rt, ct, sms);
                bad_plan += !valid_plan(base, rt, ct);
                for (layout L : {layout::row_major, layout::col_major}) {
                    ++cases;
                    const gemv_plan p = plan_gemv_mma(L, rt, ct, sms);
                    bad_mma += !valid_plan(p, rt, ct);
                    if (base.ksplit < 4 || ct < 16) {
                        bad_shape += !same(p, base);
                    } else if (L == layout::row_major) {
                        bad_shape += p.ksplit != std::max(base.ksplit, 8) || p.warps != p.ksplit;
                    } else {
                        bad_shape += p.ksplit != std::min(base.ksplit, 8) || p.warps != 2 * p.ksplit;
                    }
                    const gemv_plan q = plan_gemv_split(L, rt, ct, sms);
                    bad_split += !valid_split(q, p, L, rt, ct, sms);
                }
            }
        }
    }
    T.check(bad_plan == 0, "plan_gemv: %d plans break valid_plan", bad_plan);
    T.check(bad_mma == 0, "plan_gemv_mma: %d plans break valid_plan", bad_mma);
    T.check(bad_shape == 0, "plan_gemv_mma: %d of %d plans not the documented block shape", bad_shape, cases);
    T.check(bad_split == 0, "plan_gemv_split: %d of %d plans break valid_split", bad_split, cases);
}

void check_named_plans()
{
    const int h100 = 132;
    auto expect = [&](const char* what, const gemv_plan& p, int ksplit, int warps, long long blocks) {
        T.check(same(p, gemv_plan{ksplit, warps, blocks}), "%s: ksplit %d, %d warps, %lld blocks (want %d, %d, %lld)",
                what, p.ksplit, p.warps, p.blocks, ksplit, warps, blocks);
    };
    const auto R = layout::row_major, C = layout::col_major;
    // m16n8k16, 1 GiB A (the sweep in plan_gemv_mma's comment)
    expect("row 32768 x 4096", plan_gemv_mma(R, 2048, 256, h100), 8, 8, 2048);
    expect("row 32768 x 4096, plan_gemv", plan_gemv(2048, 256, h100), 4, 8, 1024);
    expect("col 4096 x 32768", plan_gemv_mma(C, 256, 2048, h100), 8, 16, 128);
    expect("col 4096 x 32768, plan_gemv", plan_gemv(256, 2048, h100), 16, 16, 256);
    expect("row 4096 x 32768", plan_gemv_mma(R, 256, 2048, h100), 16, 16, 256);
    expect("col 32768 x 4096", plan_gemv_mma(C, 2048, 256, h100), 4, 8, 1024);
    // column parts: col 4096 x 32768 in 33 parts of 63 K-steps (the sweep in plan_gemv_split's comment)
    const gemv_plan split = plan_gemv_split(C, 256, 2048, h100);
    T.check(split.ksplit == 4 && split.warps == 8 && split.blocks == 128 && split.parts == 33 && split.part_steps == 63,
            "col 4096 x 32768 split: ksplit %d, %d warps, %lld blocks, %d parts of %lld steps (want 4, 8, 128, 33, 63)",
            split.ksplit, split.warps, split.blocks, split.parts, split.part_steps);
    for (layout L : {R, C}) {
        const gemv_plan whole = plan_gemv_split(L, 2048, 256, h100);  // 32768 x 4096: enough row tiles
        T.check(whole.parts == 1 && same(whole, plan_gemv_mma(L, 2048, 256, h100)),
                "32768 x 4096 (%s): no column parts", L == R ? "row" : "col");
    }
    // K = 4 shapes at n = 16: 4 K-steps, plan_gemv's 4 warps per row tile
    for (layout L : {R, C}) {
        expect("m16n8k4 4096 x 16", plan_gemv_mma(L, 256, 4, h100), 4, 4, 256);
        expect("m8n8k4 4096 x 16", plan_gemv_mma(L, 512, 4, h100), 4, 8, 256);
        expect("m16n8k4 11264 x 16", plan_gemv_mma(L, 704, 4, h100), 4, 8, 352);
    }
}

void check_arguments()
{
    // gemv_check only compares addresses: host storage stands in for device memory
    alignas(16) static double mem[8192];
    double* const A = mem;
    const double* const x = mem + 4096;
    double* const y = mem + 6144;
    const auto R = layout::row_major, C = layout::col_major;
    const char* where = "tcore::gemv";
    auto ok = [&](const char* what, auto f) {
        try {
            f();
            T.check(true, "%s", what);
        } catch (const tcore::error& e) {
            T.check(false, "%s refused: %s", what, e.what());
        }
    };
    ok("separate A, x, y", [&] { gemv_check(where, R, 8, 8, A, 8, x, y); });
    // row-major 4 x 4 with lda 8: A's storage is 3 x 8 + 4 = 28 elements
    ok("y right after A (row-major)", [&] { gemv_check(where, R, 4, 4, A, 8, x, A + 28); });
    ok("y right before A", [&] { gemv_check(where, R, 4, 4, A + 4, 8, x, A); });
    // col-major 4 x 6 with lda 5: 5 x 5 + 4 = 29 elements
    ok("y right after A (col-major)", [&] { gemv_check(where, C, 4, 6, A, 5, x, A + 29); });
    T.expect_error("y overlapping A", [&] { gemv_check(where, R, 8, 8, A, 8, x, A + 60); }, "y overlaps A");
    T.expect_error("y on A's last element (col-major)",
                   [&] { gemv_check(where, C, 4, 6, A, 5, x, A + 25); }, "y overlaps A");
    T.expect_error("y in A's row padding", [&] { gemv_check(where, R, 4, 4, A, 8, x, A + 4); }, "y overlaps A");
    T.expect_error("y overlapping x", [&] { gemv_check(where, R, 8, 8, A, 8, x, mem + 4100); }, "y overlaps x");
    T.expect_error("an lda whose storage overflows",
                   [&] { gemv_check(where, R, 4, 4, A, 1LL << 59, x, y); }, "too large");
    T.expect_error("row-major lda < n", [&] { gemv_check(where, R, 8, 9, A, 8, x, y); }, "lda");
    T.expect_error("col-major lda < m", [&] { gemv_check(where, C, 9, 8, A, 8, x, y); }, "lda");
    T.expect_error("a negative n", [&] { gemv_check(where, R, 8, -1, A, 8, x, y); }, "negative");
    T.expect_error("a null A", [&] { gemv_check(where, R, 8, 8, nullptr, 8, x, y); }, "A is a null");
    T.expect_error("a null y", [&] { gemv_check(where, R, 8, 8, A, 8, x, nullptr); }, "y is a null");
}

}  // namespace

int main()
{
    check_plans();
    check_named_plans();
    check_arguments();
    return T.finish();
}
