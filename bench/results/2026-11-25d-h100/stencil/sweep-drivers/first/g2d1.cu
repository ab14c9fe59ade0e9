#include "common.cuh"

template <class S>
std::vector<config_entry<S>> cfgs2d1()
{
    // tile1_config<S, TX, TY, V, Threads, Buffers, MinBlocks, CS>
    return {
        {"base", base_cce<S>},
        {"64x64v8b2t256 nv", tile1<S, tile1_config<S, 64, 64, 8, 256, 2, 3, false>, false>},
        {"64x64v8b2t256 v", tile1<S, tile1_config<S, 64, 64, 8, 256, 2, 3, false>, true>},
        {"64x64v8b2t256 nv cs", tile1<S, tile1_config<S, 64, 64, 8, 256, 2, 3, true>, false>},
        {"64x64v8b2t256 v cs", tile1<S, tile1_config<S, 64, 64, 8, 256, 2, 3, true>, true>},
        {"64x64v8b3t256 v cs", tile1<S, tile1_config<S, 64, 64, 8, 256, 3, 2, true>, true>},
        {"64x64v16b2t256 v cs", tile1<S, tile1_config<S, 64, 64, 16, 256, 2, 3, true>, true>},
        {"64x32v8b3t256 v cs", tile1<S, tile1_config<S, 64, 32, 8, 256, 3, 3, true>, true>},
        {"64x32v8b4t256 v cs", tile1<S, tile1_config<S, 64, 32, 8, 256, 4, 3, true>, true>},
        {"128x32v8b2t256 v cs", tile1<S, tile1_config<S, 128, 32, 8, 256, 2, 3, true>, true>},
        {"128x32v8b3t256 v cs", tile1<S, tile1_config<S, 128, 32, 8, 256, 3, 2, true>, true>},
        {"128x16v8b4t256 v cs", tile1<S, tile1_config<S, 128, 16, 8, 256, 4, 2, true>, true>},
        {"256x16v8b3t256 v cs", tile1<S, tile1_config<S, 256, 16, 8, 256, 3, 2, true>, true>},
        {"64x16v8b6t128 v cs", tile1<S, tile1_config<S, 64, 16, 8, 128, 6, 3, true>, true>},
        {"64x64v8b2t256 v cs ps2", tile1<S, tile1_config<S, 64, 64, 8, 256, 2, 3, true>, true, 2>},
        {"64x64v8b2t256 v cs ps4", tile1<S, tile1_config<S, 64, 64, 8, 256, 2, 3, true>, true, 4>},
        {"32x64v8b2t256 v cs", tile1<S, tile1_config<S, 32, 64, 8, 256, 2, 3, true>, true>},
        {"64x32v8b2t256 v cs", tile1<S, tile1_config<S, 64, 32, 8, 256, 2, 3, true>, true>},
        {"128x64v8b2t512 v cs", tile1<S, tile1_config<S, 128, 64, 8, 512, 2, 1, true>, true>},
    };
}

void run_group_2d1()
{
    for (stencil_grid g : {stencil_grid{10240, 10240, 1}, stencil_grid{4096, 4096, 1}}) {
        run_configs<star2d1r>(g, cfgs2d1<star2d1r>());
        run_configs<box2d1r>(g, cfgs2d1<box2d1r>());
    }
}
