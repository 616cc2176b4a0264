#!/usr/bin/env python3
"""Writes the Lottie fixtures of this folder: every feature the importer handles (docs/lottie.md).

    python3 tests/lottie/generate.py

transforms.json: layer transforms (anchor, spatial position with to/ti, a collinear segment
lottie-web straightens, a hold, scale with per-dimension eases split into scale.x/.y/.z,
rotation with a hold and an overshooting ease, opacity, skew, skew axis), separated position,
a 3-D layer (rotation.x/.y, rotation from rz, 3-D spatial position, orientation with a hold), two layers of one name, an
unnamed layer, a layer visible only in part of the range, a layer with a start offset and
time stretch (which lottie-web ignores for the layer's own keys), old-format keyframes (`e`,
a last keyframe with only `t`), and shape items (group transform,
rectangle, ellipse with a spatial position, fills of one name and an unnamed one, stroke, trim
paths) plus things listed as skipped (an animated path, an expression).

precomps.json: a root composition starting at ip 4; a precomposition used twice (start offset
and time stretch 2; time remap with an eased tm), one nested inside it (start offset), and one
stretched by 0.5.

differences/differences.json: the two documented differences from lottie-web (not in the
agreement test; a test of its own checks that lottie-web still behaves so).
"""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def ease(ox, oy, ix, iy):
    return {"o": {"x": ox, "y": oy}, "i": {"x": ix, "y": iy}}


def key(t, s, **extra):
    k = {"t": t, "s": s if isinstance(s, list) else [s]}
    k.update(extra)
    return k


def anim(*keys):
    return {"a": 1, "k": list(keys)}


def static(v):
    return {"a": 0, "k": v}


SMOOTH = ease([0.333], [0], [0.667], [1])
LINEAR = ease([0.5], [0.5], [0.5], [0.5])


def transform(**props):
    base = {"a": static([0, 0, 0]), "p": static([0, 0, 0]), "s": static([100, 100, 100]),
            "r": static(0), "o": static(100)}
    base.update(props)
    return base


def layer(ind, nm, ks, ty=4, ip=0, op=90, **extra):
    out = {"ddd": 0, "ind": ind, "ty": ty, "ks": ks, "ip": ip, "op": op, "st": 0, "sr": 1}
    if nm is not None:
        out["nm"] = nm
    if ty == 4:
        out.setdefault("shapes", [])
    out.update(extra)
    return out


def transforms():
    box_ks = transform(
        a=anim(key(0, [0, 0], **ease([0.25, 0.25], [0.1, 0.1], [0.25, 0.25], [1, 1])), key(40, [10, 20])),
        p=anim(
            key(0, [20, 30], to=[40, -10], ti=[-30, -20], **ease(0.4, 0, 0.2, 1)),
            key(30, [150, 60], to=[10, 10], ti=[-10, -10], **ease(0.3, 0.1, 0.7, 0.9)),
            key(60, [180, 90], to=[0, 0], ti=[0, 0], h=1),
            key(80, [40, 170]),
        ),
        s=anim(
            key(0, [100, 100, 100], **ease([0.2, 0.7], [0, 0.3], [0.8, 0.4], [1, 1])),
            key(45, [150, 60, 100], **ease([0.333], [0], [0.667], [1])),
            key(90, [80, 120, 100]),
        ),
        r=anim(
            key(0, 0, **SMOOTH),
            key(20, 90, h=1),
            key(50, -45, **ease([0.3], [0], [0.5], [1.6])),
            key(70, 30),
        ),
        o=anim(key(10, 100, **LINEAR), key(80, 0)),
        sk=anim(key(0, 0, **SMOOTH), key(60, 30)),
        sa=anim(key(0, 0, **SMOOTH), key(60, 90)),
    )
    shapes = [{
        "ty": "gr", "nm": "Shapes", "it": [
            {"ty": "rc", "nm": "Rect", "d": 1,
             "s": anim(key(0, [40, 20], **SMOOTH), key(60, [80, 50])),
             "p": anim(key(0, [0, 0], **SMOOTH), key(60, [10, -10])),
             "r": anim(key(0, 0, **SMOOTH), key(60, 12))},
            {"ty": "el", "nm": "Ellipse", "d": 1,
             "s": static([30, 30]),
             "p": anim(key(0, [0, 0], to=[10, 20], ti=[-5, 15], **ease(0.2, 0, 0.8, 1)), key(50, [40, 0]))},
            {"ty": "sh", "nm": "Path",
             "ks": anim(key(0, [{"i": [[0, 0]], "o": [[0, 0]], "v": [[0, 0]], "c": False}], **SMOOTH),
                        key(30, [{"i": [[0, 0]], "o": [[0, 0]], "v": [[5, 5]], "c": False}]))},
            {"ty": "fl", "nm": "Paint",
             "c": anim(key(0, [1, 0, 0, 1], **SMOOTH), key(90, [0, 0.5, 1, 1])), "o": static(100), "r": 1},
            {"ty": "fl", "nm": "Paint", "c": static([0, 0, 0, 1]),
             "o": anim(key(0, 100, **SMOOTH), key(45, 20)), "r": 1},
            {"ty": "fl", "c": static([0, 1, 0, 1]),
             "o": {"a": 1, "k": [key(0, 50, **SMOOTH), key(45, 20)], "x": "var $bm_rt = time * 10;"}, "r": 1},
            {"ty": "fl", "c": anim(key(5, [0.2, 0.2, 0.2, 1], **LINEAR), key(75, [0.9, 0.8, 0.1, 1])),
             "o": static(100), "r": 1},
            {"ty": "st", "nm": "Outline", "lc": 2, "lj": 2, "ml": 4,
             "c": anim(key(0, [0, 0, 0, 1], **SMOOTH), key(60, [1, 1, 1, 1])),
             "o": anim(key(0, 100, **SMOOTH), key(60, 50)),
             "w": anim(key(0, 1, **SMOOTH), key(30, 8, h=1), key(60, 3))},
            {"ty": "tm", "nm": "Trim", "m": 1,
             "s": anim(key(0, 0, **SMOOTH), key(60, 40)),
             "e": anim(key(0, 100, **SMOOTH), key(60, 70)),
             "o": anim(key(0, 0, **SMOOTH), key(90, 180))},
            {"ty": "tr", "a": static([0, 0]),
             "p": anim(key(0, [50, 50], **SMOOTH), key(90, [60, 40])),
             "s": anim(key(0, [100, 100], **SMOOTH), key(90, [50, 50])),
             "r": anim(key(0, 0, **SMOOTH), key(90, 45)),
             "o": anim(key(0, 100, **SMOOTH), key(90, 60)),
             "sk": static(0), "sa": static(0)},
        ]}]
    layers = [
        layer(1, "Box", box_ks, shapes=shapes),
        layer(2, "Twin", transform(o=anim(key(0, 100, **SMOOTH), key(90, 0)))),
        layer(3, "Twin", transform(o=anim(key(0, 0, **SMOOTH), key(90, 100)))),
        layer(4, None, transform(r=anim(key(0, 0, **SMOOTH), key(90, 360))), ty=3),
        layer(5, "Split", transform(p={"s": True,
                                       "x": anim(key(0, 10, **SMOOTH), key(60, 190)),
                                       "y": anim(key(20, 100, **ease([0.1], [0.9], [0.3], [1])), key(80, 20))})),
        layer(6, "Cube", {
            "a": static([0, 0, 0]), "s": static([100, 100, 100]), "o": static(100),
            "p": anim(key(0, [10, 10, 0], to=[20, 0, 30], ti=[0, -20, 10], **SMOOTH), key(60, [100, 80, 50])),
            "rx": anim(key(0, 0, **SMOOTH), key(60, 80)),
            "ry": anim(key(0, 0, **SMOOTH), key(90, -120)),
            "rz": anim(key(0, 0, **SMOOTH), key(45, 30)),
            "or": anim(key(0, [0, 0, 0], **SMOOTH), key(30, [30, 60, 20], h=1),
                       key(50, [10, -40, 80], **SMOOTH), key(80, [350, 10, 0])),
        }, ddd=1),
        layer(7, "Late", transform(o=anim(key(0, 0, **SMOOTH), key(90, 100))), ip=30, op=60),
        layer(8, "Offset", transform(o=anim(key(5, 0, **SMOOTH), key(70, 100))), st=12, sr=1.5),
        layer(9, "Old", transform(o=anim(key(0, 0, e=[100], **SMOOTH), key(40, 100, e=[50], **SMOOTH),
                                         {"t": 80}))),
    ]
    for l in layers:
        if l["ind"] == 6:
            l["ddd"] = 1
    return {"v": "5.12.2", "fr": 30, "ip": 0, "op": 90, "w": 200, "h": 200, "nm": "transforms",
            "ddd": 1, "assets": [], "layers": layers}


def precomps():
    leaf = [layer(1, "Leaf", transform(
        r=anim(key(0, 0, **SMOOTH), key(40, 180)),
        s=anim(key(0, [100, 100, 100], **SMOOTH), key(40, [50, 150, 100]))), op=200)]
    inner = [
        layer(1, "Dot", transform(
            p=anim(key(0, [0, 0, 0], to=[30, 0, 0], ti=[0, -30, 0], **ease(0.5, 0, 0.5, 1)),
                   key(48, [100, 100, 0])),
            o=anim(key(0, 0, **SMOOTH), key(30, 100))), op=200),
        layer(2, "Nest", transform(o=anim(key(0, 100, **SMOOTH), key(60, 40))),
              ty=0, refId="leaf", st=5, op=200, w=100, h=100),
    ]
    root = [
        layer(1, "Pre", transform(), ty=0, refId="inner", st=10, sr=2, ip=10, op=110, w=100, h=100),
        layer(2, "Remap", transform(), ty=0, refId="inner", ip=4, op=100, w=100, h=100,
              tm=anim(key(0, 0, **ease(0.42, 0, 0.58, 1)), key(100, 3))),
        layer(3, "Fast", transform(), ty=0, refId="leaf", st=-4, sr=0.5, ip=4, op=120, w=100, h=100),
    ]
    for l in root:
        l.pop("shapes", None)
    inner[1].pop("shapes", None)
    return {"v": "5.12.2", "fr": 24, "ip": 4, "op": 120, "w": 200, "h": 200, "nm": "precomps",
            "ddd": 0,
            "assets": [{"id": "inner", "nm": "inner", "layers": inner},
                       {"id": "leaf", "nm": "leaf", "layers": leaf}],
            "layers": root}


def differences():
    """Where we knowingly differ from lottie-web (docs/lottie.md): a spatial segment whose ease
    dips below 0 (lottie-web shows the segment's end there), and a hold keyframe with tangents
    (lottie-web plays the spatial segment)."""
    def null(ind, nm, p):
        return {"ty": 3, "ind": ind, "nm": nm, "ip": 0, "op": 30, "st": 0, "ks": {"p": p}}
    under = anim(key(0, [0, 0], to=[20, 40], ti=[-20, 40], **ease(0.6, -0.8, 0.6, 1)), key(20, [100, 0]))
    hold = anim(key(0, [0, 0], to=[20, 40], ti=[-20, 40], h=1, **ease(0.3, 0, 0.7, 1)), key(20, [100, 0]))
    return {"v": "5.12.2", "fr": 30, "ip": 0, "op": 30, "w": 100, "h": 100, "nm": "differences",
            "layers": [null(1, "Under", under), null(2, "Hold", hold)]}


for name, doc in [("transforms.json", transforms()), ("precomps.json", precomps()),
                  ("differences/differences.json", differences())]:
    (HERE / name).parent.mkdir(exist_ok=True)
    (HERE / name).write_text(json.dumps(doc, indent=1) + "\n")
