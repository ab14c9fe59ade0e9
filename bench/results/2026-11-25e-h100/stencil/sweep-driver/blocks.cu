// Persistent-block counts of the 2D tiled kernel (default configurations):
// launch_tiled2d's balanced_blocks (0) against fixed counts.
#include "common.cuh"

template <class S, class M, int T>
void block_counts(const stencil_grid& g, std::initializer_list<long long> counts)
{
    using C = stencil_detail::config2d<S, T, M>;
    std::vector<config_entry<S>> v;
    for (long long n : counts)
        v.push_back(tiled_entry<S, M, T, C>(std::string(M::name()) + " " + (n == 0 ? std::string("balanced") : n < 0 ? "resident" : "blocks=" + std::to_string(n)), n));
    run_configs<S>(g, v, T, apply_ref<S, M, T>());
}

void run_group_blocks()
{
    const stencil_grid g4{4096, 4096, 1}, g10{10240, 10240, 1};
    block_counts<star2d3r, stencil_cce, 3>(g4, {0, -1, 131, 130, 129, 127, 124, 120, 96, 66, 64});
    block_counts<star2d3r, tensor_core, 3>(g4, {0, -1, 130, 96});
    block_counts<box2d3r, tensor_core, 3>(g4, {0, -1, 130});
    block_counts<box2d3r, stencil_cce, 3>(g4, {0, -1, 130});
    block_counts<star2d1r, stencil_cce, 3>(g4, {0, -1, 262});
    block_counts<star2d3r, stencil_cce, 3>(g10, {0, -1, 130});
}
