// star2d3r, t = 3: tiled-kernel configurations (tile, threads, strip rows, 16-byte copies).
#include "common.cuh"

void run_group_s3t3()
{
    using S = star2d3r;
    using M = stencil_cce;
    for (long long blocks : {0LL, -1LL})
        for (stencil_grid g : {stencil_grid{10240, 10240, 1}, stencil_grid{4096, 4096, 1}}) {
            if (blocks != 0 && g.nx == 10240) continue;  // the same count there
            const std::string b = blocks == 0 ? " bal" : " res";
            run_configs<S>(g,
                           {
                               tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 64, 64, 256, 16, false>>("cce 64x64 t256 v16 np" + b, blocks),
                               tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 64, 64, 256, 8, false>>("cce 64x64 t256 v8 np" + b, blocks),
                               tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 64, 64, 512, 8, false>>("cce 64x64 t512 v8 np" + b, blocks),
                               tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 64, 64, 512, 16, false>>("cce 64x64 t512 v16 np" + b, blocks),
                               tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 64, 64, 384, 8, false>>("cce 64x64 t384 v8 np" + b, blocks),
                               tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 64, 64, 256, 16, true>>("cce 64x64 t256 v16 p" + b, blocks),
                               tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 64, 64, 512, 8, true>>("cce 64x64 t512 v8 p" + b, blocks),
                               tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 88, 64, 512, 8, false>>("cce 88x64 t512 v8 np" + b, blocks),
                               tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 64, 88, 512, 8, false>>("cce 64x88 t512 v8 np" + b, blocks),
                               tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 88, 64, 512, 16, false>>("cce 88x64 t512 v16 np" + b, blocks),
                               tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 48, 48, 256, 8, false>>("cce 48x48 t256 v8 np" + b, blocks),
                               tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 48, 48, 256, 16, false>>("cce 48x48 t256 v16 np" + b, blocks),
                           },
                           3, apply_ref<S, M, 3>());
            using TC = tensor_core;
            run_configs<S>(g,
                           {
                               tiled_entry<S, TC, 3, tiled2d_config<S, 3, TC, 64, 64, 256, 16, false>>("tc 64x64 t256 np" + b, blocks),
                               tiled_entry<S, TC, 3, tiled2d_config<S, 3, TC, 64, 64, 512, 16, false>>("tc 64x64 t512 np" + b, blocks),
                               tiled_entry<S, TC, 3, tiled2d_config<S, 3, TC, 64, 64, 256, 16, true>>("tc 64x64 t256 p" + b, blocks),
                           },
                           3, apply_ref<S, TC, 3>());
        }
}
