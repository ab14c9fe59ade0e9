#!/usr/bin/env python3
"""Checks a tcore-bench results folder: results.csv, results.json and
summary.md parse, hold the same rows, and agree on whether the run is
complete or partial.

usage: python3 bench/check_run.py DIR [--partial | --complete]

  --partial   the run must be marked partial (stopped by a signal or killed)
  --complete  the run must be complete

Prints one line per check and exits 0 if all pass, 1 otherwise. A run killed
outright (SIGKILL, or a second Ctrl-C) may have more CSV rows than JSON rows
(the CSV gains a row per measurement, the JSON is rewritten per case); every
other state has the same rows in both.
"""
import csv
import json
import os
import sys


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    want = "partial" if "--partial" in argv else "complete" if "--complete" in argv else None
    if len(args) != 1:
        print(__doc__.strip())
        return 2
    folder = args[0]
    failed = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failed.append(what)

    paths = {n: os.path.join(folder, n) for n in ("results.csv", "results.json", "summary.md")}
    for name, path in paths.items():
        check(os.path.isfile(path), f"{name} exists")
    if failed:
        return 1

    with open(paths["results.csv"], newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        body = list(reader)
    check(header is not None and header[-1] == "partial", "results.csv has a header ending in 'partial'")
    widths = {len(r) for r in body}
    check(not body or widths == {len(header)}, f"results.csv: {len(body)} rows, each with {len(header)} fields")
    flags = {r[-1] for r in body}
    check(flags <= {"0", "1"} and len(flags) <= 1, f"results.csv: one partial value for all rows ({sorted(flags)})")

    try:
        with open(paths["results.json"]) as f:
            data = json.load(f)
        check(True, "results.json parses")
    except ValueError as e:
        check(False, f"results.json parses ({e})")
        return 1
    partial = data.get("partial")
    check(isinstance(partial, bool), f"results.json has 'partial' ({partial}): {data.get('partial_reason', '')!r}")
    rows = data.get("rows", [])
    print(f"      cases {data.get('cases_done')} of {data.get('cases_total')}, {len(rows)} rows in the JSON")
    if partial:
        check(len(body) >= len(rows), "the CSV holds at least the JSON's rows")
    else:
        check(len(body) == len(rows), "the CSV and the JSON hold the same rows")
    if body:
        check(flags == ({"1"} if partial else {"0"}), "the CSV's partial column agrees with the JSON")
    with open(paths["summary.md"]) as f:
        md = f.read()
    check(("Partial run" in md) == bool(partial), "summary.md says 'Partial run' exactly when the run is partial")
    if want == "partial":
        check(partial is True, "the run is marked partial, as expected")
    if want == "complete":
        check(partial is False, "the run is complete, as expected")
    leftovers = [n for n in os.listdir(folder) if n.endswith(".tmp")]
    check(not leftovers, f"no temporary files left ({leftovers})")
    print("PASS" if not failed else f"{len(failed)} check(s) failed")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
