// bench/mma_peak/mma_peak.cu - the "mma_peak" workload: TFLOP/s of every
// tcore MMA shape with each backend (variant "tc": tensor_core, "cc":
// cuda_core), beside FP64 and FP32 FMA on CUDA cores. b1 rows count
// 2*M*N*K "ops" per MMA. Rows move no memory (bytes = 0).
#include "harness/harness.hpp"
#include "mma_peak/mma_peak_kernels.hpp"

#include <cstdio>
#include <string>

namespace {

using namespace tcore;
using namespace tcore::bench;

/// The ceilings a shape's rows are held against, per backend.
template <class Shape>
struct shape_peaks;
template <>
struct shape_peaks<f64_m8n8k4> {
    static constexpr peak tc = peak::fp64_tc, cc = peak::fp64_cc;
};
template <int K>
struct shape_peaks<f64_m16n8<K>> {
    static constexpr peak tc = peak::fp64_tc, cc = peak::fp64_cc;
};
template <>
struct shape_peaks<tf32_m16n8k8> {
    static constexpr peak tc = peak::tf32_tc, cc = peak::fp32_cc;
};
template <class Acc>
struct shape_peaks<f16_m16n8k16<Acc>> {
    // the cuda_core backend multiplies and accumulates FP16 in FP32
    static constexpr peak tc = peak::fp16_tc, cc = peak::fp32_cc;
};
template <>
struct shape_peaks<b1_m8n8k128> {
    static constexpr peak tc = peak::int_ops, cc = peak::int_ops;
};

double target_ms(const context& ctx) { return ctx.quick() ? 1.0 : 4.0; }

std::string launch_note(const mma_peak::launcher& l, int chains, const std::string& extra = "")
{
    return std::to_string(l.warps_per_sm) + " warps/SM, " + std::to_string(chains) + " chains, " +
           std::to_string(l.iters) + " iterations" + extra;
}

/// Measures one launcher; returns TFLOP/s (or -1 if the filters skipped it).
double measure_launcher(context& ctx, const std::string& case_name, const std::string& variant,
                        const mma_peak::launcher& l, peak p, int chains, const std::string& note_extra = "")
{
    row_spec spec;
    spec.case_name = case_name;
    spec.variant = variant;
    spec.bytes = 0;
    spec.flops = l.flops();
    spec.ceiling = p;
    spec.compute = p;
    spec.footprint_bytes = 0;
    spec.note = launch_note(l, chains, note_extra);
    const std::vector<double> ms = ctx.measure(spec, [&l](cudaStream_t s) { l(s); }, accuracy{});
    return ms.empty() ? -1 : l.flops() / (ms[0] * 1e-3) / 1e12;
}

std::string times(double num, double den)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fx", num / den);
    return buf;
}

template <class Shape>
void run_shape(context& ctx)
{
    const std::string name = Shape::name();
    if (!ctx.announce_case(name)) return;
    const int sms = ctx.ceil().sm_count;
    double tc = -1, cc = -1;
    if (ctx.want_variant("tc")) {
        const auto l = mma_peak::make_mma<Shape, tensor_core>(sms, ctx.stream(), target_ms(ctx));
        tc = measure_launcher(ctx, name, "tc", l, shape_peaks<Shape>::tc, mma_peak::mma_chains);
    }
    if (ctx.want_variant("cc")) {
        const auto l = mma_peak::make_mma<Shape, cuda_core>(sms, ctx.stream(), target_ms(ctx));
        cc = measure_launcher(ctx, name, "cc", l, shape_peaks<Shape>::cc, mma_peak::mma_chains,
                              ", operands advanced by one integer add per register per MMA");
    }
    if (tc > 0 && cc > 0) ctx.summary(name + " tensor_core / cuda_core throughput", times(tc, cc));
}

template <class T>
double run_fma(context& ctx, const char* name, peak p)
{
    if (!ctx.announce_case(name) || !ctx.want_variant("cc")) return -1;
    const auto l = mma_peak::make_fma<T>(ctx.ceil().sm_count, ctx.stream(), target_ms(ctx));
    return measure_launcher(ctx, name, "cc", l, p, mma_peak::fma_chains);
}

void run(context& ctx)
{
    run_shape<f64_m8n8k4>(ctx);
    run_shape<f64_m16n8k4>(ctx);
    run_shape<f64_m16n8k8>(ctx);
    run_shape<f64_m16n8k16>(ctx);
    run_shape<tf32_m16n8k8>(ctx);
    run_shape<f16_m16n8k16_f32acc>(ctx);
    run_shape<f16_m16n8k16_f16acc>(ctx);
    run_shape<b1_m8n8k128>(ctx);
    const double dfma = run_fma<double>(ctx, "fp64_fma", peak::fp64_cc);
    run_fma<float>(ctx, "fp32_fma", peak::fp32_cc);
    if (dfma > 0 && ctx.ceil().fp64_tc_tflops > 0)
        ctx.summary("FP64 tensor-core peak / FP64 FMA (alpha)", times(ctx.ceil().fp64_tc_tflops, dfma));
}

}  // namespace

void tcore_register_mma_peak(tcore::bench::registry& r)
{
    r.add({"mma_peak", "TFLOP/s of every MMA shape on tensor cores (tc) and CUDA cores (cc), and FP64/FP32 FMA",
           run});
}
