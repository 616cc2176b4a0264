//! What a plot shows, independent of the backend: exact samples, keys, segment labels, ranges.

use inbetween::{PathMode, Track, ValueType};

/// Points of the fine curve line per panel: about one per pixel of a wide panel.
pub const LINE_SAMPLES: usize = 1000;

/// Above this many integer frames, the per-frame dots are left out (they would merge).
pub const MAX_FRAME_DOTS: usize = 5000;

/// The largest magnitude drawn, for values and frames alike: 1e300. Axis ranges (padded, and
/// widened to equal scale on path panels) then stay far from f64's overflow at 1.8e308.
/// Computed values beyond it are left out like non-finite ones (and said so in the subtitle);
/// a key beyond it is refused by `plot`.
pub const MAX_DRAWN: f64 = 1e300;

/// The narrowest axis: half its span is at least this fraction of the magnitude at its middle
/// (and at least [`MIN_HALF_SPAN`]), so that tick steps stay far above one ulp and the tick
/// loops of the plotting library always advance.
pub const MIN_RELATIVE_HALF_SPAN: f64 = 1e-9;

/// The narrowest axis in absolute terms: half its span is at least 1e-300.
pub const MIN_HALF_SPAN: f64 = 1e-300;

/// True for a number a plot draws: finite and within ±[`MAX_DRAWN`].
pub fn drawable(v: f64) -> bool {
    v.is_finite() && v.abs() <= MAX_DRAWN
}

/// One key as drawn: where the motion passes it (frame) and its value.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyMark {
    /// The frame at which the curve passes the key: the key's own frame, or for `path: arclength`
    /// tracks the frame at which the travelled distance reaches it.
    pub frame: f64,
    /// The key's frame as written in the document.
    pub written_frame: f64,
    /// The key's value, one number per component.
    pub value: Vec<f64>,
}

/// A run of consecutive segments with the same kind and ease, labelled once.
#[derive(Clone, Debug, PartialEq)]
pub struct SegmentLabel {
    /// Frame where the run starts.
    pub from: f64,
    /// Frame where the run ends.
    pub to: f64,
    /// The segment kind (`step`, `linear`, `tcb`, ...).
    pub kind: &'static str,
    /// The ease name when it is not `linear`.
    pub ease: Option<String>,
}

/// The (x, y) path of a vec2/vec3 track: the curve, a dot at every integer frame, the keys.
#[derive(Clone, Debug, PartialEq)]
pub struct PathPlot {
    /// The components drawn across and up (`x`, `y` for vec2; the `--plane` of a vec3).
    pub axes: [&'static str; 2],
    /// The fine line, split where a value is not finite.
    pub line: Vec<Vec<(f64, f64)>>,
    /// (x, y) at every integer frame of the plotted range (empty when there are too many).
    pub dots: Vec<(f64, f64)>,
    /// Keys: (x, y) and the written frames of every key at that point.
    pub keys: Vec<((f64, f64), Vec<f64>)>,
    /// Range of x covered by the line, dots and keys.
    pub x_range: (f64, f64),
    /// Range of y covered by the line, dots and keys.
    pub y_range: (f64, f64),
}

/// Everything drawn for one track.
#[derive(Clone, Debug, PartialEq)]
pub struct TrackPlot {
    /// The track's name.
    pub name: String,
    /// One line of description: type, wrap, path mode, anything left out.
    pub subtitle: String,
    /// Component names (`x`, `y`, ... or `r`, `g`, ...).
    pub components: Vec<&'static str>,
    /// Whether the components are colour channels (drawn in red, green, blue, grey).
    pub is_color: bool,
    /// Frames shown on the x axis.
    pub x_range: (f64, f64),
    /// Values shown on the y axis (all components).
    pub y_range: (f64, f64),
    /// The fine line of each component, split where a value is not finite.
    pub lines: Vec<Vec<Vec<(f64, f64)>>>,
    /// The value at every integer frame: (frame, components), empty when there are too many.
    pub frame_values: Vec<(f64, Vec<f64>)>,
    /// The keys.
    pub keys: Vec<KeyMark>,
    /// Handles of Blender F-curve keys next to a `bezier_2d` segment, as placed: (left handle,
    /// key, right handle) points (frame, value), each handle `None` when it is off the frame axis.
    pub handles: Vec<BezierHandles>,
    /// Segment kind labels.
    pub segments: Vec<SegmentLabel>,
    /// The path panel of a vec2/vec3 track.
    pub path: Option<PathPlot>,
}

/// One F-curve key's handles as drawn.
pub type BezierHandles = (Option<(f64, f64)>, (f64, f64), Option<(f64, f64)>);

/// The handles of an F-curve track's keys that bound a `bezier_2d` segment (the left handle
/// shapes the segment before the key, the right one the segment after), inside `axis`.
fn bezier_handles(track: &Track, axis: (f64, f64)) -> Vec<BezierHandles> {
    use inbetween::fcurve::FInterp;
    let Some(curve) = track.fcurve() else {
        return Vec::new();
    };
    let keys = curve.keys();
    let inside = |p: [f64; 2]| (p[0] >= axis.0 && p[0] <= axis.1).then_some((p[0], p[1]));
    (0..keys.len())
        .filter_map(|i| {
            let k = &keys[i];
            let before = i > 0 && keys[i - 1].interp == FInterp::Bezier;
            let after = i + 1 < keys.len() && k.interp == FInterp::Bezier;
            let left = before.then(|| inside(k.left)).flatten();
            let right = after.then(|| inside(k.right)).flatten();
            (left.is_some() || right.is_some()).then_some((left, (k.frame, k.value), right))
        })
        .collect()
}

/// The component names of a value type.
pub fn component_names(value_type: ValueType) -> Vec<&'static str> {
    match value_type {
        ValueType::Scalar => vec!["value"],
        ValueType::Vec2 => vec!["x", "y"],
        ValueType::Vec3 => vec!["x", "y", "z"],
        ValueType::Vec4 | ValueType::Quat => vec!["x", "y", "z", "w"],
        ValueType::Color => vec!["r", "g", "b", "a"],
    }
}

/// The integer frames plotted for these tracks: ⌈earliest first key⌉ ..= ⌊latest last key⌋
/// (the same rule as `sample`); `None` when that range holds no integer.
pub fn integer_frames(tracks: &[&Track]) -> Option<(i64, i64)> {
    let (first, last) = key_span(tracks);
    let (from, to) = (first.ceil(), last.floor());
    if from.is_nan() || to.is_nan() || from > to || from < i64::MIN as f64 || to > i64::MAX as f64 {
        return None;
    }
    Some((from as i64, to as i64))
}

/// The earliest first key frame and the latest last key frame of `tracks` (∞, −∞ when empty).
fn key_span(tracks: &[&Track]) -> (f64, f64) {
    tracks
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), t| {
            (a.min(t.first_frame()), b.max(t.last_frame()))
        })
}

/// The frame axis for these tracks: every key frame and every integer frame, widened by one
/// frame each side when it is a single point.
pub fn frame_axis(tracks: &[&Track]) -> (f64, f64) {
    padded(key_span(tracks), 0.0)
}

/// `range` widened by `fraction` of its span on each side; a point (or a non-finite range) is
/// widened to a unit (or ±|v|/2) interval so every axis has a positive span, and any range to
/// at least [`MIN_RELATIVE_HALF_SPAN`] × |middle| (and [`MIN_HALF_SPAN`]) each side. Computed
/// from the middle and half the span (each halved before adding), so that no finite input
/// overflows; a result beyond f64 is clamped to ±f64::MAX.
pub fn padded((lo, hi): (f64, f64), fraction: f64) -> (f64, f64) {
    if !lo.is_finite() || !hi.is_finite() || lo > hi {
        return (-1.0, 1.0);
    }
    let mid = 0.5 * lo + 0.5 * hi;
    let half_span = 0.5 * hi - 0.5 * lo;
    let half = if 2.0 * half_span <= f64::EPSILON * lo.abs().max(hi.abs()) {
        half_span + if lo == 0.0 { 1.0 } else { lo.abs() * 0.5 }
    } else {
        half_span * (1.0 + 2.0 * fraction)
    };
    let half = half
        .max(mid.abs() * MIN_RELATIVE_HALF_SPAN)
        .max(MIN_HALF_SPAN);
    (
        (mid - half).clamp(f64::MIN, f64::MAX),
        (mid + half).clamp(f64::MIN, f64::MAX),
    )
}

/// The frame at which an arclength track's travelled distance first reaches `s` (bisection on
/// the monotone part of `s(f)`; 80 halvings reach the resolution of f64).
fn frame_reaching(track: &Track, s: f64) -> f64 {
    let (mut lo, mut hi) = (track.first_frame(), track.last_frame());
    let reached = |f: f64| track.arclength_at(f).is_some_and(|d| d >= s);
    if reached(lo) {
        return lo;
    }
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if reached(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// The frames at which the motion passes each key: the keys' frames, or for `path: arclength`
/// tracks the frames where the distance reaches each segment's start.
fn key_pass_frames(track: &Track) -> Vec<f64> {
    let keys = track.keys();
    match (track.path(), track.arclength_table()) {
        (PathMode::Arclength { .. }, Some(table)) => (0..keys.len())
            .map(|i| {
                if i == 0 {
                    track.first_frame()
                } else {
                    frame_reaching(track, table.segment_start(i))
                }
            })
            .collect(),
        _ => keys.iter().map(|k| k.frame).collect(),
    }
}

/// The frames at which the fine line is sampled: an even grid over `axis`, each key frame and a
/// point just before it (so a jump at a key is drawn upright), sorted.
fn line_frames(axis: (f64, f64), key_frames: &[f64]) -> Vec<f64> {
    let (lo, hi) = axis;
    let span = hi - lo;
    let before = span * 1e-7;
    let mut frames: Vec<f64> = (0..=LINE_SAMPLES)
        .map(|i| lo + span * i as f64 / LINE_SAMPLES as f64)
        .collect();
    for &k in key_frames {
        if k >= lo && k <= hi {
            frames.push(k);
            if k - before >= lo {
                frames.push(k - before);
            }
        }
    }
    frames.sort_by(f64::total_cmp);
    frames.dedup();
    frames
}

/// Splits `(x, y)` points into runs of finite points.
fn finite_runs(points: impl IntoIterator<Item = (f64, f64)>) -> Vec<Vec<(f64, f64)>> {
    let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for (x, y) in points {
        if drawable(x) && drawable(y) {
            if let Some(run) = runs.last_mut() {
                run.push((x, y));
            }
        } else if runs.last().is_some_and(|r| !r.is_empty()) {
            runs.push(Vec::new());
        }
    }
    runs.retain(|r| !r.is_empty());
    runs
}

/// The smallest range holding every finite number of `values`, `None` without any.
fn finite_range(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .into_iter()
        .filter(|v| drawable(*v))
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// Consecutive segments with the same kind and ease, merged; `pass` are the key pass frames.
fn segment_labels(track: &Track, pass: &[f64]) -> Vec<SegmentLabel> {
    let keys = track.keys();
    let mut labels: Vec<SegmentLabel> = Vec::new();
    for (i, key) in keys.iter().enumerate().take(keys.len().saturating_sub(1)) {
        let fkey = track.fcurve().and_then(|c| c.keys().get(i));
        let kind = fkey.map_or(key.interp.name(), |k| k.interp.name());
        let ease_name = match fkey.map(|k| k.interp) {
            Some(inbetween::fcurve::FInterp::Easing { kind, mode }) => {
                format!("{} {}", kind.name(), mode.resolve(kind).name())
            }
            _ => key.ease.name(),
        };
        let ease = (ease_name != "linear").then_some(ease_name);
        let (from, to) = (pass[i], pass[i + 1]);
        match labels.last_mut() {
            Some(last) if last.kind == kind && last.ease == ease => last.to = to,
            _ => labels.push(SegmentLabel {
                from,
                to,
                kind,
                ease,
            }),
        }
    }
    labels
}

/// One line describing the track: type, wrap, timing, and what was left out.
fn subtitle(track: &Track, frame_count: usize, non_finite: bool) -> String {
    let mut parts = vec![
        track.value_type().to_string(),
        match track.fcurve() {
            Some(_) => "Blender F-curve".to_string(),
            None => format!("wrap {}", track.wrap().name()),
        },
        format!(
            "{} key{}",
            track.keys().len(),
            if track.keys().len() == 1 { "" } else { "s" }
        ),
    ];
    if let PathMode::Arclength { ease } = track.path() {
        let ease = ease.name();
        parts.push(if ease == "linear" {
            "timed by arc length (constant speed)".to_string()
        } else {
            format!("timed by arc length, ease {ease}")
        });
    }
    if frame_count > MAX_FRAME_DOTS {
        parts.push(format!("{frame_count} frames: per-frame dots left out"));
    }
    if non_finite {
        parts.push(format!(
            "values not finite or beyond ±{MAX_DRAWN:e} left out"
        ));
    }
    parts.join(" · ")
}

/// The plane a vec3 path is drawn in: two of its components, across and up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Plane {
    /// The two components that vary most (by the range of their values); xy for vec2.
    #[default]
    Auto,
    /// x across, y up.
    Xy,
    /// x across, z up.
    Xz,
    /// y across, z up.
    Yz,
}

impl Plane {
    /// The component indices drawn across and up for a track with `components` components
    /// whose values span `extents` (one range length per component).
    fn indices(self, components: usize, extents: &[f64]) -> (usize, usize) {
        match self {
            _ if components < 3 => (0, 1),
            Plane::Xy => (0, 1),
            Plane::Xz => (0, 2),
            Plane::Yz => (1, 2),
            Plane::Auto => {
                // Leave out the component that varies least (the first of equals kept).
                let least = (0..3)
                    .rev()
                    .min_by(|a, b| extents[*a].total_cmp(&extents[*b]))
                    .unwrap_or(2);
                match least {
                    0 => (1, 2),
                    1 => (0, 2),
                    _ => (0, 1),
                }
            }
        }
    }
}

/// The name of the one curve a rotation track is drawn as.
pub const ANGLE_COMPONENT: &str = "angle from key 0 (°)";

/// What a track's curves show: its components, or for a rotation the angle (degrees, 0..=180)
/// it has turned from its first key — continuous, whatever the signs of the quaternions.
#[derive(Clone, Copy, Debug)]
enum Shown {
    Components,
    AngleFrom(inbetween::quat::Quat),
}

impl Shown {
    fn of(track: &Track) -> Shown {
        match track.keys().first() {
            Some(k) if track.value_type() == ValueType::Quat => {
                Shown::AngleFrom([k.value[0], k.value[1], k.value[2], k.value[3]])
            }
            _ => Shown::Components,
        }
    }

    fn components(self, track: &Track) -> usize {
        match self {
            Shown::Components => track.components(),
            Shown::AngleFrom(_) => 1,
        }
    }

    fn values(self, v: &inbetween::Value) -> Vec<f64> {
        match self {
            Shown::Components => v.as_slice().to_vec(),
            Shown::AngleFrom(q0) => {
                let q = [v[0], v[1], v[2], v[3]];
                vec![inbetween::quat::angle_between(q0, q).to_degrees()]
            }
        }
    }
}

/// Samples `track` exactly (`Track::eval`) over the frame axis `axis` and the integer frames
/// `frames` (inclusive), and gathers what the panels draw (a rotation as its angle from the
/// first key, [`ANGLE_COMPONENT`]); a vec3 path in the xy plane.
#[cfg(test)]
pub fn track_plot(track: &Track, axis: (f64, f64), frames: Option<(i64, i64)>) -> TrackPlot {
    track_plot_in(track, axis, frames, Plane::Xy)
}

/// Samples `track` as [`track_plot`] does, with a vec3 path drawn in `plane`.
pub fn track_plot_in(
    track: &Track,
    axis: (f64, f64),
    frames: Option<(i64, i64)>,
    plane: Plane,
) -> TrackPlot {
    let shown = Shown::of(track);
    let n = shown.components(track);
    let pass = key_pass_frames(track);
    let line_at = line_frames(axis, &pass);
    let line_values: Vec<(f64, Vec<f64>)> = line_at
        .iter()
        .map(|&f| (f, shown.values(&track.eval(f))))
        .collect();
    let frame_count = frames.map_or(0, |(a, b)| usize::try_from(b - a + 1).unwrap_or(usize::MAX));
    let frame_values: Vec<(f64, Vec<f64>)> = match frames {
        Some((a, b)) if frame_count <= MAX_FRAME_DOTS => (a..=b)
            .map(|f| (f as f64, shown.values(&track.eval(f as f64))))
            .collect(),
        _ => Vec::new(),
    };
    let keys = key_marks(track, shown, &pass);
    let non_finite = line_values
        .iter()
        .chain(&frame_values)
        .any(|(_, v)| v.iter().any(|c| !drawable(*c)));

    let lines: Vec<Vec<Vec<(f64, f64)>>> = (0..n)
        .map(|c| finite_runs(line_values.iter().map(|(f, v)| (*f, v[c]))))
        .collect();
    let handles = bezier_handles(track, axis);
    let y_range = value_range(&line_values, &frame_values, &keys, &handles);
    let path = matches!(track.value_type(), ValueType::Vec2 | ValueType::Vec3).then(|| {
        let samples = PathSamples {
            line: &line_values,
            frames: &frame_values,
            keys: &keys,
            pass: &pass,
        };
        path_plot(track.value_type(), n, plane, &samples)
    });

    TrackPlot {
        name: track.name().to_string(),
        subtitle: subtitle(track, frame_count, non_finite),
        components: match shown {
            Shown::Components => component_names(track.value_type()),
            Shown::AngleFrom(_) => vec![ANGLE_COMPONENT],
        },
        is_color: track.value_type() == ValueType::Color,
        x_range: axis,
        y_range,
        lines,
        frame_values,
        keys,
        handles,
        segments: segment_labels(track, &pass),
        path,
    }
}

/// The keys' marks: where the line passes them, the frame written, the value shown.
fn key_marks(track: &Track, shown: Shown, pass: &[f64]) -> Vec<KeyMark> {
    track
        .keys()
        .iter()
        .zip(pass)
        .map(|(k, &frame)| KeyMark {
            frame,
            written_frame: k.frame,
            value: shown.values(&k.value),
        })
        .collect()
}

/// The value axis of the curve panels: the finite range of everything drawn there (line, frame
/// dots, keys, handle ends), padded by 6 %; (−1, 1) before padding when nothing is finite.
fn value_range(
    line_values: &[(f64, Vec<f64>)],
    frame_values: &[(f64, Vec<f64>)],
    keys: &[KeyMark],
    handles: &[BezierHandles],
) -> (f64, f64) {
    let all_values = line_values
        .iter()
        .chain(frame_values)
        .flat_map(|(_, v)| v.iter().copied())
        .chain(keys.iter().flat_map(|k| k.value.iter().copied()))
        .chain(
            handles
                .iter()
                .flat_map(|(l, _, r)| [l, r])
                .flatten()
                .map(|p| p.1),
        );
    padded(finite_range(all_values).unwrap_or((-1.0, 1.0)), 0.06)
}

/// What a vec2 or vec3 track's path panel is drawn from.
struct PathSamples<'s> {
    /// (frame, value) along the line.
    line: &'s [(f64, Vec<f64>)],
    /// (frame, value) at the integer frames shown as dots.
    frames: &'s [(f64, Vec<f64>)],
    keys: &'s [KeyMark],
    /// The frames where the line passes the keys.
    pass: &'s [f64],
}

/// The path panel of a vec2 or vec3 track with `n` components, in `plane`.
fn path_plot(value_type: ValueType, n: usize, plane: Plane, samples: &PathSamples) -> PathPlot {
    let extents: Vec<f64> = (0..n)
        .map(|c| finite_range(samples.line.iter().map(|(_, v)| v[c])).map_or(0.0, |(a, b)| b - a))
        .collect();
    let (across, up) = plane.indices(n, &extents);
    let names = component_names(value_type);
    let xy = |v: &[f64]| (v[across], v[up]);
    let line = path_line(samples, xy);
    let dots: Vec<(f64, f64)> = samples.frames.iter().map(|(_, v)| xy(v)).collect();
    let mut key_points: Vec<((f64, f64), Vec<f64>)> = Vec::new();
    for k in samples.keys {
        let p = xy(&k.value);
        match key_points.iter_mut().find(|(q, _)| *q == p) {
            Some((_, frames)) => frames.push(k.written_frame),
            None => key_points.push((p, vec![k.written_frame])),
        }
    }
    let points = || {
        line.iter()
            .flatten()
            .copied()
            .chain(dots.iter().copied())
            .chain(key_points.iter().map(|(p, _)| *p))
    };
    let x_range = finite_range(points().map(|p| p.0)).unwrap_or((-1.0, 1.0));
    let y_range = finite_range(points().map(|p| p.1)).unwrap_or((-1.0, 1.0));
    PathPlot {
        axes: [names[across], names[up]],
        line,
        dots: dots
            .into_iter()
            .filter(|(x, y)| drawable(*x) && drawable(*y))
            .collect(),
        keys: key_points,
        x_range,
        y_range,
    }
}

/// The path's line in the plane (`xy` picks the two components), as finite runs.
///
/// The path is broken at every key, so that a jump there (an expression segment that ends away
/// from the next key, a step) is not drawn as a motion; where the motion is continuous the two
/// pieces meet.
fn path_line(samples: &PathSamples, xy: impl Fn(&[f64]) -> (f64, f64)) -> Vec<Vec<(f64, f64)>> {
    let values = samples.line;
    let mut line = Vec::new();
    let mut start = 0;
    for (i, (f, _)) in values.iter().enumerate() {
        if i > start && samples.pass.contains(f) {
            line.extend(finite_runs(values[start..i].iter().map(|(_, v)| xy(v))));
            start = i;
        }
    }
    line.extend(finite_runs(values[start..].iter().map(|(_, v)| xy(v))));
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use inbetween::{Document, Interp};

    fn doc(json: &str) -> Document {
        Document::from_json_str(json, "test.json").unwrap()
    }

    #[test]
    fn segments_with_the_same_kind_and_ease_are_labelled_once() {
        let d = doc(
            r#"{"inbetween":1,"fps":60,"tracks":[{"name":"s","type":"scalar","keys":[
            {"frame":0,"value":0,"interp":"linear"},{"frame":10,"value":1,"interp":"linear"},
            {"frame":20,"value":0,"interp":"step"},
            {"frame":30,"value":1,"interp":"linear","ease":"in_quad"},{"frame":40,"value":2}]}]}"#,
        );
        let plot = track_plot(&d.tracks()[0], (0.0, 40.0), Some((0, 40)));
        let labels: Vec<(f64, f64, &str, Option<&str>)> = plot
            .segments
            .iter()
            .map(|s| (s.from, s.to, s.kind, s.ease.as_deref()))
            .collect();
        assert_eq!(
            labels,
            vec![
                (0.0, 20.0, "linear", None),
                (20.0, 30.0, "step", None),
                (30.0, 40.0, "linear", Some("in_quad")),
            ]
        );
        assert_eq!(plot.frame_values.len(), 41);
        assert!(plot.path.is_none());
    }

    #[test]
    fn a_step_is_drawn_upright_at_the_key() {
        let track = Track::scalar("s")
            .key(0.0, 0.0)
            .interp(Interp::Step)
            .key(10.0, 5.0)
            .build()
            .unwrap();
        let plot = track_plot(&track, (0.0, 10.0), Some((0, 10)));
        let line = &plot.lines[0][0];
        let last_two = &line[line.len() - 2..];
        assert_eq!(last_two[1], (10.0, 5.0));
        assert_eq!(last_two[0].1, 0.0, "held value just before the key");
        assert!(10.0 - last_two[0].0 < 1e-5);
    }

    #[test]
    fn arclength_keys_are_marked_where_the_distance_reaches_them() {
        // Two straight segments of lengths 30 and 10 at constant speed over 40 frames: the
        // middle key is passed when 30 of 40 units are travelled, at frame 30 (not its key
        // frame 5).
        let d = doc(
            r#"{"inbetween":1,"fps":60,"tracks":[{"name":"p","type":"vec2",
            "path":"arclength","keys":[{"frame":0,"value":[0,0]},{"frame":5,"value":[30,0]},
            {"frame":40,"value":[30,10]}]}]}"#,
        );
        let plot = track_plot(&d.tracks()[0], (0.0, 40.0), Some((0, 40)));
        let frames: Vec<f64> = plot.keys.iter().map(|k| k.frame).collect();
        assert_eq!(frames[0], 0.0);
        assert!((frames[1] - 30.0).abs() < 1e-6, "{frames:?}");
        assert!((frames[2] - 40.0).abs() < 1e-6, "{frames:?}");
        let path = plot.path.unwrap();
        assert_eq!(path.dots.len(), 41);
        assert_eq!(path.keys[1], ((30.0, 0.0), vec![5.0]));
        // Constant speed: one unit per frame, so the dot at frame 12 is at (12, 0).
        assert!((path.dots[12].0 - 12.0).abs() < 1e-6 && path.dots[12].1.abs() < 1e-6);
    }

    #[test]
    fn the_path_breaks_at_a_jump_and_keys_at_one_point_share_a_label() {
        // x = 100·u ends at 100 but the last key is at 0: a jump at frame 10, not a motion.
        let d = doc(
            r#"{"inbetween":1,"fps":60,"tracks":[{"name":"p","type":"vec2","keys":[
            {"frame":0,"value":[0,0],"interp":{"expr":["100*u","0"]}},
            {"frame":10,"value":[0,0]}]}]}"#,
        );
        let path = track_plot(&d.tracks()[0], (0.0, 10.0), Some((0, 10)))
            .path
            .unwrap();
        assert_eq!(path.line.len(), 2);
        let first = &path.line[0];
        assert!((first[first.len() - 1].0 - 100.0).abs() < 1e-3);
        assert_eq!(path.line[1], vec![(0.0, 0.0)]);
        assert_eq!(path.keys, vec![((0.0, 0.0), vec![0.0, 10.0])]);
    }

    #[test]
    fn non_finite_values_break_the_line_and_are_reported() {
        // 1/(u − 0.5) is infinite at frame 5, a point of the sampling grid and an integer frame.
        let d = doc(
            r#"{"inbetween":1,"fps":60,"tracks":[{"name":"s","type":"scalar","keys":[
            {"frame":0,"value":0,"interp":{"expr":"1/(u-0.5)"}},{"frame":10,"value":0}]}]}"#,
        );
        let plot = track_plot(&d.tracks()[0], (0.0, 10.0), Some((0, 10)));
        assert!(plot.frame_values[5].1[0].is_infinite());
        assert_eq!(plot.lines[0].len(), 2, "one run each side of frame 5");
        assert!(plot.lines[0].iter().flatten().all(|p| p.1.is_finite()));
        assert!(plot
            .subtitle
            .contains("values not finite or beyond ±1e300 left out"));
        assert!(plot.y_range.0.is_finite() && plot.y_range.1.is_finite());
    }

    #[test]
    fn a_vec3_path_is_drawn_in_the_chosen_or_widest_plane() {
        // x stays 0; y runs 0 → 10, z 0 → 5: auto leaves x out and draws (y, z).
        let d = doc(
            r#"{"inbetween": 1, "tracks": [{"name": "p", "type": "vec3", "keys": [
            {"frame": 0, "value": [0, 0, 0]}, {"frame": 10, "value": [0, 10, 5]}]}]}"#,
        );
        let t = &d.tracks()[0];
        let path = |plane| {
            track_plot_in(t, (0.0, 10.0), Some((0, 10)), plane)
                .path
                .unwrap()
        };
        let auto = path(Plane::Auto);
        assert_eq!(auto.axes, ["y", "z"]);
        assert_eq!(auto.dots[4], (4.0, 2.0));
        let xz = path(Plane::Xz);
        assert_eq!(xz.axes, ["x", "z"]);
        assert_eq!(xz.dots[4], (0.0, 2.0));
        assert_eq!(path(Plane::Xy).dots[10], (0.0, 10.0));
    }

    #[test]
    fn a_rotation_is_drawn_as_its_angle_from_the_first_key() {
        // Slerp from the identity to a 90° turn about y and on to 180°: the angle grows
        // linearly, 0 → 90 → 180, whichever sign the stored quaternions have.
        let d = doc(
            r#"{"inbetween": 1, "tracks": [{"name": "r", "type": "quat", "keys": [
            {"frame": 0, "value": [0, 0, 0, -1]}, {"frame": 10, "value": {"axis": [0, 1, 0], "angle": 90}},
            {"frame": 20, "value": [0, -1, 0, 0]}]}]}"#,
        );
        let t = &d.tracks()[0];
        let plot = track_plot(t, (0.0, 20.0), Some((0, 20)));
        assert_eq!(plot.components, vec![ANGLE_COMPONENT]);
        let keys: Vec<f64> = plot.keys.iter().map(|k| k.value[0]).collect();
        for (got, want) in keys.iter().zip([0.0, 90.0, 180.0]) {
            assert!((got - want).abs() < 1e-9, "{keys:?}");
        }
        for (f, v) in &plot.frame_values {
            assert!((v[0] - 9.0 * f).abs() < 1e-9, "frame {f}: {v:?}");
        }
    }

    #[test]
    fn a_single_point_range_is_widened() {
        assert_eq!(padded((3.0, 3.0), 0.1), (1.5, 4.5));
        assert_eq!(padded((0.0, 0.0), 0.1), (-1.0, 1.0));
        assert_eq!(padded((0.0, 10.0), 0.1), (-1.0, 11.0));
    }

    #[test]
    fn padded_ranges_stay_finite_and_wide_enough_for_ticks() {
        let max = f64::MAX;
        for range in [
            (max, max),
            (-max, max),
            (-max, -max),
            (1e300, 1e300),
            (-1e300, 1e300),
        ] {
            let (lo, hi) = padded(range, 0.06);
            assert!(
                lo.is_finite() && hi.is_finite() && lo < hi,
                "{range:?} → {lo}, {hi}"
            );
            assert!(lo <= range.0 && hi >= range.1, "{range:?} → {lo}, {hi}");
        }
        // Within the drawn limit, spans are computed exactly (no clamping).
        assert_eq!(padded((-1e300, 1e300), 0.5), (-2e300, 2e300));
        // Two values 8 ulps apart near 1e15 (a span of 1, not a point): the axis is widened to
        // 1e-9 × 1e15 = 1e6 each side, so that a tick step is far above an ulp.
        let v = 1e15;
        let (lo, hi) = padded((v, v + 1.0), 0.06);
        assert_eq!((lo, hi), (v + 0.5 - 1e6, v + 0.5 + 1e6));
        // Tiny numbers keep an axis of at least 1e-300 each side.
        let (lo, hi) = padded((1e-310, 2e-310), 0.06);
        assert!(hi - lo >= 2e-300 * 0.999, "{lo} {hi}");
    }
}
