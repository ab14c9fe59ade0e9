// box2d3r, t = 1: configurations of stencil2d_t1_kernel (cce).
#include "common.cuh"

void run_group_b3t1()
{
    using S = box2d3r;
    for (stencil_grid g : {stencil_grid{10240, 10240, 1}, stencil_grid{4096, 4096, 1}})
        run_configs<S>(g, {
                              {"default", base_cce<S>},
                              {"64x32v16b4t128", tile1<S, t1_tile_config<S, 64, 32, 16, 128, 4, 2>>},
                              {"64x48v16b3t192", tile1<S, t1_tile_config<S, 64, 48, 16, 192, 3, 2>>},
                              {"96x32v16b3t192", tile1<S, t1_tile_config<S, 96, 32, 16, 192, 3, 2>>},
                              {"64x32v16b5t128m1", tile1<S, t1_tile_config<S, 64, 32, 16, 128, 5, 1>>},
                              {"128x32v16b3t256m1", tile1<S, t1_tile_config<S, 128, 32, 16, 256, 3, 1>>},
                              {"64x32v16b3t128", tile1<S, t1_tile_config<S, 64, 32, 16, 128, 3, 2>>},
                              {"128x16v16b4t128", tile1<S, t1_tile_config<S, 128, 16, 16, 128, 4, 2>>},
                              {"64x64v32b3t128m1", tile1<S, t1_tile_config<S, 64, 64, 32, 128, 3, 1>>},
                              {"64x32v32b4t64", tile1<S, t1_tile_config<S, 64, 32, 32, 64, 4, 2>>},
                          });
}
