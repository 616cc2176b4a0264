#!/usr/bin/env python3
"""Markdown tables for docs/benchmarks.md from one `inbetween bench --json` run.

    inbetween bench --quick --json > bench.json
    tools/ozz-compare/run.sh > ozz.json          # optional: the ozz-animation-rs rows
    python3 tools/bench-tables.py bench.json [ozz.json]

Prints, per workload, one table (method, what it plays, ns per channel-frame and the ratio to
inbetween-batch-f32 at each channel count, largest error against exact evaluation), then the
compile table and issue 12's targets computed from the same run. Rows of further files (the
ozz-compare output) are added where the first file has no row of that method, workload and size.
"""
import json
import sys

WHAT = {
    "inbetween-batch-f32": "`Bank` over an f32 stream: f32 Horner lanes about 16-frame epochs (checked in `Bank::new`), SoA, reload script",
    "inbetween-batch-f64": "`Bank` over an f64 stream (Horner lanes, f32 or f64 as the check allows)",
    "inbetween-batch-fixed": "`Bank` over a fixed-point stream: i32 Horner lanes (integer coefficients in units 2^-E about 16-frame epochs, checked in `Bank::new`), SoA, reload script",
    "inbetween-batch-f32-degree4": "`Bank`, f32 stream compiled with `max_degree: 4`",
    "inbetween-batch-f32-raw": "`Bank`, f32 stream compiled with `normalize: false` (quaternion components fitted raw, not normalized on output)",
    "inbetween-batch-f32-parallel": "`Bank::advance_parallel` (feature rayon)",
    "inbetween-player-f32": "one `TrackPlayer` per track",
    "inbetween-exact": "`Track::eval_segment` in f64 with a segment cursor",
    "hermite-soa-script": "hand-written: per lane 4 f32 coefficients + start frame (SoA), Horner, same reload script, AVX2 at run time; the same cubics",
    "slerp-soa-script": "hand-written: Shoemake slerp in f32, angle and 1/sin cached per lane (SoA), same reload script, AVX2 at run time; the same slerp",
    "ozz-animation-rs": "ozz-animation-rs 0.11 `SamplingJob`, one context per character",
    "streaming-ceiling": "reads 16 B (four f32) and writes one f32 per value (Horner, one `t` per frame, AVX2 at run time); plays no curve (not checked)",
}

WORKLOADS = {
    "scalar": "channel = one scalar track; 32 keys (catmull_rom, tcb, bezier, linear), frames 64..",
    "quaternion": "channel = one rotation (4 values); 32 slerp keys 10°..120° apart, frames 64..",
    "ozz": "channel = one joint (translation, rotation, scale: 10 values); N characters playing ozz's playback clip (67 joints) at 60 fps, frames 64..",
}


def fmt(x, digits=3):
    if x is None:
        return "–"
    return f"{x:.{digits}g}"


def main():
    data = json.load(open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin)
    rows = data["results"]
    for extra in sys.argv[2:]:
        have = {(r["method"], r["workload"], r["channels"]) for r in rows}
        rows += [
            r
            for r in json.load(open(extra))["results"]
            if (r["method"], r["workload"], r["channels"]) not in have
        ]
    print(f"Machine: {data['machine']}\n")
    for workload in ["scalar", "quaternion", "ozz"]:
        mine = [r for r in rows if r["workload"] == workload]
        if not mine:
            continue
        sizes = sorted({r["channels"] for r in mine})
        batch = {
            r["channels"]: r["ns_per_channel_frame"]
            for r in mine
            if r["method"] == "inbetween-batch-f32"
        }
        print(f"**{workload}** ({WORKLOADS[workload]})\n")
        head = "| method | what it plays |"
        rule = "| --- | --- |"
        for n in sizes:
            head += f" {n:,} ch: ns | × batch f32 |"
            rule += " ---: | ---: |"
        head += " max error |"
        rule += " ---: |"
        print(head)
        print(rule)
        methods = list(dict.fromkeys(r["method"] for r in mine))
        for m in methods:
            line = f"| {m} | {WHAT.get(m, '')} |"
            err = None
            for n in sizes:
                r = next((r for r in mine if r["method"] == m and r["channels"] == n), None)
                ns = r and r["ns_per_channel_frame"]
                if r and r.get("max_error") is not None:
                    err = max(err or 0.0, r["max_error"])
                ratio = ns / batch[n] if ns and batch.get(n) else None
                line += f" {fmt(ns)} | {fmt(ratio)} |"
            line += f" {fmt(err, 2)} |"
            print(line)
        print()
    print("| workload | precision | keys | keys / s | stream B / key | raw f32 B / key | JSON B / key |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for c in data["compile"]:
        print(
            f"| {c['workload']} | {c['precision']} | {c['keys']:,} | {fmt(c['keys_per_s'])} |"
            f" {fmt(c['stream_bytes_per_key'])} | {fmt(c['raw_f32_bytes_per_key'])} |"
            f" {fmt(c['json_bytes_per_key'])} |"
        )
    print()
    targets(rows)


def targets(rows):
    def ns(method, workload, n):
        r = next(
            (r for r in rows if r["method"] == method and r["workload"] == workload and r["channels"] == n),
            None,
        )
        return r and r["ns_per_channel_frame"]

    print("| target (issue 12) | channels | measured | met |")
    print("| --- | ---: | ---: | --- |")
    for workload, method, bound, rule in [
        ("scalar", "hermite-soa-script", 0.9, "batch f32 ≤ 0.9 × hermite-soa-script"),
        ("scalar", "inbetween-batch-fixed", None, "batch fixed ≤ 1.2 × batch f32"),
        ("scalar", "streaming-ceiling", None, "streaming-ceiling / batch f32 ≥ 0.6"),
        ("quaternion", "slerp-soa-script", 0.7, "batch f32 ≤ 0.7 × slerp-soa-script"),
        ("ozz", "ozz-animation-rs", 0.7, "batch f32 ≤ 0.7 × ozz-animation-rs"),
    ]:
        for n in sorted({r["channels"] for r in rows if r["workload"] == workload}):
            b, other = ns("inbetween-batch-f32", workload, n), ns(method, workload, n)
            if not b or not other:
                print(f"| {rule} | {n:,} | not measured | – |")
                continue
            if method == "inbetween-batch-fixed":
                v, ok = other / b, other / b <= 1.2
            elif method == "streaming-ceiling":
                v, ok = other / b, other / b >= 0.6
            else:
                v, ok = b / other, b / other <= bound
            print(f"| {rule} | {n:,} | {v:.2f} | {'yes' if ok else '**no**'} |")


if __name__ == "__main__":
    main()
