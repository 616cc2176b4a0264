#!/usr/bin/env python3
"""Markdown tables for docs/benchmarks.md from `inbetween bench --json` runs.

    inbetween bench --json > full.json                # full run (adds 10^6 scalar channels)
    inbetween bench --quick --json > quick.json       # quick run: the run issue 12 states its targets on
    tools/ozz-compare/run.sh > ozz.json               # optional: the ozz-animation-rs rows
    tools/callgrind-playback.sh > cg.txt              # optional: instructions per channel-frame
    python3 tools/bench-tables.py --full full.json --quick quick.json --ozz ozz.json \\
        [--callgrind cg.txt] [--time full.err] [--write docs/benchmarks.md]

prints the Results section of docs/benchmarks.md: per workload one table (method, what it plays,
ns per channel-frame and the ratio to inbetween-batch-f32 at each channel count, largest error
against exact evaluation; the full run's rows, or the quick run's for a workload the full run
lacks), the compile table, the callgrind table, and issue 12's targets for each run given
("met", or "**missed** by" how much). `--time` reads `/usr/bin/time -v`'s report of the full run
(wall time, peak memory). `--write FILE` replaces the text between the markers
`<!-- bench-tables: begin -->` and `<!-- bench-tables: end -->` in FILE instead of printing.

The old usage still works: `python3 tools/bench-tables.py bench.json [ozz.json ...]` prints the
tables and targets of one run, with the rows of the further files as `--ozz` adds them.
"""
import argparse
import json
import os
import re
import sys

WHAT = {
    "inbetween-batch-f32": "`Bank` over an f32 stream: f32 Horner lanes about 16-frame epochs (checked in `Bank::new`; from 256 KiB a block re-centred in place at each epoch), SoA, reload script (records stored in the pass from 40 KiB)",
    "inbetween-batch-f64": "`Bank` over an f64 stream (Horner lanes, f32 or f64 as the check allows)",
    "inbetween-batch-fixed": "`Bank` over a fixed-point stream: i32 Newton lanes (integer forward differences in units 2^-E about 16-frame epochs, `Σ d_k·C(u,k)`, checked in `Bank::new`; AVX-512 where the CPU has it), SoA, reload script (records stored in the pass from 40 KiB)",
    "inbetween-batch-f32-degree4": "`Bank`, f32 stream compiled with `max_degree: 4`",
    "inbetween-batch-f32-raw": "`Bank`, f32 stream compiled with `normalize: false` (quaternion components fitted raw, not normalized on output)",
    "inbetween-batch-f32-parallel": "`Bank::advance_parallel` (feature rayon)",
    "inbetween-player-f32": "one `TrackPlayer` per track",
    "inbetween-exact": "`Track::eval_segment` in f64 with a segment cursor",
    "hermite-soa-script": "hand-written: per lane 4 f32 coefficients + start frame (SoA), Horner, same reload script (applied part by part from 2 560 lanes, as the bank's records), AVX2 at run time; the same cubics",
    "slerp-soa-script": "hand-written: Shoemake slerp in f32, angle and 1/sin cached per lane (SoA), same reload script, AVX2 at run time; the same slerp",
    "ozz-animation-rs": "ozz-animation-rs 0.11 `SamplingJob`, one context per character (timed by `tools/ozz-compare/run.sh`; ratio to the bank in that process)",
    "inbetween-batch-f32 (run.sh)": "the same f32 bank, timed by `tools/ozz-compare/run.sh` in ozz-animation-rs's process",
    "streaming-ceiling": "reads 16 B (four f32) and writes one f32 per value (Horner, one `t` per frame, AVX2 at run time); plays no curve (not checked)",
}

WORKLOADS = {
    "scalar": "channel = one scalar track; 32 keys (catmull_rom, tcb, bezier, linear), frames 64..",
    "quaternion": "channel = one rotation (4 values); 32 slerp keys 10°..120° apart, frames 64..",
    "ozz": "channel = one joint (translation, rotation, scale: 10 values); N characters playing ozz's playback clip (67 joints) at 60 fps, frames 64..",
}

BEGIN = "<!-- bench-tables: begin -->"
END = "<!-- bench-tables: end -->"
OZZ_BANK = "inbetween-batch-f32 (run.sh)"
OZZ_COMPARE = ("ozz-animation-rs", OZZ_BANK)


def fmt(x, digits=3):
    if x is None:
        return "–"
    return f"{x:.{digits}g}"


def load(path):
    with open(path) as f:
        return json.load(f)


def find(rows, method, workload, n):
    return next(
        (r for r in rows if r["method"] == method and r["workload"] == workload and r["channels"] == n),
        None,
    )


def ns(rows, method, workload, n):
    r = find(rows, method, workload, n)
    return r and r["ns_per_channel_frame"]


def ozz_rows(paths):
    """ozz-compare's rows; its own bank row renamed, so that it stands beside the bench's."""
    rows = []
    for p in paths:
        for r in load(p)["results"]:
            r = dict(r)
            if r["method"] == "inbetween-batch-f32":
                r["method"] = OZZ_BANK
            rows.append(r)
    return rows


def workload_table(out, workload, mine):
    sizes = sorted({r["channels"] for r in mine})
    batch = {r["channels"]: r["ns_per_channel_frame"] for r in mine if r["method"] == "inbetween-batch-f32"}
    # ozz-compare's rows are divided by the bank timed in their own process
    in_process = {r["channels"]: r["ns_per_channel_frame"] for r in mine if r["method"] == OZZ_BANK}
    head = "| method | what it plays |"
    rule = "| --- | --- |"
    for n in sizes:
        head += f" {n:,} ch: ns | × batch f32 |"
        rule += " ---: | ---: |"
    out.append(head + " max error |")
    out.append(rule + " ---: |")
    for m in dict.fromkeys(r["method"] for r in mine):
        line = f"| {m} | {WHAT.get(m, '')} |"
        err = None
        for n in sizes:
            r = find(mine, m, workload, n)
            t = r and r["ns_per_channel_frame"]
            if r and r.get("max_error") is not None:
                err = max(err or 0.0, r["max_error"])
            base = in_process if m in OZZ_COMPARE and in_process else batch
            ratio = t / base[n] if t and base.get(n) else None
            line += f" {fmt(t)} | {fmt(ratio)} |"
        out.append(line + f" {fmt(err, 2)} |")
    out.append("")


def compile_table(out, runs):
    """runs: [(label or None, compile rows)]"""
    labelled = any(label for label, _ in runs)
    out.append(("| run " if labelled else "") + "| workload | precision | keys | keys / s | stream B / key | raw f32 B / key | JSON B / key |")
    out.append(("| --- " if labelled else "") + "| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for label, rows in runs:
        for c in rows:
            out.append(
                (f"| {label} " if labelled else "")
                + f"| {c['workload']} | {c['precision']} | {c['keys']:,} | {fmt(c['keys_per_s'])} |"
                f" {fmt(c['stream_bytes_per_key'])} | {fmt(c['raw_f32_bytes_per_key'])} |"
                f" {fmt(c['json_bytes_per_key'])} |"
            )
    out.append("")


def verdict(value, bound, at_most):
    """'met', or '**missed** by' the distance to the bound (and its share of the bound)."""
    if (value <= bound) if at_most else (value >= bound):
        return "met"
    gap = abs(value - bound)
    return f"**missed** by {gap:.2f} ({gap / bound:.1%})"


def targets(out, rows, compiles, ozz):
    """Issue 12's targets (items 3, 4 and 5) computed from one run."""
    out.append("| target (issue 12) | channels / keys | measured | accuracy (bank / other) | verdict |")
    out.append("| --- | ---: | ---: | --- | --- |")
    for workload, method, bound, at_most, rule in [
        ("scalar", "hermite-soa-script", 0.9, True, "batch f32 / hermite-soa-script ≤ 0.9"),
        ("scalar", "inbetween-batch-fixed", 1.2, True, "batch fixed / batch f32 ≤ 1.2"),
        ("scalar", "streaming-ceiling", 0.6, False, "streaming-ceiling / batch f32 ≥ 0.6"),
        ("quaternion", "slerp-soa-script", 0.7, True, "batch f32 / slerp-soa-script ≤ 0.7, equal or better accuracy"),
        ("ozz", "ozz-animation-rs", 0.7, True, "batch f32 / ozz-animation-rs ≤ 0.7, equal or better accuracy"),
    ]:
        here = rows + ozz if workload == "ozz" else rows
        sizes = sorted({r["channels"] for r in here if r["workload"] == workload})
        if workload == "ozz" and not any(r["method"] == method for r in here):
            # ozz-animation-rs is timed only by tools/ozz-compare/run.sh, given to another table or not at all
            out.append(f"| {rule} | – | not in this run (`tools/ozz-compare/run.sh`) | – | – |")
            continue
        for n in sizes:
            bank, said_rule = "inbetween-batch-f32", rule
            if workload == "ozz" and find(ozz, OZZ_BANK, workload, n):
                bank = OZZ_BANK  # the in-process ratio of ozz-compare
                said_rule = rule + " (both timed by run.sh)"
            b, other = find(here, bank, workload, n), find(here, method, workload, n)
            if not b or not other:
                out.append(f"| {said_rule} | {n:,} | not measured | – | – |")
                continue
            bt, ot = b["ns_per_channel_frame"], other["ns_per_channel_frame"]
            v = ot / bt if method in ("inbetween-batch-fixed", "streaming-ceiling") else bt / ot
            acc = "–"
            if "accuracy" in rule:
                be, oe = b.get("max_error"), other.get("max_error")
                if be is not None and oe is not None:
                    acc = f"{be:.2g} / {oe:.2g}" + ("" if be <= oe else " (**worse**)")
            out.append(f"| {said_rule} | {n:,} | {v:.2f} | {acc} | {verdict(v, bound, at_most)} |")
    for workload, precision, rule, key, bound, at_most in [
        ("scalar", None, "compile ≥ 1 000 000 keys/s", "keys_per_s", 1e6, False),
        ("quaternion", None, "compile ≥ 200 000 keys/s", "keys_per_s", 2e5, False),
        ("scalar", "f32", "stream ≤ 24 B per key", "stream_bytes_per_key", 24.0, True),
    ]:
        for c in compiles:
            if c["workload"] != workload or (precision and c["precision"] != precision):
                continue
            v = c[key]
            if key == "keys_per_s":
                short = 100 * (1 - v / bound)
                said = "met" if v >= bound else f"**missed** by {short:.1f}%" if short >= 0.1 else f"**missed** by {short:.2g}%"
                shown = f"{v:,.0f}"
            else:
                said, shown = verdict(v, bound, at_most), f"{v:.1f}"
            out.append(f"| {rule}, {workload} {c['precision']} | {c['keys']:,} keys | {shown} | – | {said} |")
    out.append("")


def callgrind_table(out, path):
    """tools/callgrind-playback.sh's lines: method workload channels instructions."""
    counts = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 4:
                continue
            try:
                counts[(parts[0], parts[1], int(parts[2]))] = float(parts[3])
            except ValueError:
                continue
    cols = sorted({(w, n) for _, w, n in counts}, key=lambda c: (list(WORKLOADS).index(c[0]) if c[0] in WORKLOADS else 9, c[1]))
    out.append("| method |" + "".join(f" {w}, {n:,} ch |" for w, n in cols))
    out.append("| --- |" + " ---: |" * len(cols))
    for m in dict.fromkeys(m for m, _, _ in counts):
        out.append(f"| {m} |" + "".join(f" {fmt(counts.get((m, w, n)), 4)} |" for w, n in cols))
    out.append("")


def time_report(path):
    """Wall time and peak memory from `/usr/bin/time -v`'s report."""
    wall = peak = None
    with open(path) as f:
        for line in f:
            m = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", line)
            if m:
                wall = m.group(1)
            m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", line)
            if m:
                peak = int(m.group(1))  # KiB
    if wall is None and peak is None:
        return None
    shown = f"{peak / 2**20:.1f} GiB ({peak:,} KiB)" if peak else "?"
    return f"`/usr/bin/time -v`: wall time {wall or '?'}, peak resident memory {shown}"


def results(args):
    out = []
    full = load(args.full) if args.full else None
    quick = load(args.quick) if args.quick else None
    ozz = ozz_rows(args.ozz)
    main = full or quick
    out.append(f"Machine: {main['machine']}.")
    named = []
    if full:
        line = f"full run `{os.path.basename(args.full)}`"
        if args.time and time_report(args.time):
            line += f" ({time_report(args.time)})"
        named.append(line)
    if quick:
        named.append(f"quick run `{os.path.basename(args.quick)}`")
    if args.ozz:
        named.append("ozz-compare " + ", ".join(f"`{os.path.basename(p)}`" for p in args.ozz))
    out.append("From: " + "; ".join(named) + ".")
    out.append("")
    for workload in WORKLOADS:
        source, label = full, "full run"
        if not full or not any(r["workload"] == workload for r in full["results"]):
            source, label = quick, "quick run"
        mine = [r for r in (source["results"] if source else []) if r["workload"] == workload]
        if workload == "ozz":
            mine += [r for r in ozz if r["workload"] == "ozz"]
        if not mine:
            continue
        which = f", {label}" if full and quick else ""
        out.append(f"**{workload}** ({WORKLOADS[workload]}{which})")
        out.append("")
        workload_table(out, workload, mine)
    out.append("**Compile** (`Document::compile`: fitting and verification at every integer frame; stream bytes per key against raw f32 keys and the JSON document)")
    out.append("")
    both = bool(full and quick)
    compiles = []
    if full:
        compiles.append(("full" if both else None, full["compile"]))
    if quick:
        compiles.append(("quick" if both else None, quick["compile"]))
    compile_table(out, compiles)
    if args.callgrind:
        out.append("**Instructions per channel-frame** (`tools/callgrind-playback.sh`: callgrind, frames 400 − 100, one rayon thread, cached stream)")
        out.append("")
        callgrind_table(out, args.callgrind)
    for label, run, ozz_here in [("quick run", quick, ozz), ("full run", full, [] if quick else ozz)]:
        if run:
            out.append(f"**Targets, {label}** (issue 12 items 3–5; ratios inside this run)")
            out.append("")
            targets(out, run["results"], run["compile"], ozz_here)
    return out


def legacy(paths):
    """The old usage: one run, then the rows of further files (ozz-compare's: its bank row kept
    apart, as with --ozz)."""
    data = load(paths[0]) if paths else json.load(sys.stdin)
    rows, extra = data["results"], ozz_rows(paths[1:])
    out = [f"Machine: {data['machine']}", ""]
    for workload in WORKLOADS:
        mine = [r for r in rows + extra if r["workload"] == workload]
        if mine:
            out += [f"**{workload}** ({WORKLOADS[workload]})", ""]
            workload_table(out, workload, mine)
    compile_table(out, [(None, data["compile"])])
    targets(out, rows, data["compile"], extra)
    return out


def write_between_markers(path, lines):
    with open(path) as f:
        text = f.read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        sys.exit(f"{path}: no `{BEGIN}` … `{END}` markers")
    text = text[: start + len(BEGIN)] + "\n" + "\n".join(lines).rstrip("\n") + "\n" + text[end:]
    with open(path, "w") as f:
        f.write(text)


def main(argv):
    if not any(a.startswith("--") for a in argv):
        print("\n".join(legacy(argv)).rstrip("\n"))
        return
    p = argparse.ArgumentParser(description="Results tables of docs/benchmarks.md")
    p.add_argument("--full", help="`inbetween bench --json` output")
    p.add_argument("--quick", help="`inbetween bench --quick --json` output")
    p.add_argument("--ozz", action="append", default=[], help="`tools/ozz-compare/run.sh` output")
    p.add_argument("--callgrind", help="`tools/callgrind-playback.sh` output")
    p.add_argument("--time", help="`/usr/bin/time -v` report of the full run")
    p.add_argument("--write", help="replace the marked Results block of this file instead of printing")
    args = p.parse_args(argv)
    if not args.full and not args.quick:
        p.error("give --full or --quick (or the old positional usage)")
    lines = results(args)
    if args.write:
        write_between_markers(args.write, lines)
    else:
        print("\n".join(lines).rstrip("\n"))


if __name__ == "__main__":
    main(sys.argv[1:])
