"""Evaluates every object F-curve of the open .blend at the frames of a values file.

    blender -b FILE.blend --factory-startup --python-exit-code 1 \
        --python tests/blender/evaluate.py -- --frames case.values.json --out again.values.json

Used to check that a document imported back into Blender (import_inbetween.py) draws the curves
Blender drew before export.
"""

import argparse
import json
import sys

import bpy

argv = sys.argv[sys.argv.index("--") + 1 :]
p = argparse.ArgumentParser()
p.add_argument("--frames", required=True)
p.add_argument("--out", required=True)
opts = p.parse_args(argv)
with open(opts.frames) as f:
    grid = json.load(f)["tracks"]
tracks = {}
for obj in bpy.data.objects:
    anim = obj.animation_data
    if anim is None or anim.action is None:
        continue
    for fc in anim.action.fcurves:
        name = "%s/%s[%d]" % (obj.name, fc.data_path, fc.array_index)
        if name not in grid:
            continue
        g = grid[name]
        frames = [g["start"] + g["step"] * i for i in range(len(g["values"]))]
        tracks[name] = {"start": g["start"], "step": g["step"],
                        "values": [float("%.9g" % fc.evaluate(f)) for f in frames]}
with open(opts.out, "w") as f:
    json.dump({"blender": bpy.app.version_string, "tracks": tracks}, f, separators=(",", ":"))
