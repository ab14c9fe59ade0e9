#include "common.cuh"
template <class S>
std::vector<config_entry<S>> cfgs()
{
    // t1_tile_config<S, TX, TY, V, Threads, Buffers, MinBlocks>
    return {
        {"default", base_cce<S>},
        {"64x64v8b3t256", tile1<S, t1_tile_config<S, 64, 64, 8, 256, 3, 2>>},
        {"64x64v16b2t256", tile1<S, t1_tile_config<S, 64, 64, 16, 256, 2, 3>>},
        {"64x32v8b3t256", tile1<S, t1_tile_config<S, 64, 32, 8, 256, 3, 3>>},
        {"64x32v8b4t256", tile1<S, t1_tile_config<S, 64, 32, 8, 256, 4, 3>>},
        {"128x32v8b2t256", tile1<S, t1_tile_config<S, 128, 32, 8, 256, 2, 3>>},
        {"128x32v8b3t256", tile1<S, t1_tile_config<S, 128, 32, 8, 256, 3, 2>>},
        {"128x16v8b4t256", tile1<S, t1_tile_config<S, 128, 16, 8, 256, 4, 2>>},
        {"256x16v8b3t256", tile1<S, t1_tile_config<S, 256, 16, 8, 256, 3, 2>>},
        {"128x64v8b2t512", tile1<S, t1_tile_config<S, 128, 64, 8, 512, 2, 1>>},
    };
}
void run_group_2d1()
{
    for (stencil_grid g : {stencil_grid{4096, 4096, 1}, stencil_grid{10240, 10240, 1}}) {
        run_configs<star2d1r>(g, cfgs<star2d1r>());
        run_configs<box2d1r>(g, cfgs<box2d1r>());
    }
}
