#!/usr/bin/env python3
"""Tests of tools/bench-tables.py on small hand-made runs: `python3 tools/bench-tables-test.py`."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "bench-tables.py")
spec = importlib.util.spec_from_file_location("bench_tables", SCRIPT)
bt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bt)


def row(method, workload, channels, ns, err=1e-7):
    return {"method": method, "workload": workload, "channels": channels, "ns_per_channel_frame": ns, "max_error": err}


def comp(workload, precision, keys, rate, size=19.4):
    return {
        "workload": workload,
        "precision": precision,
        "keys": keys,
        "keys_per_s": rate,
        "stream_bytes_per_key": size,
        "raw_f32_bytes_per_key": 8.0,
        "json_bytes_per_key": 93.3,
    }


QUICK = {
    "machine": "test machine",
    "results": [
        row("inbetween-batch-f32", "scalar", 1000, 1.0),
        row("inbetween-batch-fixed", "scalar", 1000, 1.25),  # 1.25 > 1.2: missed by 0.05
        row("hermite-soa-script", "scalar", 1000, 1.25),  # 0.80 ≤ 0.9: met
        row("streaming-ceiling", "scalar", 1000, 0.5, None),  # 0.5 < 0.6: missed by 0.10
        row("inbetween-batch-f32", "quaternion", 1000, 2.0, 1.5e-7),
        row("slerp-soa-script", "quaternion", 1000, 2.5, 1.0e-7),  # 0.80: missed, and worse accuracy
        row("inbetween-batch-f32", "ozz", 6700, 6.0),
    ],
    "compile": [comp("scalar", "f32", 32000, 1.2e6), comp("quaternion", "f32", 32000, 1.5e5, 95.0)],
}
FULL = {
    "machine": "test machine",
    "results": QUICK["results"][:4]
    + [row("inbetween-batch-f32", "scalar", 1_000_000, 2.0), row("streaming-ceiling", "scalar", 1_000_000, 1.0, None)],
    "compile": [comp("scalar", "f32", 32_000_000, 9e5, 25.0)],
}
OZZ = {
    "results": [
        row("ozz-animation-rs", "ozz", 6700, 40.0, 3.6e-7),
        row("inbetween-batch-f32", "ozz", 6700, 8.0, 1.9e-7),  # 0.20 in ozz-compare's own process
    ]
}


class BenchTables(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.paths = {}
        for name, data in [("quick", QUICK), ("full", FULL), ("ozz", OZZ)]:
            self.paths[name] = os.path.join(self.dir.name, name + ".json")
            with open(self.paths[name], "w") as f:
                json.dump(data, f)

    def tearDown(self):
        self.dir.cleanup()

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], check=True, capture_output=True, text=True).stdout

    def line(self, text, *parts):
        found = [l for l in text.splitlines() if all(p in l for p in parts)]
        self.assertEqual(len(found), 1, (parts, found))
        return found[0]

    def test_verdict(self):
        self.assertEqual(bt.verdict(0.8, 0.9, True), "met")
        self.assertEqual(bt.verdict(1.25, 1.2, True), "**missed** by 0.05 (4.2%)")
        self.assertEqual(bt.verdict(0.5, 0.6, False), "**missed** by 0.10 (16.7%)")
        self.assertEqual(bt.verdict(0.6, 0.6, False), "met")

    def test_full_quick_ozz(self):
        out = self.run_script("--full", self.paths["full"], "--quick", self.paths["quick"], "--ozz", self.paths["ozz"])
        quick, full = out.split("**Targets, quick run**")[1].split("**Targets, full run**")
        self.assertIn("| 0.80 | – | met |", self.line(quick, "hermite-soa-script ≤ 0.9", "| 1,000 |"))
        self.assertIn("**missed** by 0.05", self.line(quick, "batch fixed", "| 1,000 |"))
        self.assertIn("**missed** by 0.10", self.line(quick, "streaming-ceiling", "| 1,000 |"))
        slerp = self.line(quick, "slerp-soa-script ≤ 0.7")
        self.assertIn("| 0.80 |", slerp)
        self.assertIn("(**worse**)", slerp)
        ozz = self.line(quick, "ozz-animation-rs ≤ 0.7", "| 6,700 |")
        self.assertIn("(both timed by run.sh) | 6,700 | 0.20 |", ozz)
        self.assertIn("| 150,000 | – | **missed** by 25.0% |", self.line(quick, "compile ≥ 200 000", "quaternion f32"))
        self.assertIn("met", self.line(quick, "compile ≥ 1 000 000", "scalar f32"))
        self.assertIn("| 0.50 | – | **missed** by 0.10", self.line(full, "streaming-ceiling", "| 1,000,000 |"))
        self.assertIn("not in this run", self.line(full, "ozz-animation-rs ≤ 0.7"))
        self.assertIn("**missed** by 10.0%", self.line(full, "compile ≥ 1 000 000", "32,000,000 keys"))
        self.assertIn("**missed** by 1.00", self.line(full, "stream ≤ 24 B", "32,000,000 keys"))
        # the scalar table comes from the full run (its 10^6 column), the quaternion one from the quick run
        scalar = out.split("**scalar**")[1].split("**quaternion**")[0]
        self.assertIn("1,000,000 ch: ns", self.line(scalar, "| method | what it plays | 1,000 ch: ns"))
        self.assertIn("quick run)", self.line(out, "**quaternion**"))
        self.assertIn("| full | scalar | f32 | 32,000,000 |", out)
        self.assertIn("| quick | quaternion | f32 | 32,000 |", out)

    def test_legacy_positional(self):
        out = self.run_script(self.paths["quick"], self.paths["ozz"])
        self.assertIn("Machine: test machine", out)
        # as with --ozz: ozz-compare's own bank (8.0 ns) against ozz-animation-rs's 40.0
        self.assertIn("| 6,700 | 0.20 |", self.line(out, "ozz-animation-rs ≤ 0.7"))
        self.assertIn("| 40 | 5 |", self.line(out, "| ozz-animation-rs |"))

    def test_write_between_markers_and_callgrind(self):
        cg = os.path.join(self.dir.name, "cg.txt")
        with open(cg, "w") as f:
            f.write("method workload channels instructions/ch-frame\n")
            f.write("inbetween-batch-f32          scalar          1000      1.7\n")
            f.write("slerp-soa-script             quaternion       300     15.7\n")
        doc = os.path.join(self.dir.name, "doc.md")
        with open(doc, "w") as f:
            f.write(f"before\n{bt.BEGIN}\nold tables\n{bt.END}\nafter\n")
        self.run_script("--quick", self.paths["quick"], "--callgrind", cg, "--write", doc)
        with open(doc) as f:
            text = f.read()
        self.assertTrue(text.startswith(f"before\n{bt.BEGIN}\nMachine: test machine."))
        self.assertTrue(text.endswith(f"{bt.END}\nafter\n"))
        self.assertNotIn("old tables", text)
        self.assertIn("| inbetween-batch-f32 | 1.7 | – |", text)


if __name__ == "__main__":
    unittest.main()
