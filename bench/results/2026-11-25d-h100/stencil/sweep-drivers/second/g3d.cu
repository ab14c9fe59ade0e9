#include "common.cuh"
template <class S>
std::vector<config_entry<S>> cfgs()
{
    // stream_config<S, SX, SY, V, Ring, MinBlocks>
    return {
        {"default", base_cce<S>},
        {"s64x32v8r5", stream1<S, stream_config<S, 64, 32, 8, 5, 2>>},
        {"s64x32v8r4", stream1<S, stream_config<S, 64, 32, 8, 4, 2>>},
        {"s128x16v8r5", stream1<S, stream_config<S, 128, 16, 8, 5, 2>>},
        {"s128x32v8r6", stream1<S, stream_config<S, 128, 32, 8, 6, 1>>},
        {"s128x32v8r4", stream1<S, stream_config<S, 128, 32, 8, 4, 1>>},
        {"s256x8v8r5", stream1<S, stream_config<S, 256, 8, 8, 5, 2>>},
        {"s64x64v8r5", stream1<S, stream_config<S, 64, 64, 8, 5, 1>>},
        {"s64x16v8r8", stream1<S, stream_config<S, 64, 16, 8, 8, 2>>},
        {"s128x32v16r6", stream1<S, stream_config<S, 128, 32, 16, 6, 1>>},
    };
}
void run_group_3d()
{
    for (stencil_grid g : {stencil_grid{512, 512, 512}, stencil_grid{1024, 1024, 1024}}) {
        run_configs<star3d1r>(g, cfgs<star3d1r>());
        run_configs<box3d1r>(g, cfgs<box3d1r>());
    }
}
