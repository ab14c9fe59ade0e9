#include "common.cuh"

template <class S>
std::vector<config_entry<S>> cfgs3d()
{
    // stream2_config<S, SX, SY, V, Ring, MinBlocks, CS>
    return {
        {"base", base_cce<S>},
        {"s64x32v8r6 nv", stream2<S, stream2_config<S, 64, 32, 8, 6, 2, false>, false>},
        {"s64x32v8r6 v", stream2<S, stream2_config<S, 64, 32, 8, 6, 2, false>, true>},
        {"s64x32v8r6 nv cs", stream2<S, stream2_config<S, 64, 32, 8, 6, 2, true>, false>},
        {"s64x32v8r6 v cs", stream2<S, stream2_config<S, 64, 32, 8, 6, 2, true>, true>},
        {"s64x32v8r5 v cs", stream2<S, stream2_config<S, 64, 32, 8, 5, 2, true>, true>},
        {"s64x32v8r4 v cs", stream2<S, stream2_config<S, 64, 32, 8, 4, 2, true>, true>},
        {"s64x32v8r3 v cs", stream2<S, stream2_config<S, 64, 32, 8, 3, 2, true>, true>},
        {"s64x32v16r6 v cs", stream2<S, stream2_config<S, 64, 32, 16, 6, 2, true>, true>},
        {"s128x16v8r5 v cs", stream2<S, stream2_config<S, 128, 16, 8, 5, 2, true>, true>},
        {"s128x32v8r6 v cs", stream2<S, stream2_config<S, 128, 32, 8, 6, 1, true>, true>},
        {"s128x32v8r4 v cs", stream2<S, stream2_config<S, 128, 32, 8, 4, 1, true>, true>},
        {"s256x8v8r5 v cs", stream2<S, stream2_config<S, 256, 8, 8, 5, 2, true>, true>},
        {"s64x16v8r8 v cs", stream2<S, stream2_config<S, 64, 16, 8, 8, 2, true>, true>},
        {"s128x32v16r6 v cs", stream2<S, stream2_config<S, 128, 32, 16, 6, 1, true>, true>},
        {"s64x64v8r5 v cs", stream2<S, stream2_config<S, 64, 64, 8, 5, 1, true>, true>},
    };
}

void run_group_3d()
{
    for (stencil_grid g : {stencil_grid{512, 512, 512}, stencil_grid{1024, 1024, 1024}}) {
        run_configs<star3d1r>(g, cfgs3d<star3d1r>());
        run_configs<box3d1r>(g, cfgs3d<box3d1r>());
    }
}
