// bench/harness/headline.cpp - the table of headline cases and variants (see
// headline.hpp). The headline cases are the rows of README.md's benchmark
// table; bench/results/h100/results.csv holds them, and tests/host/
// test_harness.cu checks every pattern against that file's case names.
#include "harness/headline.hpp"

#include "harness/harness.hpp"

namespace tcore::bench {

namespace {

/// "=fem3d/1e6", ... for the five generated classes at the given sizes.
std::vector<std::string> generated_classes(const std::vector<std::string>& sizes)
{
    std::vector<std::string> out;
    for (const std::string& size : sizes)
        for (const char* cls : {"fem3d", "lattice4d", "dense_blocks", "banded", "power_law"})
            out.push_back(std::string("=") + cls + "/" + size);
    return out;
}

std::vector<workload_catalog> make_catalog()
{
    return {
        // GEMM FP64, TF32, FP16 at 4096^3
        {"gemm",
         {"=f64 4096^3", "=f32 4096^3", "=f16 4096^3"},
         {"base", "tc", "tc-bk32", "tc-m8n8k4", "cc", "base-fp32", "tc-tf32", "tc-tf32-tutorial", "cce-tiled",
          "tc-f16"}},
        // SCALE, 2^28 doubles
        {"scale", {"=n=2^28"}, {"base", "tc", "tc-m16n8k4", "tc-m8n8k4", "cc", "cc-m8n8k4"}},
        // segments of 64 and 256 (2^27 values), device-wide FP64 (2^28)
        {"reduce",
         {"=seg=64", "=seg=256", "=f64 n=2^28"},
         {"base", "base-block", "base-dsr", "tc", "tc-m8n8k4", "cc", "cc-m8n8k4", "cce"}},
        // segments of 64 and 256, device-wide FP64 (2^27) and FP16 -> FP32 (2^28)
        {"scan", {"=seg=64", "=seg=256", "=f64 incl n=2^27", "=f16 incl n=2^28"},
         {"base", "base-block", "tc", "cc", "cce"}},
        // tall-skinny (row-major 40960x16) and the large row/col-major shapes
        {"gemv",
         {"=row 40960x16", "=row 32768x4096", "=col 32768x4096", "=row 4096x32768", "=col 4096x32768"},
         {"base", "tc", "tc-m8n8k4", "cc", "cc-m8n8k4", "cce"}},
        // the generated classes at 1e6, 1e7 and 1e8 nonzeros (the geomean row and fem3d 1e8)
        {"spmv",
         generated_classes({"1e6", "1e7", "1e8"}),
         {"base-csr1", "base-csr1-noprep", "base-csr2", "base-bsr", "base-sell", "tc", "tc-m16n8k8", "tc-m16n8k16", "cc", "cc-m16n8k8", "cce", "tc-bundle",
          "cc-bundle", "cce-bundle", "tc-panels", "cc-panels", "cce-panels"},
         {},
         {"base", "base-noprep"}},  // CSR ALG1 with and without preprocessing: base-csr1, base-csr1-noprep now
        // the generated classes at 1e5 and 1e6 nonzeros (the geomean row; 1e7, whose
        // power-law case alone takes 90 s of set-up and host reference, with --full)
        {"spgemm", generated_classes({"1e5", "1e6"}), {"base", "tc", "tc-e2e", "cc", "cce"}},
        {"stencil",
         {"=star2d1r 10240^2 t=1", "=box2d3r 10240^2 t=1", "=box3d1r 1024^3 t=1", "=star2d1r 10240^2 t=3",
          "=star2d3r 10240^2 t=3"},
         {"tc", "cc", "cce"}},
        // the five 2D Cubie cases, forward
        {"fft",
         {"=2d 256x256 fwd", "=2d 256x512 fwd", "=2d 256x1024 fwd", "=2d 512x256 fwd", "=2d 512x512 fwd"},
         {"base", "tc", "cc", "tc-1pass", "cc-1pass", "tc-2pass", "cc-2pass"}},
        // bicubic and bilinear, six cases each (the geomean rows)
        {"interp",
         {"bilinear ", "bicubic "},
         {"base", "base-pitch", "tc", "tc-f16acc", "tc-f64", "cc", "cc-f64", "cce", "cce-f64"}},
        {"pic", {"=N=1M"}, {"tc", "tc-m8n8k4", "cc", "cc-m8n8k4", "cce"}},
        // and the user's graphs (TCORE_BFS_GRAPHS: cases "mtx/<stem>"), which run wherever they are given
        // Kronecker, R-MAT and uniform random graphs of 2^21 vertices; base-old is the
        // edge-scanning base the direction-optimizing base replaced (its before/after)
        {"bfs", {"=kron21", "=rmat21", "=urand21"}, {"base", "base-old", "tc", "cc"}, {"mtx/"}},
        // the MMA throughput table is not a README row (its figures are the ceilings line): --full
        {"mma_peak", {}, {"tc", "cc"}},
    };
}

}  // namespace

const std::vector<workload_catalog>& catalog()
{
    static const std::vector<workload_catalog> table = make_catalog();
    return table;
}

const workload_catalog* catalog_of(const std::string& workload)
{
    for (const workload_catalog& w : catalog())
        if (w.workload == workload) return &w;
    return nullptr;
}

bool is_headline(const std::string& workload, const std::string& case_name)
{
    const workload_catalog* w = catalog_of(workload);
    if (!w) return false;
    return (!w->headline_cases.empty() && name_matches(w->headline_cases, case_name)) ||
           (!w->user_cases.empty() && name_matches(w->user_cases, case_name));
}

std::vector<std::string> known_variants(const std::string& workload)
{
    const workload_catalog* w = catalog_of(workload);
    return w ? w->variants : std::vector<std::string>{};
}

}  // namespace tcore::bench
