#!/usr/bin/env python3
"""bench/readme_table.py RESULTS_CSV - README's benchmark table from one
recorded run (tcore-bench's results.csv): for each headline row, the best
base variant, the best tensor-core variant and the best CUDA-core variant
(cc or cce) by median time, and tc's speed against each (time ratios, above
1: tc faster). Rows that aggregate several cases give the geometric mean of
the per-case ratios and the smallest one. Cases measured in several cache
states use the largest footprint's state (stream, else cold, else hot).

Prints a markdown table headed by the device, date and commit of the run.
Variants: base* (vendor or conventional code), tc* (tensor cores; tc-e2e,
which includes format conversions, is not counted as tc), cc* and cce*
(CUDA cores); interp's *-f64 variants (FP64 output) are left out, the rows
compare 8-bit outputs.
"""
import csv
import math
import re
import sys

# (label, workload, case regex, aggregate over the matched cases?)
ROWS = [
    ("GEMM FP64", "gemm", r"^f64 4096\^3$", False),
    ("GEMM TF32", "gemm", r"^f32 4096\^3$", False),
    ("GEMM FP16", "gemm", r"^f16 4096\^3$", False),
    ("SCALE, 2^28 doubles", "scale", r"^n=2\^28$", False),
    ("reduce, segments of 64", "reduce", r"^seg=64$", False),
    ("reduce, segments of 256", "reduce", r"^seg=256$", False),
    ("reduce, device-wide FP64", "reduce", r"^f64 n=2\^28$", False),
    ("scan, segments of 64", "scan", r"^seg=64$", False),
    ("scan, segments of 256", "scan", r"^seg=256$", False),
    ("scan, device-wide FP64", "scan", r"^f64 incl n=2\^27$", False),
    ("scan, device-wide FP16 to FP32", "scan", r"^f16 incl n=2\^28$", False),
    ("GEMV tall-skinny, row 40960x16", "gemv", r"^row 40960x16$", False),
    ("GEMV row 32768x4096", "gemv", r"^row 32768x4096$", False),
    ("GEMV col 32768x4096", "gemv", r"^col 32768x4096$", False),
    ("GEMV row 4096x32768", "gemv", r"^row 4096x32768$", False),
    ("GEMV col 4096x32768", "gemv", r"^col 4096x32768$", False),
    ("SpMV, generated classes 1e6-1e8", "spmv", r"^[a-z_0-9]+/1e[678]$", True),
    ("SpMV fem3d, 1e8 nonzeros", "spmv", r"^fem3d/1e8$", False),
    ("SpGEMM, generated classes 1e5-1e6", "spgemm", r"^[a-z_0-9]+/1e[56]$", True),
    ("stencil star2d1r 10240^2, t = 1", "stencil", r"^star2d1r 10240\^2 t=1$", False),
    ("stencil box2d3r 10240^2, t = 1", "stencil", r"^box2d3r 10240\^2 t=1$", False),
    ("stencil box3d1r 1024^3, t = 1", "stencil", r"^box3d1r 1024\^3 t=1$", False),
    ("stencil star2d1r 10240^2, t = 3", "stencil", r"^star2d1r 10240\^2 t=3$", False),
    ("stencil star2d3r 10240^2, t = 3", "stencil", r"^star2d3r 10240\^2 t=3$", False),
    ("FFT 2D, the five Cubie cases, forward", "fft", r"^2d \d+x\d+ fwd$", True),
    ("bicubic interpolation", "interp", r"^bicubic ", True),
    ("bilinear interpolation", "interp", r"^bilinear ", True),
    ("PiC Boris push, 1M particles", "pic", r"^N=1M$", False),
    ("BFS, Kronecker scale 21", "bfs", r"^kron21$", False),
]

CACHE_ORDER = ("stream", "cold", "hot")


def family(variant):
    if variant.endswith("-f64"):  # interp's FP64-output variants: another output type than the 8-bit rows
        return None
    if variant.startswith("base"):
        return "base"
    if variant == "tc-e2e":
        return "e2e"
    if variant.startswith("tc"):
        return "tc"
    if variant.startswith("cc"):  # cc and cce
        return "cuda"
    return None


def load(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("median_ms")]
    cases = {}
    for r in rows:
        cases.setdefault((r["workload"], r["case"]), []).append(r)
    return rows, cases


def best_by_family(rows):
    """{family: (variant, median_ms)} over one case's rows of one cache state."""
    best = {}
    for r in rows:
        fam = family(r["variant"])
        if fam is None:
            continue
        t = float(r["median_ms"])
        if t > 0 and (fam not in best or t < best[fam][1]):
            best[fam] = (r["variant"], t)
    return best


def case_best(case_rows):
    for cache in CACHE_ORDER:
        sel = [r for r in case_rows if r["cache"] == cache]
        if sel:
            return cache, best_by_family(sel)
    return None, {}


def fmt_ms(v):
    return f"{v:.4g} ms"


def ratio_text(values):
    if not values:
        return "–"
    if len(values) == 1:
        return f"{values[0]:.2f}×"
    g = math.exp(sum(math.log(v) for v in values) / len(values))
    return f"{g:.2f}× (min {min(values):.2f}×, {len(values)} cases)"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows, cases = load(sys.argv[1])
    if not rows:
        sys.exit("no measured rows in " + sys.argv[1])
    first = rows[0]
    commits = sorted({r["commit"] for r in rows})
    dates = sorted({r["date_utc"][:10] for r in rows})
    partial = any(r.get("partial") == "1" for r in rows)
    print(f"Run: {first['device']}, CUDA runtime {first['cuda_runtime']}, {', '.join(dates)}, "
          f"commit {', '.join(commits)}{' (partial run)' if partial else ''}.\n")
    print("| row | cases (or cache state) | best base | best tc | best CUDA core | tc vs best base | tc vs best CUDA core |")
    print("|---|---|---|---|---|---:|---:|")
    for label, workload, pattern, aggregate in ROWS:
        matched = [(c, r) for (w, c), r in cases.items() if w == workload and re.search(pattern, c)]
        if not matched:
            continue
        vs_base, vs_cuda, names = [], [], {"base": set(), "tc": set(), "cuda": set()}
        single = {}
        for case_name, case_rows in sorted(matched):
            cache, best = case_best(case_rows)
            if "tc" not in best:
                continue
            t_tc = best["tc"][1]
            for fam, store in (("base", vs_base), ("cuda", vs_cuda)):
                if fam in best:
                    store.append(best[fam][1] / t_tc)
            for fam in names:
                if fam in best:
                    names[fam].add(best[fam][0])
            single = {fam: f"{v} {fmt_ms(t)}" for fam, (v, t) in best.items()}
            single["cache"] = cache
        if aggregate:
            cols = [", ".join(sorted(names[f])) or "–" for f in ("base", "tc", "cuda")]
            count = f"{len(matched)}"
        else:
            cols = [single.get(f, "–") for f in ("base", "tc", "cuda")]
            count = single.get("cache", "")
        print(f"| {label} | {count} | {cols[0]} | {cols[1]} | {cols[2]} | {ratio_text(vs_base)} | {ratio_text(vs_cuda)} |")


if __name__ == "__main__":
    main()
