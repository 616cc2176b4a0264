"""Export every object's F-curves to an inbetween animation document (scalar F-curve tracks).

Run from the command line:

    blender -b FILE.blend --factory-startup --python-exit-code 1 \
        --python integrations/blender/export_inbetween.py -- -o OUT.json

or install this file as an add-on (Edit > Preferences > Add-ons > Install) for
File > Export > inbetween animation (.json). Tracks are named {object}/{data_path}[{array_index}];
frames are Blender's frame numbers and fps is the scene's fps / fps_base. F-curve data the
format cannot carry (modifiers other than one Cycles modifier, restricted ranges, influence,
drivers) is listed on stderr and the F-curve is skipped, never changed. Auto handle smoothing
("Continuous Acceleration") is carried as `auto_smoothing: cont_accel` with the handle types;
with --freeze-smoothed such F-curves are written instead with all their handles as free handles
at Blender's positions (the same curve, without the smoothing; each one is listed on stderr).
See docs/blender.md.
"""

bl_info = {
    "name": "inbetween animation export",
    "blender": (3, 4, 0),
    "category": "Import-Export",
    "location": "File > Export > inbetween animation (.json)",
    "description": "Writes object F-curves as an inbetween animation document",
}

import json
import os
import sys
import tempfile

import bpy

HANDLE_TYPES = {
    "FREE": "free",
    "ALIGNED": "aligned",
    "VECTOR": "vector",
    "AUTO": "auto",
    "AUTO_CLAMPED": "auto_clamped",
}
EASINGS = {"SINE", "QUAD", "CUBIC", "QUART", "QUINT", "EXPO", "CIRC", "BACK", "BOUNCE", "ELASTIC"}
EASING_MODES = {"AUTO": "auto", "EASE_IN": "in", "EASE_OUT": "out", "EASE_IN_OUT": "in_out"}
CYCLE_MODES = {"NONE": "none", "REPEAT": "repeat", "REPEAT_OFFSET": "repeat_offset", "MIRROR": "mirror"}
SMOOTHING = {"CONT_ACCEL": "cont_accel"}


def track_name(obj, fcurve):
    return "%s/%s[%d]" % (obj.name, fcurve.data_path, fcurve.array_index)


def key_interp(kp):
    if kp.interpolation == "CONSTANT":
        return "step"
    if kp.interpolation == "LINEAR":
        return "linear"
    if kp.interpolation == "BEZIER":
        return "bezier_2d"
    return {
        "easing": kp.interpolation.lower(),
        "mode": EASING_MODES[kp.easing],
        "back": kp.back,
        "amplitude": kp.amplitude,
        "period": kp.period,
    }


def key_json(kp, freeze):
    """One key; `freeze`: every handle written as a free one where Blender placed it (smoothing
    moves vector and aligned handles too)."""
    types = ["FREE", "FREE"] if freeze else [kp.handle_left_type, kp.handle_right_type]
    return {
        "frame": kp.co[0],
        "value": kp.co[1],
        "interp": key_interp(kp),
        "left": [kp.handle_left[0], kp.handle_left[1]],
        "right": [kp.handle_right[0], kp.handle_right[1]],
        "handles": [HANDLE_TYPES[t] for t in types],
    }


def cycles_json(fcurve, name, problems):
    """The Cycles modifier as the document's `cycles`, None without one; problems listed."""
    active = [m for m in fcurve.modifiers if not m.mute]
    if not active:
        return None, True
    if len(active) > 1 or active[0].type != "CYCLES" or active[0] != fcurve.modifiers[0]:
        kinds = ", ".join(m.type for m in active)
        problems.append("skipped %s: modifiers %s (only one Cycles modifier, first, is carried)" % (name, kinds))
        return None, False
    m = active[0]
    if m.use_restricted_range or m.use_influence:
        problems.append("skipped %s: Cycles modifier with a restricted frame range or influence" % name)
        return None, False
    return {
        "before": CYCLE_MODES[m.mode_before],
        "after": CYCLE_MODES[m.mode_after],
        "before_count": m.cycles_before,
        "after_count": m.cycles_after,
    }, True


def fcurve_track(obj, fcurve, problems, freeze_smoothed):
    name = track_name(obj, fcurve)
    if fcurve.mute:
        problems.append("skipped %s: muted F-curve" % name)
        return None
    if len(fcurve.keyframe_points) == 0:
        problems.append("skipped %s: no keys (modifier-only F-curve)" % name)
        return None
    smoothed = fcurve.auto_smoothing != "NONE"
    freeze = smoothed and freeze_smoothed
    cycles, ok = cycles_json(fcurve, name, problems)
    if not ok:
        return None
    if freeze:
        problems.append("froze %s: auto smoothing %s, handles written as free" % (name, fcurve.auto_smoothing))
    spec = {"extrapolation": fcurve.extrapolation.lower()}
    if smoothed and not freeze:
        spec["auto_smoothing"] = SMOOTHING[fcurve.auto_smoothing]
    if cycles is not None:
        spec["cycles"] = cycles
    return {
        "name": name,
        "type": "scalar",
        "fcurve": spec,
        "keys": [key_json(kp, freeze) for kp in fcurve.keyframe_points],
    }


def document(scene, freeze_smoothed=False):
    """The document dict and the list of things not exported (or exported frozen)."""
    tracks, problems = [], []
    for obj in sorted(bpy.data.objects, key=lambda o: o.name):
        anim = obj.animation_data
        if anim is None:
            continue
        for driver in anim.drivers:
            problems.append("skipped %s: driver" % track_name(obj, driver))
        if anim.action is None:
            continue
        for fcurve in anim.action.fcurves:
            track = fcurve_track(obj, fcurve, problems, freeze_smoothed)
            if track is not None:
                tracks.append(track)
    doc = {"inbetween": 1, "fps": scene.render.fps / scene.render.fps_base, "tracks": tracks}
    return doc, problems


def write(path, scene, freeze_smoothed=False):
    """Writes the document atomically; returns (tracks written, problems)."""
    doc, problems = document(scene, freeze_smoothed)
    for p in problems:
        print("inbetween export: %s" % p, file=sys.stderr)
    if not doc["tracks"]:
        # A document needs one or more tracks; nothing is written.
        return 0, problems
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return len(doc["tracks"]), problems


class ExportInbetween(bpy.types.Operator):
    """Export object F-curves to an inbetween animation document"""

    bl_idname = "export_anim.inbetween"
    bl_label = "Export inbetween"
    filepath: bpy.props.StringProperty(subtype="FILE_PATH")
    freeze_smoothed: bpy.props.BoolProperty(
        name="Freeze smoothed handles",
        description="Write continuous-acceleration F-curves with their handles as free ones",
        default=False,
    )
    filename_ext = ".json"

    def execute(self, context):
        count, problems = write(self.filepath, context.scene, self.freeze_smoothed)
        if count == 0:
            self.report({"ERROR"}, "no F-curves to export; nothing written (see console)")
            return {"CANCELLED"}
        level = {"WARNING"} if problems else {"INFO"}
        self.report(level, "%d tracks written, %d notes (see console)" % (count, len(problems)))
        return {"FINISHED"}

    def invoke(self, context, event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}


def menu_func(self, context):
    self.layout.operator(ExportInbetween.bl_idname, text="inbetween animation (.json)")


def register():
    bpy.utils.register_class(ExportInbetween)
    bpy.types.TOPBAR_MT_file_export.append(menu_func)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(menu_func)
    bpy.utils.unregister_class(ExportInbetween)


def main(argv):
    import argparse

    args = argv[argv.index("--") + 1 :] if "--" in argv else []
    parser = argparse.ArgumentParser(prog="export_inbetween.py")
    parser.add_argument("-o", "--output", required=True, help="the document to write")
    parser.add_argument(
        "--freeze-smoothed",
        action="store_true",
        help="write continuous-acceleration F-curves with their handles as free ones",
    )
    opts = parser.parse_args(args)
    count, problems = write(opts.output, bpy.context.scene, opts.freeze_smoothed)
    if count == 0:
        print("inbetween export: no F-curves to export; %s not written" % opts.output, file=sys.stderr)
        sys.exit(1)
    print("inbetween export: %d tracks written to %s, %d notes" % (count, opts.output, len(problems)))


if __name__ == "__main__":
    main(sys.argv)
