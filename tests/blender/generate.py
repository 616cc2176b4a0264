"""Generates random F-curves in Blender, saves them as a .blend and writes Blender's own values.

    blender -b --factory-startup --python-exit-code 1 --python tests/blender/generate.py -- \
        --seed 1 --fps 24 --fps-base 1 --out DIR/case

writes DIR/case.blend and DIR/case.values.json ({"tracks": {name: {"start", "step", "values"}}})
with fcurve.evaluate at every quarter frame from 2.5 cycles before the first key to 2.5 cycles
after the last. Every handle type on each side, handles reaching past their neighbour, every
interpolation and easing with random back/amplitude/period, both extrapolations and Cycles
modifiers with every mode and count appear. Used by crates/inbetween/tests/blender_fcurves.rs.
"""

import argparse
import json
import os
import random
import sys

import bpy

HANDLES = ["FREE", "ALIGNED", "VECTOR", "AUTO", "AUTO_CLAMPED"]
INTERPS = ["CONSTANT", "LINEAR", "BEZIER", "SINE", "QUAD", "CUBIC", "QUART", "QUINT", "EXPO",
           "CIRC", "BACK", "BOUNCE", "ELASTIC"]
EASINGS = ["AUTO", "EASE_IN", "EASE_OUT", "EASE_IN_OUT"]
CYCLES = ["NONE", "REPEAT", "REPEAT_OFFSET", "MIRROR"]
PATHS = [("location", 3), ("rotation_euler", 3), ("scale", 3), ('["speed"]', 1)]


def random_keys(rng, fcurve, bezier_weight):
    n = rng.randint(1, 7) if rng.random() < 0.1 else rng.randint(2, 7)
    frame = rng.uniform(-20, 20)
    if rng.random() < 0.5:
        frame = round(frame)
    fcurve.keyframe_points.add(n)
    for kp in fcurve.keyframe_points:
        kp.co = (frame, rng.uniform(-10, 10) * rng.choice([0.1, 1, 1, 10]))
        step = rng.uniform(0.5, 12)
        frame += round(step) if rng.random() < 0.5 else step
        if rng.random() < bezier_weight:
            kp.interpolation = "BEZIER"
        else:
            kp.interpolation = rng.choice(INTERPS)
        kp.easing = rng.choice(EASINGS)
        kp.back = rng.uniform(0, 4)
        kp.amplitude = rng.choice([0.0, rng.uniform(0, 3), rng.uniform(0, 30)])
        kp.period = rng.choice([0.0, rng.uniform(0.5, 8)])
        kp.handle_left_type = rng.choice(HANDLES)
        kp.handle_right_type = rng.choice(HANDLES)
    fcurve.update()
    # Free and aligned handles anywhere, some reaching past the neighbouring key.
    for kp in fcurve.keyframe_points:
        x, y = kp.co
        reach = rng.choice([0.3, 1, 3, 15])
        if kp.handle_left_type in ("FREE", "ALIGNED"):
            kp.handle_left = (x - rng.uniform(0, reach), y + rng.uniform(-reach, reach))
        if kp.handle_right_type in ("FREE", "ALIGNED"):
            kp.handle_right = (x + rng.uniform(0, reach), y + rng.uniform(-reach, reach))
    fcurve.update()


def random_fcurve(rng, action, path, index):
    fcurve = action.fcurves.new(path, index=index)
    # Blender 3.4 makes new F-curves "continuous acceleration"; two fifths keep it (exported
    # as `auto_smoothing: cont_accel`), the rest get none.
    if rng.random() < 0.6:
        fcurve.auto_smoothing = "NONE"
    random_keys(rng, fcurve, rng.choice([0.3, 0.7, 1.0]))
    fcurve.extrapolation = rng.choice(["CONSTANT", "LINEAR"])
    if rng.random() < 0.6:
        mod = fcurve.modifiers.new("CYCLES")
        mod.mode_before = rng.choice(CYCLES)
        mod.mode_after = rng.choice(CYCLES)
        mod.cycles_before = rng.choice([0, 0, 1, 2])
        mod.cycles_after = rng.choice([0, 0, 1, 3])
    fcurve.update()
    return fcurve


def values(fcurve, step=0.25):
    keys = fcurve.keyframe_points
    first, last = keys[0].co[0], keys[-1].co[0]
    span = max(last - first, 4.0)
    start = (int((first - 2.5 * span) / step) - 1) * step
    end = last + 2.5 * span
    out = []
    f = start
    while f <= end:
        out.append(float("%.9g" % fcurve.evaluate(f)))
        f += step
    return {"start": start, "step": step, "values": out}


def main():
    argv = sys.argv[sys.argv.index("--") + 1 :]
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--fps", type=int, default=24)
    p.add_argument("--fps-base", type=float, default=1.0)
    p.add_argument("--objects", type=int, default=4)
    p.add_argument("--out", required=True)
    opts = p.parse_args(argv)
    opts.out = os.path.abspath(opts.out)
    rng = random.Random(opts.seed)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = opts.fps
    scene.render.fps_base = opts.fps_base
    tracks = {}
    for o in range(opts.objects):
        obj = bpy.data.objects.new("Obj%d" % o, None)
        scene.collection.objects.link(obj)
        obj["speed"] = 0.0
        action = bpy.data.actions.new("Act%d" % o)
        obj.animation_data_create().action = action
        for path, size in PATHS:
            for index in range(size):
                if rng.random() < 0.75:
                    fc = random_fcurve(rng, action, path, index)
                    tracks["%s/%s[%d]" % (obj.name, path, index)] = values(fc)
    bpy.context.preferences.filepaths.save_version = 0
    bpy.ops.wm.save_as_mainfile(filepath=opts.out + ".blend", compress=True)
    with open(opts.out + ".values.json", "w") as f:
        json.dump({"blender": bpy.app.version_string, "tracks": tracks}, f, separators=(",", ":"))
        f.write("\n")


main()
