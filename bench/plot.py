#!/usr/bin/env python3
"""bench/plot.py - roofline and speedup charts of a tcore-bench run.

usage: python3 bench/plot.py [RESULTS]     (RESULTS: results.json or the folder
                                            holding it; default bench/results/latest)

Writes PNG files next to results.json:
  roofline.png               every row that does floating-point work, GFLOP/s
                             against operational intensity (log-log), under the
                             memory roof (measured copy bandwidth) and one roof
                             per measured compute peak; rows that move no bytes
                             (intensity infinite) sit at the right edge
  speedup_tc_over_base.png   per case and cache state: t(base) / t(tc-like)
  speedup_cc_over_tc.png     t(tc) / t(cc-like)   (below 1: CUDA cores slower)
  speedup_cce_over_tc.png    t(tc) / t(cce)
Where two variants of a case report different work (mma_peak sizes each
launch on its own), the ratio is taken of GFLOP/s instead of time.

Needs matplotlib (pip install matplotlib).
"""

import argparse
import json
import math
import os
import sys
from collections import OrderedDict

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    from matplotlib.lines import Line2D
except ImportError:
    sys.exit("plot.py needs matplotlib: pip install matplotlib")

VARIANT_MARKERS = {"base": "o", "tc": "^", "cc": "s", "cce": "D"}
ROOFS = [  # (ceilings key, label, scale to GFLOP/s)
    ("fp16_tc_tflops", "FP16 tensor core", 1e3),
    ("tf32_tc_tflops", "TF32 tensor core", 1e3),
    ("fp64_tc_tflops", "FP64 tensor core", 1e3),
    ("fp32_cc_tflops", "FP32 FMA", 1e3),
    ("fp64_m8n8k4_tflops", "FP64 m8n8k4", 1e3),
    ("fp64_cc_tflops", "FP64 FMA", 1e3),
]


def results_path(arg):
    path = arg or os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "latest")
    return os.path.join(path, "results.json") if os.path.isdir(path) else path


def variant_family(variant):
    """'tc' for tc, tc-x, tc_x; 'cc' likewise (not cce); else the name."""
    for stem in ("tc", "cc"):
        if variant == stem or (variant.startswith(stem) and len(variant) > 2 and variant[2] in "-_"):
            return stem
    return variant


def marker_of(variant):
    return VARIANT_MARKERS.get(variant, VARIANT_MARKERS.get(variant_family(variant), "x"))


def title_of(data):
    run = data.get("run", {})
    return "{} | driver {} | CUDA {} | {} | {}".format(
        run.get("device_name", "?"), run.get("driver_version", "?"), run.get("cuda_runtime", "?"),
        run.get("commit", "?"), run.get("date_utc", "?"))


def positive(value):
    return isinstance(value, (int, float)) and value > 0 and math.isfinite(value)


def plot_roofline(data, out_dir):
    ceil = data.get("ceilings", {})
    rows = [r for r in data.get("rows", [])
            if positive(r.get("flops")) and positive(r.get("gflops")) and r.get("compute") != "int_ops"]
    if not rows:
        print("roofline: no rows with floating-point work; nothing drawn")
        return None
    bw = ceil.get("copy_gbs") or 0
    roofs = [(label, ceil.get(key, 0) * scale) for key, label, scale in ROOFS if positive(ceil.get(key))]

    finite = [r["intensity"] for r in rows if positive(r.get("intensity"))]
    ridges = [gf / bw for _, gf in roofs] if bw > 0 else []
    x_lo = min(finite + ridges + [1.0]) / 8
    x_hi = max(finite + ridges + [1.0]) * 8
    y_all = [r["gflops"] for r in rows] + [gf for _, gf in roofs]
    y_lo = min(y_all) / 8
    y_hi = max(y_all) * 3

    fig, ax = plt.subplots(figsize=(11, 7.5))
    xs = [x_lo * (x_hi / x_lo) ** (i / 200) for i in range(201)]
    if bw > 0:
        top = max(gf for _, gf in roofs) if roofs else y_hi
        ax.plot(xs, [min(bw * x, top) for x in xs], color="black", lw=1.6,
                label="memory roof {:.0f} GB/s".format(bw))
    roofs.sort(key=lambda roof: -roof[1])
    for i, (label, gf) in enumerate(roofs):
        start = gf / bw if bw > 0 else x_lo
        ax.plot([start, x_hi], [gf, gf], color="0.35", lw=1.0, ls=("-", "--", ":", "-.")[i % 4])
        text = "{} {:.3g} TFLOP/s".format(label, gf / 1e3)
        if i % 2 == 0:  # alternate ends so that close roofs keep readable labels
            ax.text(x_hi / 1.1, gf * 1.04, text, ha="right", va="bottom", fontsize=8, color="0.25")
        else:
            ax.text(start * 1.1, gf / 1.04, text, ha="left", va="top", fontsize=8, color="0.25")

    workloads = list(OrderedDict.fromkeys(r["workload"] for r in rows))
    colors = {w: plt.cm.tab10(i % 10) for i, w in enumerate(workloads)}
    for r in rows:
        x = r["intensity"] if positive(r.get("intensity")) else x_hi / 1.5  # bytes = 0: right edge
        cold = r.get("cache") == "cold"
        ax.scatter([x], [r["gflops"]], marker=marker_of(r["variant"]), s=42, linewidths=1.2,
                   edgecolors=[colors[r["workload"]]],
                   facecolors="none" if cold else [colors[r["workload"]]], zorder=3)

    handles = [Line2D([], [], color=colors[w], marker="o", ls="", label=w) for w in workloads]
    variants = list(OrderedDict.fromkeys(marker_of(r["variant"]) for r in rows))
    names = {m: v for v, m in VARIANT_MARKERS.items()}
    handles += [Line2D([], [], color="0.3", marker=m, ls="", label=names.get(m, "other")) for m in variants]
    handles += [Line2D([], [], color="0.3", marker="o", ls="", label="hot / stream"),
                Line2D([], [], color="0.3", marker="o", ls="", markerfacecolor="none", label="cold (L2 flushed)")]
    if bw > 0:
        handles.insert(0, Line2D([], [], color="black", lw=1.6, label="memory roof {:.0f} GB/s".format(bw)))
    ax.legend(handles=handles, loc="lower right", fontsize=8, ncol=2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    ax.set_xlabel("operational intensity (flop / byte); rows that move no bytes at the right edge")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("Roofline: " + title_of(data), fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    path = os.path.join(out_dir, "roofline.png")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def speedup(num, den):
    """How much faster row `num` is than row `den`."""
    if positive(num.get("flops")) and positive(den.get("flops")) and num["flops"] != den["flops"]:
        if positive(num.get("gflops")) and positive(den.get("gflops")):
            return num["gflops"] / den["gflops"]
        return None
    if positive(num.get("median_ms")) and positive(den.get("median_ms")):
        return den["median_ms"] / num["median_ms"]
    return None


def groups_of(rows):
    groups = OrderedDict()
    for r in rows:
        groups.setdefault((r["workload"], r["case"], r["cache"]), OrderedDict())[r["variant"]] = r
    return groups


def pairs(data, which):
    """(label, value) bars of one comparison: 'tc/base', 'cc/tc' or 'cce/tc'."""
    bars = []
    for (workload, case, cache), variants in groups_of(data.get("rows", [])).items():
        where = "{} | {} | {}".format(workload, case, cache)
        for name, row in variants.items():
            family = variant_family(name)
            if which == "tc/base" and family == "tc" and "base" in variants:
                num, den, tag = row, variants["base"], name
            elif which == "cc/tc" and family == "cc":
                tc = "tc" + name[2:] if "tc" + name[2:] in variants else "tc"
                if tc not in variants:
                    continue
                num, den, tag = row, variants[tc], "{} vs {}".format(name, tc)
            elif which == "cce/tc" and name == "cce" and "tc" in variants:
                num, den, tag = row, variants["tc"], name
            else:
                continue
            value = speedup(num, den)
            if value is not None:
                bars.append(("{} ({})".format(where, tag), value))
    return bars


def plot_speedups(data, which, title, filename, out_dir):
    bars = pairs(data, which)
    if not bars:
        print("{}: no case has both variants; nothing drawn".format(filename))
        return None
    height = max(3.0, 0.28 * len(bars) + 1.5)
    fig, ax = plt.subplots(figsize=(11, height))
    labels = [b[0] for b in bars]
    values = [b[1] for b in bars]
    colors = ["tab:green" if v >= 1 else "tab:red" for v in values]
    positions = list(range(len(bars)))[::-1]
    ax.barh(positions, [v - 1.0 for v in values], left=1.0, color=colors, height=0.7)  # bars grow from 1x
    ax.set_yticks(positions)
    ax.set_yticklabels(labels, fontsize=7)
    ax.axvline(1.0, color="black", lw=1)
    ax.set_xscale("log")
    for y, v in zip(positions, values):
        ax.text(v, y, " {:.2f}x ".format(v), va="center", ha="left" if v >= 1 else "right", fontsize=7)
    lo, hi = min(values + [1.0]), max(values + [1.0])
    ax.set_xlim(lo / 1.8, hi * 1.8)
    times = matplotlib.ticker.FuncFormatter(lambda v, _: "{:g}x".format(v))
    ax.xaxis.set_major_formatter(times)
    ax.xaxis.set_minor_formatter(times if hi / lo < 10 else matplotlib.ticker.NullFormatter())
    ax.set_xlabel("speedup (x), log scale")
    ax.set_title("{}\n{}".format(title, title_of(data)), fontsize=10)
    ax.grid(True, axis="x", which="both", alpha=0.25)
    path = os.path.join(out_dir, filename)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="?", help="results.json or its folder (default bench/results/latest)")
    args = parser.parse_args()
    path = results_path(args.results)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("plot.py: cannot read {}: {}".format(path, e))
    out_dir = os.path.dirname(os.path.abspath(path))
    written = [plot_roofline(data, out_dir),
               plot_speedups(data, "tc/base", "Tensor core over base: t(base) / t(tc)",
                             "speedup_tc_over_base.png", out_dir),
               plot_speedups(data, "cc/tc", "CUDA cores over tensor cores: t(tc) / t(cc)",
                             "speedup_cc_over_tc.png", out_dir),
               plot_speedups(data, "cce/tc", "Essential CUDA-core version over tensor cores: t(tc) / t(cce)",
                             "speedup_cce_over_tc.png", out_dir)]
    for p in written:
        if p:
            print("wrote " + p)


if __name__ == "__main__":
    main()
