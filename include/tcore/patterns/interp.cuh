// tcore/patterns/interp.cuh - image resampling (bilinear, bicubic) as two
// chained MMAs, the accumulator of the first fed straight into the A
// operand of the second (frag/reuse.cuh).
//
// After "Making GPU tensor cores compute texture interpolation". On the
// local unit square of a sample, with a, b the fractional x, y positions and
// F the taps x taps texels around it (F(i, j): i along x, j along y),
//
//   A = C F C^T,   p = [1 a a^2 a^3] A [1 b b^2 b^3]^T = wx^T F wy,
//   wx = C^T [1 a a^2 a^3]^T, wy likewise,
//
// with C the bilinear coefficient matrix (2x2) or the bicubic Hermite
// matrix M = H S (4x4: Hermite basis H times the central-difference slopes
// S; Catmull-Rom, Keys' kernel with a = -1/2). Both are constexpr
// generators here, host and device.
//
// Resampling a whole image by one scale factor shares the x weights along
// every output column and the y weights along every output row, so a warp
// evaluates p for a tile of pixels as
//
//   product 1: D1 = Wx (16 output columns x 16 texels, generated)
//                 * Img^T (16 texels x 8 = 2 image rows x 4 channels, loaded)
//   product 2: D2 = D1 as A (16 output columns x 16 = 4 image rows x 4 channels)
//                 * (Wy (x) I4)^T (16 x 8 = 2 output rows x 4 channels, generated)
//
// i.e. wx^T F (product 1, every channel of 2 rows at once) then the sum over
// rows with wy (product 2, block-diagonal over the 4 channels). 3 and 4
// channels are packed into one MMA (3: the fourth channel slot stays 0). A
// warp tile is 16 output columns x 8 output rows (4 blocks of 2 rows): the
// texels under the tile's 16 columns are taken 16 at a time (product 1's k
// blocks) and its rows 4 at a time (product 2's k blocks), so any scale
// factor works; weights outside a pixel's taps are 0.
//
// Reuse (docs/mma-fragments.md section 7): FP16 m16n8k16 builds the A of
// product 2 in place from two 16x8 accumulators (reuse_a(d0, d1)), standard
// layout, so B2 is generated in the standard B map. FP64 m16n8k16 relabels
// k (reuse_a(d0, d1) for f64): A2 slot t + 4j stands for P column
// reuse_col(lane, j), and B2 is generated for those rows.
//
// Product 1's k slots are relabelled too (only the joint A/B k labelling is
// observable): FP16 lane (g, t) holds texels 4t..4t+3 of the k block (one
// 16-byte load of 4 RGBA texels), FP64 texels 2t, 2t+1, 8+2t, 9+2t.
//
// Geometry is the texture unit's: texel i covers [i, i+1), output pixel d
// samples source position u = (d + 0.5) * (in / out) - 0.5, i0 = floor(u),
// a = u - i0, and indices outside the image are clamped to the edge
// (cudaAddressModeClamp). FP16 shapes compute positions and weights in
// FP32 and round the weights to FP16; FP64 computes everything in FP64.
//
// resample_block runs a warp tile over contiguous 4-row chunks (FP64, and
// the FP16 fallback); resample_staged_block (section "the staged FP16
// path") stages the image rows a block reads (contiguous, or gathered per
// output row) into shared memory per block and is what the FP16 kernels use
// up to moderate down-scaling; resample_gather_warp (section "the gather
// FP16 path") puts the channels into M and K, reads RGBA words straight from
// global memory and takes strong down-scaling.
//
// tests/host/test_interp.cu checks the generators, the tile maps, a whole
// warp tile, a whole staged block and a gather warp on a simulated warp;
// tests/gpu/test_interp.cu the kernels.
//
// The parts, each usable on its own:
//   interp_weights.cuh  filters, coefficient generators, weights, sample
//                       positions, image descriptors
//   interp_tile.cuh     the warp tile's maps and the operand makers
//                       (make_a1, make_b2)
//   interp_block.cuh    loads, stores, resample_block (any Shape)
//   interp_staging.cuh  the staged path's plan, staging and stores
//   interp_staged.cuh   resample_staged_block
//   interp_gather.cuh   the gather path, resample_gather_warp
// The kernels and host launchers are in tcore/patterns/device/interp.cuh.
#pragma once

#include "interp_weights.cuh"
#include "interp_tile.cuh"
#include "interp_block.cuh"
#include "interp_staging.cuh"
#include "interp_staged.cuh"
#include "interp_gather.cuh"
