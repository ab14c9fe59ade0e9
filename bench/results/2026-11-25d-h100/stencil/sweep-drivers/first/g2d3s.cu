#include "common.cuh"

template <class S>
std::vector<config_entry<S>> cfgs2d3()
{
    return {
        {"base", base_cce<S>},
        {"64x64v16b2t256 nv", tile1<S, tile1_config<S, 64, 64, 16, 256, 2, 2, false>, false>},
        {"64x64v16b2t256 v", tile1<S, tile1_config<S, 64, 64, 16, 256, 2, 2, false>, true>},
        {"64x64v16b2t256 v cs", tile1<S, tile1_config<S, 64, 64, 16, 256, 2, 2, true>, true>},
        {"64x64v8b2t256 v cs", tile1<S, tile1_config<S, 64, 64, 8, 256, 2, 2, true>, true>},
        {"64x32v16b3t128 v cs", tile1<S, tile1_config<S, 64, 32, 16, 128, 3, 3, true>, true>},
        {"64x32v8b3t256 v cs", tile1<S, tile1_config<S, 64, 32, 8, 256, 3, 3, true>, true>},
        {"128x32v16b2t256 v cs", tile1<S, tile1_config<S, 128, 32, 16, 256, 2, 2, true>, true>},
        {"128x32v8b2t512 v cs", tile1<S, tile1_config<S, 128, 32, 8, 512, 2, 2, true>, true>},
        {"128x16v16b4t128 v cs", tile1<S, tile1_config<S, 128, 16, 16, 128, 4, 2, true>, true>},
        {"128x16v8b4t256 v cs", tile1<S, tile1_config<S, 128, 16, 8, 256, 4, 2, true>, true>},
        {"256x16v16b2t256 v cs", tile1<S, tile1_config<S, 256, 16, 16, 256, 2, 2, true>, true>},
        {"64x32v8b2t256 v cs", tile1<S, tile1_config<S, 64, 32, 8, 256, 2, 3, true>, true>},
        {"64x16v8b4t128 v cs", tile1<S, tile1_config<S, 64, 16, 8, 128, 4, 4, true>, true>},
        {"128x16v8b3t256 v cs", tile1<S, tile1_config<S, 128, 16, 8, 256, 3, 3, true>, true>},
        {"64x64v16b2t256 v cs ps1", tile1<S, tile1_config<S, 64, 64, 16, 256, 2, 2, true>, true, 1>},
        {"128x64v16b2t512 v cs", tile1<S, tile1_config<S, 128, 64, 16, 512, 2, 1, true>, true>},
        {"64x64v16b3t256 v cs", tile1<S, tile1_config<S, 64, 64, 16, 256, 3, 1, true>, true>},
    };
}

#ifndef SHAPE
#define SHAPE star2d3r
#define GROUP run_group_2d3s
#endif
void GROUP()
{
    for (stencil_grid g : {stencil_grid{10240, 10240, 1}, stencil_grid{4096, 4096, 1}})
        run_configs<SHAPE>(g, cfgs2d3<SHAPE>());
}
