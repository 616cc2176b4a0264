//! One Lottie property's keyframes to tracks in its composition's frames: hold keys, cubic-bezier eases (per dimension), spatial tangents.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use serde_json::{Map, Value as Json};

use super::{found, LottieError, Where};
use crate::ease::{CubicBezierEase, Ease};
use crate::track::{Interp, TrackBuilder};
use crate::value::{Value, ValueType};

/// How lottie-web reads a property: one number, or an array (a vector or a colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// lottie-web's unidimensional property (rotation, opacity, width, ...).
    Scalar,
    /// A multidimensional property that may carry spatial tangents (position, anchor, size, ...).
    Vector,
    /// A colour (r, g, b[, a] in 0–1).
    Color,
}

/// What a property holds.
pub(super) enum Parsed {
    /// Not keyframed: no track.
    Static,
    /// An expression (`x`): lottie-web's value is the script's, which is not imported.
    Expression,
    /// Keyframed: one track, or one scalar track per component where their eases differ.
    Animated(Vec<PropTrack>),
}

/// One track of a keyframed property, keyed in its own composition's frames.
#[derive(Clone, Debug)]
pub(super) struct PropTrack {
    /// `Some(c)` for the scalar track of component `c` of a split property.
    pub(super) component: Option<usize>,
    pub(super) value_type: ValueType,
    /// Frame, value, segment kind, segment ease.
    pub(super) keys: Vec<(f64, Vec<f64>, Interp, Ease)>,
    /// Spatial Bezier segments timed by their own arc length.
    pub(super) segment_arclength: bool,
}

impl PropTrack {
    /// The track builder named `name` with every key frame `t` moved to `map(t)` (an increasing
    /// affine map, which leaves eases and spatial curves unchanged).
    pub(super) fn builder(&self, name: String, map: impl Fn(f64) -> f64) -> TrackBuilder {
        let mut b = TrackBuilder::new(name, self.value_type);
        if self.segment_arclength {
            b = b.segment_arclength();
        }
        for (t, v, interp, ease) in &self.keys {
            b = b.key_slice(map(*t), v).interp(interp.clone()).ease(*ease);
        }
        b
    }
}

/// One keyframe as read, before segments are made.
struct RawKey<'a> {
    t: f64,
    value: Vec<f64>,
    hold: bool,
    obj: &'a Map<String, Json>,
}

/// Reads the property object `prop` (`{"a": …, "k": …}`) of `shape`.
pub(super) fn parse_property(prop: &Json, shape: Shape, at: &Where) -> Result<Parsed, LottieError> {
    let Some(obj) = prop.as_object() else {
        return Err(at.invalid("", "a property object with \"k\"", found(prop)));
    };
    if obj.get("x").is_some_and(Json::is_string) {
        return Ok(Parsed::Expression);
    }
    let Some(k) = obj.get("k") else {
        return Err(at.invalid("k", "the property's value \"k\"", "nothing".to_string()));
    };
    let keyframes = match k {
        Json::Number(_) => return Ok(Parsed::Static),
        Json::Array(items) => match items.first() {
            Some(Json::Object(_)) => items,
            Some(Json::Number(_)) if items.iter().all(Json::is_number) => {
                return Ok(Parsed::Static)
            }
            _ => {
                return Err(at.invalid(
                    "k",
                    "a number, an array of numbers or an array of keyframes",
                    found(k),
                ))
            }
        },
        _ => {
            return Err(at.invalid(
                "k",
                "a number, an array of numbers or an array of keyframes",
                found(k),
            ))
        }
    };
    let raw = read_keys(keyframes, shape, at)?;
    make_tracks(&raw, shape, at).map(Parsed::Animated)
}

/// A number at `field` of `obj`.
fn number(obj: &Map<String, Json>, field: &str, at: &Where) -> Result<Option<f64>, LottieError> {
    match obj.get(field) {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() => Ok(Some(x)),
            _ => Err(at.invalid(field, "a finite number", found(v))),
        },
    }
}

/// A value (a number or an array of 1 to 4 finite numbers) at `field` of `obj`.
fn numbers(
    obj: &Map<String, Json>,
    field: &str,
    at: &Where,
) -> Result<Option<Vec<f64>>, LottieError> {
    let Some(v) = obj.get(field) else {
        return Ok(None);
    };
    let list: Vec<Option<f64>> = match v {
        Json::Number(n) => vec![n.as_f64()],
        Json::Array(items) => items.iter().map(Json::as_f64).collect(),
        _ => vec![None],
    };
    if list.is_empty() || list.len() > 4 || list.iter().any(|x| !x.is_some_and(f64::is_finite)) {
        return Err(at.invalid(
            field,
            "a number or an array of 1 to 4 finite numbers",
            found(v),
        ));
    }
    Ok(Some(list.into_iter().flatten().collect()))
}

/// Reads the keyframes: times strictly increasing, values of one length (the last key's value
/// may come from the key before's `e`, the old format).
fn read_keys<'a>(
    items: &'a [Json],
    shape: Shape,
    at: &Where,
) -> Result<Vec<RawKey<'a>>, LottieError> {
    let mut keys: Vec<RawKey<'a>> = Vec::with_capacity(items.len());
    let mut previous_end: Option<Vec<f64>> = None;
    for (index, item) in items.iter().enumerate() {
        let at = at.key(index);
        let Some(obj) = item.as_object() else {
            return Err(at.invalid("", "a keyframe object", found(item)));
        };
        let Some(t) = number(obj, "t", &at)? else {
            return Err(at.invalid("t", "the keyframe's time \"t\"", "nothing".to_string()));
        };
        if let Some(before) = keys.last() {
            if t <= before.t {
                return Err(at.invalid(
                    "t",
                    &format!("a time after the previous keyframe's {}", before.t),
                    format!("{t}"),
                ));
            }
        }
        let value = match (numbers(obj, "s", &at)?, previous_end.take()) {
            (Some(s), _) | (None, Some(s)) => s,
            (None, None) => {
                return Err(at.invalid("s", "the keyframe's value \"s\"", "nothing".to_string()))
            }
        };
        if shape == Shape::Scalar && value.len() != 1 {
            return Err(at.invalid("s", "one number", found(&obj["s"])));
        }
        if let Some(first) = keys.first() {
            if first.value.len() != value.len() {
                return Err(at.invalid(
                    "s",
                    &format!("{} numbers, as keyframe 0 has", first.value.len()),
                    format!("{} numbers", value.len()),
                ));
            }
        }
        previous_end = numbers(obj, "e", &at)?;
        let hold = match obj.get("h") {
            None => false,
            Some(Json::Bool(b)) => *b,
            Some(v) if v.as_f64() == Some(1.0) => true,
            Some(v) if v.as_f64() == Some(0.0) => false,
            Some(v) => return Err(at.invalid("h", "0 or 1", found(v))),
        };
        keys.push(RawKey {
            t,
            value,
            hold,
            obj,
        });
    }
    Ok(keys)
}

/// Component `c` of an ease coordinate (`o.x`, `i.y`, ...): a number, or an array whose missing
/// entries fall back to its first (lottie-web's rule).
fn ease_coordinate(
    obj: &Map<String, Json>,
    handle: &str,
    axis: &str,
    c: usize,
    at: &Where,
) -> Result<f64, LottieError> {
    let field = format!("{handle}.{axis}");
    let v = obj
        .get(handle)
        .and_then(|h| h.as_object())
        .and_then(|h| h.get(axis))
        .ok_or_else(|| {
            at.invalid(
                &field,
                "the segment's ease (a number or an array)",
                "nothing".to_string(),
            )
        })?;
    let x = match v {
        Json::Array(items) => items
            .get(c)
            .or_else(|| items.first())
            .and_then(Json::as_f64),
        other => other.as_f64(),
    };
    match x {
        Some(x) if x.is_finite() => Ok(x),
        _ => Err(at.invalid(&field, "a finite number or an array of them", found(v))),
    }
}

/// The ease of component `c` of the segment leaving `key` (`o` out of it, `i` into the next):
/// `linear` when the handles lie on the diagonal (lottie-web's rule), else a cubic-bezier.
fn segment_ease(obj: &Map<String, Json>, c: usize, at: &Where) -> Result<Ease, LottieError> {
    let x1 = ease_coordinate(obj, "o", "x", c, at)?;
    let y1 = ease_coordinate(obj, "o", "y", c, at)?;
    let x2 = ease_coordinate(obj, "i", "x", c, at)?;
    let y2 = ease_coordinate(obj, "i", "y", c, at)?;
    if x1 == y1 && x2 == y2 {
        return Ok(Ease::Linear);
    }
    CubicBezierEase::new(x1, y1, x2, y2)
        .map(Ease::CubicBezier)
        .map_err(|e| at.invalid("o.x", "ease handles with x in [0, 1]", e.to_string()))
}

/// lottie-web's test (`bez.pointOnLine2D`): the determinant of the three points within 0.001.
fn on_line_2d(a: [f64; 2], b: [f64; 2], p: [f64; 2]) -> bool {
    let det = a[0] * b[1] + a[1] * p[0] + b[0] * p[1] - p[0] * b[1] - p[1] * a[0] - b[0] * a[1];
    det > -0.001 && det < 0.001
}

/// lottie-web's test (`bez.pointOnLine3D`): the 2-D test when all three z are 0, else the
/// longest distance equals the sum of the other two within 0.0001.
fn on_line_3d(a: [f64; 3], b: [f64; 3], p: [f64; 3]) -> bool {
    if a[2] == 0.0 && b[2] == 0.0 && p[2] == 0.0 {
        return on_line_2d([a[0], a[1]], [b[0], b[1]], [p[0], p[1]]);
    }
    let dist = |u: [f64; 3], v: [f64; 3]| {
        let d = [v[0] - u[0], v[1] - u[1], v[2] - u[2]];
        crate::math::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
    };
    let (d1, d2, d3) = (dist(a, b), dist(a, p), dist(b, p));
    let diff = if d1 > d2 {
        if d1 > d3 {
            d1 - d2 - d3
        } else {
            d3 - d2 - d1
        }
    } else if d3 > d2 {
        d3 - d2 - d1
    } else {
        d2 - d1 - d3
    };
    diff > -0.0001 && diff < 0.0001
}

/// The Bezier control points (start + `to`, end + `ti`) of a spatial segment, or `None` where
/// lottie-web drops the tangents: both control points on the line through the ends (a straight
/// segment), or equal ends with zero tangents.
fn spatial_controls(
    k0: &RawKey<'_>,
    end: &[f64],
    at: &Where,
) -> Result<Option<Controls>, LottieError> {
    let (Some(to), Some(ti)) = (numbers(k0.obj, "to", at)?, numbers(k0.obj, "ti", at)?) else {
        return Ok(None);
    };
    let s = &k0.value;
    let dims = s.len();
    if !(dims == 2 || dims == 3) || to.len() < dims || ti.len() < dims {
        return Ok(None);
    }
    let c1: Vec<f64> = (0..dims).map(|c| s[c] + to[c]).collect();
    let c2: Vec<f64> = (0..dims).map(|c| end[c] + ti[c]).collect();
    let same_ends = s == end;
    let collinear = !same_ends
        && if dims == 2 {
            on_line_2d([s[0], s[1]], [end[0], end[1]], [c1[0], c1[1]])
                && on_line_2d([s[0], s[1]], [end[0], end[1]], [c2[0], c2[1]])
        } else {
            let (a, b) = ([s[0], s[1], s[2]], [end[0], end[1], end[2]]);
            on_line_3d(a, b, [c1[0], c1[1], c1[2]]) && on_line_3d(a, b, [c2[0], c2[1], c2[2]])
        };
    let zero = same_ends && to[..dims].iter().chain(&ti[..dims]).all(|x| *x == 0.0);
    Ok(if collinear || zero {
        None
    } else {
        Some((c1, c2))
    })
}

/// A spatial segment's two inner Bezier control points.
type Controls = (Vec<f64>, Vec<f64>);

/// One segment as read: kind and per-component eases.
struct RawSegment {
    interp: Interp,
    eases: Vec<Ease>,
}

/// The segments between the keyframes: hold, spatial Bezier (one ease) or straight (one ease
/// per component).
fn read_segments(
    raw: &[RawKey<'_>],
    shape: Shape,
    dims: usize,
    at: &Where,
) -> Result<Vec<RawSegment>, LottieError> {
    let mut segments = Vec::with_capacity(raw.len());
    for (index, pair) in raw.windows(2).enumerate() {
        let at = at.key(index);
        let (k0, k1) = (&pair[0], &pair[1]);
        if k0.hold {
            segments.push(RawSegment {
                interp: Interp::Step,
                eases: vec![Ease::Linear],
            });
            continue;
        }
        let controls = if shape == Shape::Vector {
            spatial_controls(k0, &k1.value, &at)?
        } else {
            None
        };
        let segment = match controls {
            Some((c1, c2)) => {
                let (Some(out), Some(r#in)) = (Value::from_slice(&c1), Value::from_slice(&c2))
                else {
                    return Err(at.invalid("to", "2 or 3 numbers", format!("{}", c1.len())));
                };
                RawSegment {
                    interp: Interp::Bezier { out, r#in },
                    eases: vec![segment_ease(k0.obj, 0, &at)?],
                }
            }
            None => RawSegment {
                interp: Interp::Linear,
                eases: (0..dims)
                    .map(|c| segment_ease(k0.obj, c, &at))
                    .collect::<Result<_, _>>()?,
            },
        };
        segments.push(segment);
    }
    Ok(segments)
}

/// Makes the tracks: spatial segments give one `segment_arclength` track; eases that differ
/// between components split the property into scalar tracks; otherwise one track.
fn make_tracks(
    raw: &[RawKey<'_>],
    shape: Shape,
    at: &Where,
) -> Result<Vec<PropTrack>, LottieError> {
    let dims = raw.first().map_or(1, |k| k.value.len());
    let segments = read_segments(raw, shape, dims, at)?;
    let spatial = segments
        .iter()
        .any(|s| matches!(s.interp, Interp::Bezier { .. }));
    let split = !spatial
        && segments
            .iter()
            .any(|s| s.eases.iter().any(|e| *e != s.eases[0]));
    let key_rows = |component: Option<usize>| -> Vec<(f64, Vec<f64>, Interp, Ease)> {
        raw.iter()
            .enumerate()
            .map(|(i, k)| {
                let (interp, ease) = segments.get(i).map_or((Interp::Linear, Ease::Linear), |s| {
                    let c = component.unwrap_or(0).min(s.eases.len() - 1);
                    (s.interp.clone(), s.eases[c])
                });
                let value = match component {
                    Some(c) => vec![k.value[c]],
                    None => k.value.clone(),
                };
                (k.t, value, interp, ease)
            })
            .collect()
    };
    if split {
        return Ok((0..dims)
            .map(|c| PropTrack {
                component: Some(c),
                value_type: ValueType::Scalar,
                keys: key_rows(Some(c)),
                segment_arclength: false,
            })
            .collect());
    }
    let value_type = match (dims, shape) {
        (1, _) => ValueType::Scalar,
        (2, _) => ValueType::Vec2,
        (3, _) => ValueType::Vec3,
        (_, Shape::Color) => ValueType::Color,
        _ => ValueType::Vec4,
    };
    Ok(vec![PropTrack {
        component: None,
        value_type,
        keys: key_rows(None),
        segment_arclength: spatial,
    }])
}

/// An animated 3-D orientation (`or`) as lottie-web plays it: between keyframes the two Euler
/// triples become quaternions, are slerped with the segment's **linear** time (no ease), and the
/// result is turned back into Euler angles (degrees); hold keyframes hold; before the first and
/// after the last keyframe their values. No track kind holds that, so it is baked.
pub(super) struct Orientation {
    /// Time, Euler angles in degrees, hold.
    keys: Vec<(f64, [f64; 3], bool)>,
}

/// Reads an orientation property; `None` when it is not keyframed (or is an expression, which
/// the caller reports).
pub(super) fn parse_orientation(
    prop: &Json,
    at: &Where,
) -> Result<Option<Orientation>, LottieError> {
    let Some(items) = prop
        .get("k")
        .and_then(Json::as_array)
        .filter(|k| k.first().is_some_and(Json::is_object))
    else {
        return Ok(None);
    };
    let raw = read_keys(items, Shape::Vector, at)?;
    let mut keys = Vec::with_capacity(raw.len());
    for (index, k) in raw.iter().enumerate() {
        let [x, y, z] = k.value[..] else {
            return Err(at.key(index).invalid(
                "s",
                "3 angles",
                format!("{} numbers", k.value.len()),
            ));
        };
        keys.push((k.t, [x, y, z], k.hold));
    }
    Ok(Some(Orientation { keys }))
}

impl Orientation {
    /// The Euler angles (degrees) lottie-web shows at composition frame `frame`.
    pub(super) fn at(&self, frame: f64) -> [f64; 3] {
        let keys = &self.keys;
        let (first, last) = (keys[0], keys[keys.len() - 1]);
        if keys.len() < 2 || frame < first.0 {
            return first.1;
        }
        if frame >= last.0 {
            return last.1;
        }
        let i = keys.partition_point(|k| k.0 <= frame).saturating_sub(1);
        let (k0, k1) = (keys[i], keys[i + 1]);
        if k0.2 || frame <= k0.0 {
            return k0.1;
        }
        let t = (frame - k0.0) / (k1.0 - k0.0);
        quaternion_to_euler(slerp(quaternion(k0.1), quaternion(k1.1), t))
    }
}

/// lottie-web's `createQuaternion`: heading, attitude, bank = the three angles (degrees).
fn quaternion(v: [f64; 3]) -> [f64; 4] {
    use crate::math::{cos, sin};
    let half = |deg: f64| deg.to_radians() / 2.0;
    let (h, a, b) = (half(v[0]), half(v[1]), half(v[2]));
    let (c1, c2, c3, s1, s2, s3) = (cos(h), cos(a), cos(b), sin(h), sin(a), sin(b));
    [
        s1 * s2 * c3 + c1 * c2 * s3,
        s1 * c2 * c3 + c1 * s2 * s3,
        c1 * s2 * c3 - s1 * c2 * s3,
        c1 * c2 * c3 - s1 * s2 * s3,
    ]
}

/// lottie-web's `slerp`: shortest arc, a straight blend when the quaternions are within 1e-6.
fn slerp(a: [f64; 4], mut b: [f64; 4], t: f64) -> [f64; 4] {
    use crate::math::{acos, sin};
    let mut cosom = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if cosom < 0.0 {
        cosom = -cosom;
        b = b.map(|x| -x);
    }
    let (s0, s1) = if 1.0 - cosom > 0.000_001 {
        let omega = acos(cosom);
        let sinom = sin(omega);
        (sin((1.0 - t) * omega) / sinom, sin(t * omega) / sinom)
    } else {
        (1.0 - t, t)
    };
    [0, 1, 2, 3].map(|c| s0 * a[c] + s1 * b[c])
}

/// lottie-web's `quaternionToEuler` (degrees).
fn quaternion_to_euler(q: [f64; 4]) -> [f64; 3] {
    use crate::math::{asin, atan2};
    let [x, y, z, w] = q;
    let heading = atan2(2.0 * y * w - 2.0 * x * z, 1.0 - 2.0 * y * y - 2.0 * z * z);
    let attitude = asin(2.0 * x * y + 2.0 * z * w);
    let bank = atan2(2.0 * x * w - 2.0 * y * z, 1.0 - 2.0 * x * x - 2.0 * z * z);
    [
        heading.to_degrees(),
        attitude.to_degrees(),
        bank.to_degrees(),
    ]
}
