#include "common.cuh"
template <class S>
std::vector<config_entry<S>> cfgs()
{
    return {
        {"default", base_cce<S>},
        {"64x64v16b2t256", tile1<S, t1_tile_config<S, 64, 64, 16, 256, 2, 2>>},
        {"64x64v8b2t256", tile1<S, t1_tile_config<S, 64, 64, 8, 256, 2, 2>>},
        {"64x32v8b2t256", tile1<S, t1_tile_config<S, 64, 32, 8, 256, 2, 3>>},
        {"64x32v8b3t256", tile1<S, t1_tile_config<S, 64, 32, 8, 256, 3, 3>>},
        {"64x32v8b4t256", tile1<S, t1_tile_config<S, 64, 32, 8, 256, 4, 2>>},
        {"64x32v16b3t128", tile1<S, t1_tile_config<S, 64, 32, 16, 128, 3, 3>>},
        {"64x32v16b4t128", tile1<S, t1_tile_config<S, 64, 32, 16, 128, 4, 2>>},
        {"128x32v16b2t256", tile1<S, t1_tile_config<S, 128, 32, 16, 256, 2, 2>>},
        {"128x32v8b2t512", tile1<S, t1_tile_config<S, 128, 32, 8, 512, 2, 1>>},
        {"128x16v8b4t256", tile1<S, t1_tile_config<S, 128, 16, 8, 256, 4, 2>>},
        {"64x64v16b3t256", tile1<S, t1_tile_config<S, 64, 64, 16, 256, 3, 1>>},
        {"128x64v16b2t512", tile1<S, t1_tile_config<S, 128, 64, 16, 512, 2, 1>>},
    };
}
#define SHAPE box2d3r
#define GROUP run_group_2d3b
#ifndef SHAPE
#define SHAPE star2d3r
#define GROUP run_group_2d3s
#endif
void GROUP()
{
    for (stencil_grid g : {stencil_grid{4096, 4096, 1}, stencil_grid{10240, 10240, 1}})
        run_configs<SHAPE>(g, cfgs<SHAPE>());
}
