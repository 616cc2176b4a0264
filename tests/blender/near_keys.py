"""Evaluates every object F-curve of the open .blend next to each of its keys (Blender's key search
snaps frames within 1e-4 of a key to the key's value).

    blender -b tests/blender/case5.blend --factory-startup --python-exit-code 1 \\
        --python tests/blender/near_keys.py -- --out tests/blender/near_keys/case5.json

Writes, per F-curve named `{object}/{data_path}[{array_index}]`, [frame, value] pairs at each key's
frame plus every offset in OFFSETS (frames as Blender evaluates them: rounded to float32), kept
inside the keys' range. Used by crates/inbetween/tests/blender_fcurves.rs
(`fractional_frames_next_to_keys_match_blender`).
"""

import argparse
import json
import struct
import sys

import bpy

# Frames from a key: both sides of Blender's 1e-4 key tolerance, far enough from it (20 %) that
# float32 rounding of the frame cannot cross it below frame 256.
OFFSETS = [-1e-3, -3e-4, -1.2e-4, -8e-5, -5e-5, -1e-5, 1e-5, 5e-5, 8e-5, 1.2e-4, 3e-4, 1e-3]


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


argv = sys.argv[sys.argv.index("--") + 1 :]
p = argparse.ArgumentParser()
p.add_argument("--out", required=True)
opts = p.parse_args(argv)
tracks = {}
for obj in bpy.data.objects:
    anim = obj.animation_data
    if anim is None or anim.action is None:
        continue
    for fc in anim.action.fcurves:
        keys = [k.co[0] for k in fc.keyframe_points]
        if len(keys) < 2:
            continue
        lo, hi = min(keys), max(keys)
        pairs = []
        for key in keys:
            for offset in OFFSETS:
                frame = f32(key + offset)
                if lo < frame < hi and abs(frame) < 256:
                    pairs.append([frame, float("%.9g" % fc.evaluate(frame))])
        name = "%s/%s[%d]" % (obj.name, fc.data_path, fc.array_index)
        tracks[name] = pairs
with open(opts.out, "w") as f:
    json.dump({"blender": bpy.app.version_string, "offsets": OFFSETS, "tracks": tracks}, f,
              separators=(",", ":"))
