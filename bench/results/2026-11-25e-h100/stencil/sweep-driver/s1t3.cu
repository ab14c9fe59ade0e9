// star2d1r / box2d1r, t = 3: tiled-kernel configurations (cce).
#include "common.cuh"

template <class S>
void one_shape(const stencil_grid& g)
{
    using M = stencil_cce;
    run_configs<S>(g,
                   {
                       tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 60, 60, 256, 8, true>>("cce 60x60 t256 v8 p"),
                       tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 60, 60, 512, 8, true>>("cce 60x60 t512 v8 p"),
                       tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 60, 60, 384, 8, true>>("cce 60x60 t384 v8 p"),
                       tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 60, 60, 256, 4, true>>("cce 60x60 t256 v4 p"),
                       tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 60, 60, 256, 16, true>>("cce 60x60 t256 v16 p"),
                       tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 124, 60, 512, 8, true>>("cce 124x60 t512 v8 p"),
                       tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 124, 60, 1024, 8, true>>("cce 124x60 t1024 v8 p"),
                       tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 60, 124, 512, 8, true>>("cce 60x124 t512 v8 p"),
                       tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 60, 28, 256, 8, true>>("cce 60x28 t256 v8 p"),
                       tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 60, 28, 128, 8, true>>("cce 60x28 t128 v8 p"),
                       tiled_entry<S, M, 3, tiled2d_config<S, 3, M, 124, 28, 256, 8, true>>("cce 124x28 t256 v8 p"),
                   },
                   3, apply_ref<S, M, 3>());
}

void run_group_s1t3()
{
    for (stencil_grid g : {stencil_grid{10240, 10240, 1}, stencil_grid{4096, 4096, 1}}) {
        one_shape<star2d1r>(g);
        one_shape<box2d1r>(g);
    }
}
