"""Import an inbetween document's F-curve tracks into Blender as object F-curves.

    blender -b --factory-startup --python-exit-code 1 \
        --python integrations/blender/import_inbetween.py -- -i anim.json -o anim.blend

Each scalar track with an `fcurve` object named {object}/{data_path}[{array_index}] becomes that
F-curve of that object (an Empty is created when the object does not exist; a custom property
`["name"]` is created as 0.0). Keys, handles and their types, interpolation and easing with its
parameters, extrapolation and the Cycles modifier are set as the document gives them, with auto
smoothing None; Blender then places the automatic handles itself. Other tracks are listed on
stderr and skipped. The inverse of export_inbetween.py (see docs/blender.md).
"""

import argparse
import json
import re
import sys

import bpy

HANDLE_TYPES = {"free": "FREE", "aligned": "ALIGNED", "vector": "VECTOR", "auto": "AUTO",
                "auto_clamped": "AUTO_CLAMPED"}
EASING_MODES = {"auto": "AUTO", "in": "EASE_IN", "out": "EASE_OUT", "in_out": "EASE_IN_OUT"}
CYCLE_MODES = {"none": "NONE", "repeat": "REPEAT", "repeat_offset": "REPEAT_OFFSET",
               "mirror": "MIRROR"}
NAME = re.compile(r"^(.+?)/(.+)\[(\d+)\]$")


def target(name):
    """The object, data path and index a track name stands for, creating what is missing."""
    match = NAME.match(name)
    if match is None:
        return None
    obj_name, path, index = match.group(1), match.group(2), int(match.group(3))
    obj = bpy.data.objects.get(obj_name)
    if obj is None:
        obj = bpy.data.objects.new(obj_name, None)
        bpy.context.scene.collection.objects.link(obj)
    prop = re.match(r'^\["(.+)"\]$', path)
    if prop and prop.group(1) not in obj.keys():
        obj[prop.group(1)] = 0.0
    if obj.animation_data is None:
        obj.animation_data_create()
    if obj.animation_data.action is None:
        obj.animation_data.action = bpy.data.actions.new(obj_name + "Action")
    return obj.animation_data.action, path, index


def set_key(kp, key):
    kp.co = (key["frame"], key["value"])
    interp = key.get("interp", "bezier_2d")
    if isinstance(interp, dict):
        kp.interpolation = interp["easing"].upper()
        kp.easing = EASING_MODES[interp.get("mode", "auto")]
        kp.back = interp.get("back", 1.70158)
        kp.amplitude = interp.get("amplitude", 0.8)
        kp.period = interp.get("period", 4.1)
    else:
        kp.interpolation = {"step": "CONSTANT", "linear": "LINEAR", "bezier_2d": "BEZIER"}[interp]
    types = key.get("handles", "auto_clamped")
    left, right = (types, types) if isinstance(types, str) else types
    kp.handle_left_type = HANDLE_TYPES[left]
    kp.handle_right_type = HANDLE_TYPES[right]
    kp.handle_left = key.get("left", [key["frame"], key["value"]])
    kp.handle_right = key.get("right", [key["frame"], key["value"]])


def add_track(track, problems):
    spec = track.get("fcurve")
    if track.get("type") != "scalar" or not isinstance(spec, dict):
        problems.append("skipped %s: not an F-curve track" % track.get("name"))
        return
    place = target(track["name"])
    if place is None:
        problems.append("skipped %s: not named {object}/{data_path}[{index}]" % track["name"])
        return
    action, path, index = place
    old = action.fcurves.find(path, index=index)
    if old is not None:
        action.fcurves.remove(old)
    fcurve = action.fcurves.new(path, index=index)
    smoothing = spec.get("auto_smoothing", "none")
    fcurve.auto_smoothing = "CONT_ACCEL" if smoothing == "cont_accel" else "NONE"
    extrapolation = spec.get("extrapolation", "constant")
    if isinstance(extrapolation, list):
        if extrapolation[0] != extrapolation[1]:
            problems.append("%s: extrapolation %s before and %s after; Blender has one, %s used"
                            % (track["name"], extrapolation[0], extrapolation[1], extrapolation[1]))
        extrapolation = extrapolation[1]
    fcurve.extrapolation = extrapolation.upper()
    fcurve.keyframe_points.add(len(track["keys"]))
    for kp, key in zip(fcurve.keyframe_points, track["keys"]):
        set_key(kp, key)
    cycles = spec.get("cycles")
    if cycles:
        mod = fcurve.modifiers.new("CYCLES")
        mod.mode_before = CYCLE_MODES[cycles.get("before", "none")]
        mod.mode_after = CYCLE_MODES[cycles.get("after", "none")]
        mod.cycles_before = cycles.get("before_count", 0)
        mod.cycles_after = cycles.get("after_count", 0)
    fcurve.update()


def main(argv):
    args = argv[argv.index("--") + 1 :] if "--" in argv else []
    parser = argparse.ArgumentParser(prog="import_inbetween.py")
    parser.add_argument("-i", "--input", required=True, help="the document to read")
    parser.add_argument("-o", "--output", help="save the .blend here")
    opts = parser.parse_args(args)
    with open(opts.input) as f:
        doc = json.load(f)
    scene = bpy.context.scene
    fps = float(doc.get("fps", 60))
    scene.render.fps = max(1, round(fps))
    scene.render.fps_base = scene.render.fps / fps
    problems = []
    for track in doc["tracks"]:
        add_track(track, problems)
    for p in problems:
        print("inbetween import: %s" % p, file=sys.stderr)
    if opts.output:
        bpy.context.preferences.filepaths.save_version = 0
        bpy.ops.wm.save_as_mainfile(filepath=opts.output, compress=True)


if __name__ == "__main__":
    main(sys.argv)
