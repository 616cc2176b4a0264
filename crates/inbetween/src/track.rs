//! Tracks: keys, segment kinds, wraps, validation into runtime form, and exact evaluation.

use alloc::string::String;
use alloc::vec::Vec;

use crate::arclength::{ArcLengthTable, ParamCurve};
use crate::ease::Ease;
use crate::error::EvalError;
use crate::expr::{Expr, ExprVars};
use crate::math;
use crate::quat;
use crate::value::{Value, ValueType, MAX_COMPONENTS};

/// Frames per second used when none is given (the spec's default).
pub const DEFAULT_FPS: f64 = 60.0;

/// The most keys a track may have: one key per frame for 4.6 hours at 60 fps. A validated key
/// with its segment takes a few hundred bytes, so the limit keeps one track under about 1 GB
/// (see docs/limits.md); more is refused with [`crate::ErrorKind::TooManyKeys`].
pub const MAX_KEYS_PER_TRACK: usize = 1_000_000;

/// The most tracks a document may have: 2^20 = 1 048 576, a bank of a million scalar channels
/// (the batch player's largest benchmark), far beyond any rig (a skeleton of 1 000 bones has
/// 3 000 tracks); more is refused with [`crate::ErrorKind::TooManyTracks`].
pub const MAX_TRACKS: usize = 1 << 20;

/// The most keys one `polynomial` segment may pass through. Evaluation costs K² operations,
/// and the Lagrange polynomial through K equally spaced keys amplifies a rounding error in a
/// key by its Lebesgue constant, about 2^K / (e·K·ln K) — 2.5e16 at K = 64, past the precision
/// of f64 — so no wider polynomial draws a meaningful curve.
pub const MAX_POLYNOMIAL_KEYS: usize = 64;

/// The widest span of keys a track may have, last frame − first frame: f64::MAX / 2 (about
/// 8.99e307). Up to it the span, every gap between keys and the ping-pong period 2S are finite
/// f64s, so segments and wraps evaluate exactly as near the origin; keys at ±1.7e308 once made
/// the span overflow to ∞ and every in-between read 0. Wider is refused with
/// [`crate::ErrorKind::SpanTooLarge`].
pub const MAX_KEY_SPAN: f64 = f64::MAX / 2.0;

/// What a frame outside `[first key, last key]` gets.
///
/// With f₀ the first key's frame and S the span (last − first, as an f64):
/// `Clamp` uses f₀ or f₀ + S, whichever is nearer; `Loop` uses f₀ + ((f − f₀) mod S);
/// `PingPong` uses f₀ + r if r ≤ S, else f₀ + 2S − r, with r = (f − f₀) mod 2S.
/// `mod` is the floored modulo, computed exactly on the real numbers f − f₀ and S (or 2S) by
/// [`math::wrap_remainder`] and rounded once, so frames at ±10^15 or ±2^52 wrap exactly as
/// frames near the keys do; only the final f₀ + r rounds again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Wrap {
    /// Hold the first or last key's value.
    #[default]
    Clamp,
    /// Repeat the keyed span.
    Loop,
    /// Play the keyed span forward, then backward.
    PingPong,
}

impl Wrap {
    /// Every wrap, in the spec's order.
    pub const ALL: [Wrap; 3] = [Wrap::Clamp, Wrap::Loop, Wrap::PingPong];

    /// The document name: `clamp`, `loop`, `ping_pong`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Wrap::Clamp => "clamp",
            Wrap::Loop => "loop",
            Wrap::PingPong => "ping_pong",
        }
    }

    /// Parses a document name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Wrap> {
        Wrap::ALL.into_iter().find(|w| w.name() == name)
    }

    /// The frame inside `[first, first + span]` that `frame` stands for.
    ///
    /// Frames inside the closed range are returned unchanged; a span of 0 gives `first`.
    #[must_use]
    pub fn apply(self, frame: f64, first: f64, span: f64) -> f64 {
        let last = first + span;
        if frame >= first && frame <= last {
            return frame;
        }
        if span <= 0.0 {
            return first;
        }
        match self {
            Wrap::Clamp => {
                if frame < first {
                    first
                } else {
                    last
                }
            }
            Wrap::Loop => first + math::wrap_remainder(frame, first, span).0,
            Wrap::PingPong => {
                // 2S is exact (a power-of-two scaling; validation keeps S ≤ f64::MAX / 2), and so
                // is 2S − r for S ≤ r ≤ 2S (Sterbenz).
                let r = math::wrap_remainder(frame, first, 2.0 * span).0;
                if r <= span {
                    first + r
                } else {
                    first + (2.0 * span - r)
                }
            }
        }
    }
}

/// How the motion is timed along the track.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum PathMode {
    /// Each segment runs from its key's frame to the next key's frame.
    #[default]
    Keys,
    /// The spatial curve is kept but re-timed by arc length (`vec2`/`vec3` only), with the
    /// track's ease mapping normalized time to normalized distance.
    Arclength {
        /// Normalized distance over normalized time (`Ease::Linear` for constant speed).
        ease: Ease,
    },
    /// Each segment keeps its own frames and curve, but its key's ease maps the segment's
    /// normalized time to normalized distance along that segment (`vec2`/`vec3` only; After
    /// Effects' spatial keys, see [`crate::segment_arclength`]).
    SegmentArclength,
}

/// Tension, continuity and bias of a key (Kochanek and Bartels 1984), each usually in [−1, 1].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Tcb {
    /// Tension: 1 gives zero tangents, −1 doubles them.
    pub tension: f64,
    /// Continuity: 0 keeps the curve C1 at the key.
    pub continuity: f64,
    /// Bias: positive leans the tangent toward the previous segment.
    pub bias: f64,
}

impl Tcb {
    /// The all-zero parameters: Catmull-Rom tangents.
    pub const ZERO: Tcb = Tcb {
        tension: 0.0,
        continuity: 0.0,
        bias: 0.0,
    };

    /// Tension, continuity, bias.
    #[must_use]
    pub const fn new(tension: f64, continuity: f64, bias: f64) -> Tcb {
        Tcb {
            tension,
            continuity,
            bias,
        }
    }
}

/// How the segment from a key to the next one is drawn (the spec's `interp`).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Interp {
    /// Hold the key's value until the next key.
    Step,
    /// Straight line `p_i + (p_{i+1} − p_i)·u`; shortest-arc slerp on quaternion tracks.
    #[default]
    Linear,
    /// Shortest-arc spherical interpolation (quaternion tracks only; Shoemake 1985).
    Slerp,
    /// Cubic Hermite with end slopes in value units per frame: `m_i = out·N_i`, `m_{i+1} = in·N_i`.
    Hermite {
        /// Slope leaving this key, per frame.
        out: Value,
        /// Slope arriving at the next key, per frame.
        r#in: Value,
    },
    /// Cubic Bezier with control points `p_i, out, in, p_{i+1}` (absolute values).
    Bezier {
        /// Second control point.
        out: Value,
        /// Third control point.
        r#in: Value,
    },
    /// The Kochanek–Bartels segment with tension = continuity = bias = 0 at both ends.
    CatmullRom,
    /// Kochanek–Bartels: cubic Hermite with `m_i = DD_i` and `m_{i+1} = DS_{i+1}`.
    Tcb,
    /// The Lagrange polynomial, in the frame variable, through `keys` consecutive keys.
    Polynomial {
        /// How many keys the polynomial passes through (2 ≤ keys ≤ number of keys).
        keys: usize,
    },
    /// An expression per component in `u`, `frame` and `time` (see [`crate::expr`]).
    Expr(Vec<String>),
}

impl Interp {
    /// The kind's name as documents write it (`step`, `linear`, `hermite`, ...).
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Interp::Step => "step",
            Interp::Linear => "linear",
            Interp::Slerp => "slerp",
            Interp::Hermite { .. } => "hermite",
            Interp::Bezier { .. } => "bezier",
            Interp::CatmullRom => "catmull_rom",
            Interp::Tcb => "tcb",
            Interp::Polynomial { .. } => "polynomial",
            Interp::Expr(_) => "expr",
        }
    }

    /// Hermite with slopes (value units per frame) leaving this key and arriving at the next.
    #[must_use]
    pub fn hermite(out: impl Into<Value>, r#in: impl Into<Value>) -> Interp {
        Interp::Hermite {
            out: out.into(),
            r#in: r#in.into(),
        }
    }

    /// Bezier with absolute control points.
    #[must_use]
    pub fn bezier(out: impl Into<Value>, r#in: impl Into<Value>) -> Interp {
        Interp::Bezier {
            out: out.into(),
            r#in: r#in.into(),
        }
    }

    /// An expression per component.
    #[must_use]
    pub fn expr<S: Into<String>>(components: impl IntoIterator<Item = S>) -> Interp {
        Interp::Expr(components.into_iter().map(Into::into).collect())
    }
}

/// One key of a track.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// Frame number (fractional allowed).
    pub frame: f64,
    /// Value (normalized on quaternion tracks).
    pub value: Value,
    /// How the segment to the next key is drawn.
    pub interp: Interp,
    /// Re-timing of the segment to the next key.
    pub ease: Ease,
    /// Tension, continuity and bias for `tcb` segments on either side.
    pub tcb: Tcb,
}

impl Key {
    /// A linear, un-eased key.
    #[must_use]
    pub fn new(frame: f64, value: impl Into<Value>) -> Key {
        Key {
            frame,
            value: value.into(),
            interp: Interp::Linear,
            ease: Ease::Linear,
            tcb: Tcb::ZERO,
        }
    }
}

/// Precomputed form of one segment, ready to evaluate.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SegmentForm {
    Hold,
    Lerp,
    Slerp,
    /// Cubic Hermite in u with per-u tangents.
    Hermite {
        m0: Value,
        m1: Value,
    },
    /// Cubic Bezier with the two inner control points.
    Bezier {
        c1: Value,
        c2: Value,
    },
    /// Lagrange through keys `start .. start + count`.
    Lagrange {
        start: usize,
        count: usize,
    },
    Expr(Vec<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Segment {
    pub(crate) form: SegmentForm,
    /// Normalize the result (quaternion tracks, component-wise kinds).
    pub(crate) normalize: bool,
}

/// A validated track: evaluation cannot fail (expressions may give non-finite values, which
/// [`Track::try_eval`] reports).
#[derive(Clone, Debug, PartialEq)]
pub struct Track {
    name: String,
    value_type: ValueType,
    wrap: Wrap,
    path: PathMode,
    fps: f64,
    keys: Vec<Key>,
    segments: Vec<Segment>,
    scale: f64,
    /// The cumulative arc-length table of a `path: arclength` track.
    arc: Option<ArcLengthTable>,
    /// The Blender F-curve that defines an `fcurve` track's values (see [`crate::fcurve`]).
    fcurve: Option<alloc::boxed::Box<crate::fcurve::FCurve>>,
}

/// Relative accuracy of arc-length tables and lookups: points are placed within this fraction of
/// the curve's length (the spec asks 1e-9; the margin covers the independent evaluator's own).
pub const ARCLENGTH_ACCURACY: f64 = 1e-10;

/// One segment's shape as a parametric curve (no ease): what arc length is measured on.
pub(crate) struct SegmentCurve<'a> {
    pub(crate) track: &'a Track,
    pub(crate) index: usize,
}

impl ParamCurve for SegmentCurve<'_> {
    fn dims(&self) -> usize {
        self.track.components()
    }
    fn eval(&self, u: f64, out: &mut [f64]) {
        let v = self.track.eval_segment_at(self.index, u);
        for (o, c) in out.iter_mut().zip(v.iter()) {
            *o = *c;
        }
    }
    fn derivative(&self, u: f64, out: &mut [f64]) {
        let v = self.track.segment_derivative_at(self.index, u);
        for (o, c) in out.iter_mut().zip(v.iter()) {
            *o = *c;
        }
    }
    /// A polynomial window of K keys costs K² / 4 cubics (K² multiply-adds, about 4 per unit);
    /// an expression its program's length / 16; the other kinds 1.
    fn cost(&self) -> u64 {
        match self.track.segment(self.index).map(|s| &s.form) {
            Some(SegmentForm::Lagrange { count, .. }) => (*count as u64).pow(2) / 4 + 1,
            Some(SegmentForm::Expr(_)) => {
                let key = self.track.keys.get(self.index);
                let len = match key.map(|k| &k.interp) {
                    Some(Interp::Expr(sources)) => sources.iter().map(String::len).sum::<usize>(),
                    _ => 0,
                };
                len as u64 / 16 + 1
            }
            _ => 1,
        }
    }
}

impl Track {
    /// Starts a scalar track.
    #[must_use]
    pub fn scalar(name: impl Into<String>) -> TrackBuilder {
        TrackBuilder::new(name, ValueType::Scalar)
    }
    /// Starts a vec2 track.
    #[must_use]
    pub fn vec2(name: impl Into<String>) -> TrackBuilder {
        TrackBuilder::new(name, ValueType::Vec2)
    }
    /// Starts a vec3 track.
    #[must_use]
    pub fn vec3(name: impl Into<String>) -> TrackBuilder {
        TrackBuilder::new(name, ValueType::Vec3)
    }
    /// Starts a vec4 track.
    #[must_use]
    pub fn vec4(name: impl Into<String>) -> TrackBuilder {
        TrackBuilder::new(name, ValueType::Vec4)
    }
    /// Starts a colour track (r, g, b, a).
    #[must_use]
    pub fn color(name: impl Into<String>) -> TrackBuilder {
        TrackBuilder::new(name, ValueType::Color)
    }
    /// Starts a quaternion track (x, y, z, w).
    #[must_use]
    pub fn quat(name: impl Into<String>) -> TrackBuilder {
        TrackBuilder::new(name, ValueType::Quat)
    }

    /// The track's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
    /// What it animates.
    #[must_use]
    pub fn value_type(&self) -> ValueType {
        self.value_type
    }
    /// Number of components of its values.
    #[must_use]
    pub fn components(&self) -> usize {
        self.value_type.components()
    }
    /// Its wrap.
    #[must_use]
    pub fn wrap(&self) -> Wrap {
        self.wrap
    }
    /// How motion is timed.
    #[must_use]
    pub fn path(&self) -> PathMode {
        self.path
    }
    /// Frames per second (for `time` in expressions).
    #[must_use]
    pub fn fps(&self) -> f64 {
        self.fps
    }
    /// The keys, strictly increasing in frame, quaternions normalized.
    #[must_use]
    pub fn keys(&self) -> &[Key] {
        &self.keys
    }
    /// Frame of the first key.
    #[must_use]
    pub fn first_frame(&self) -> f64 {
        self.keys.first().map_or(0.0, |k| k.frame)
    }
    /// Frame of the last key.
    #[must_use]
    pub fn last_frame(&self) -> f64 {
        self.keys.last().map_or(0.0, |k| k.frame)
    }
    /// The spec's scale: the largest absolute key component (after quaternion normalization),
    /// at least 1. Tolerances are relative to it.
    #[must_use]
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The segment that `frame` (already inside the keyed range) belongs to: the `i` with
    /// `f_i ≤ frame < f_{i+1}`; `None` at or after the last key (which gets the last value) and
    /// before the first.
    #[must_use]
    pub fn segment_index(&self, frame: f64) -> Option<usize> {
        if self.keys.len() < 2
            || frame.is_nan()
            || frame < self.first_frame()
            || frame >= self.last_frame()
        {
            return None;
        }
        // First key with a frame above `frame`, minus one.
        let above = self.keys.partition_point(|k| k.frame <= frame);
        above.checked_sub(1)
    }

    /// The value at `frame` (fractional allowed), after the wrap.
    ///
    /// Infallible; only an `expr` segment can give non-finite components (use
    /// [`Track::try_eval`] to have that reported).
    #[must_use]
    pub fn eval(&self, frame: f64) -> Value {
        if let Some(curve) = &self.fcurve {
            return Value::scalar(curve.eval(frame));
        }
        let local = self.wrap.apply(
            frame,
            self.first_frame(),
            self.last_frame() - self.first_frame(),
        );
        if let Some(table) = &self.arc {
            if self.path == PathMode::SegmentArclength {
                return crate::segment_arclength::eval(self, local, table);
            }
            return self.eval_arclength(local, table);
        }
        match self.segment_index(local) {
            Some(i) => self.eval_segment(i, local),
            None => {
                if local < self.first_frame() {
                    self.keys[0].value
                } else {
                    self.keys[self.keys.len() - 1].value
                }
            }
        }
    }

    /// The arc length s at a frame inside the keyed range (`path: arclength` tracks):
    /// s = L · e((f − f_first)/(f_last − f_first)), clamped to [0, L].
    #[must_use]
    pub fn arclength_at(&self, local: f64) -> Option<f64> {
        let (PathMode::Arclength { ease }, Some(table)) = (self.path, &self.arc) else {
            return None;
        };
        let span = self.last_frame() - self.first_frame();
        let total = table.total_length();
        if span <= 0.0 {
            return Some(0.0);
        }
        let e = ease.at_offset(local - self.first_frame(), span);
        Some((total * e).clamp(0.0, total))
    }

    /// [`arclength_at`](Self::arclength_at) for a track known to be timed by arc length (its
    /// callers dispatch on the table `assemble` builds only for `path: arclength`); 0 otherwise.
    pub(crate) fn arclength_at_known(&self, local: f64) -> f64 {
        let s = self.arclength_at(local);
        debug_assert!(s.is_some(), "arc length asked of a track timed by its keys");
        s.unwrap_or(0.0)
    }

    /// The curve's arc length L (`path: arclength` tracks only).
    #[must_use]
    pub fn arclength(&self) -> Option<f64> {
        self.arc.as_ref().map(ArcLengthTable::total_length)
    }

    /// The point at arc length `s` along the curve of a `path: arclength` track, whatever the
    /// timing: drive it with your own distance-over-time function. `s` is clamped to [0, L];
    /// 0 gives the start of the first segment, L the last key's value, and at a jump the later
    /// point (the spec's rules). `None` for tracks timed by their keys.
    #[must_use]
    pub fn at_distance(&self, s: f64) -> Option<Value> {
        let table = self.arc.as_ref()?;
        if self.keys.len() < 2 {
            return Some(self.keys[0].value);
        }
        let s = if s.is_nan() {
            0.0
        } else {
            s.clamp(0.0, table.total_length())
        };
        Some(match self.locate_arclength(table, s) {
            Some((index, u)) => self.eval_segment_at(index, u),
            None => self.keys[self.keys.len() - 1].value,
        })
    }

    /// The arc-length table of a `path: arclength` track.
    #[must_use]
    pub fn arclength_table(&self) -> Option<&ArcLengthTable> {
        self.arc.as_ref()
    }

    /// The segment and (un-eased) u at arc length `s`, by the spec's rules: s ≤ 0 is the start
    /// of the first segment, s ≥ L the end (`None`: the last key's value), and at a jump the
    /// later point.
    pub(crate) fn locate_arclength(&self, table: &ArcLengthTable, s: f64) -> Option<(usize, f64)> {
        let total = table.total_length();
        if total <= 0.0 || s <= 0.0 {
            return Some((0, 0.0));
        }
        if s >= total {
            return None;
        }
        Some(table.locate_with(
            |index| Some(SegmentCurve { track: self, index }),
            s,
            ARCLENGTH_ACCURACY,
        ))
    }

    fn eval_arclength(&self, local: f64, table: &ArcLengthTable) -> Value {
        if self.keys.len() < 2 {
            return self.keys[0].value;
        }
        let s = self.arclength_at_known(local);
        match self.locate_arclength(table, s) {
            Some((index, u)) => self.eval_segment_at(index, u),
            None => self.keys[self.keys.len() - 1].value,
        }
    }

    /// Like [`Track::eval`], but a non-finite value is an error naming the track, key and frame.
    pub fn try_eval(&self, frame: f64) -> Result<Value, EvalError> {
        let value = self.eval(frame);
        if value.is_finite() {
            return Ok(value);
        }
        let local = self.wrap.apply(
            frame,
            self.first_frame(),
            self.last_frame() - self.first_frame(),
        );
        Err(EvalError {
            track: self.name.clone(),
            key: self.segment_index(local).unwrap_or(0),
            frame,
            found: alloc::format!("{:?}", value),
        })
    }

    /// Segment `index`'s formula at `frame`, valid on the closed range `[f_i, f_{i+1}]` (at
    /// `f_{i+1}` it is the limit from inside the segment) and extrapolated outside it. No wrap.
    ///
    /// # Panics
    /// Never; an out-of-range `index` gives the nearest key's value.
    #[must_use]
    pub fn eval_segment(&self, index: usize, frame: f64) -> Value {
        let (Some(k0), Some(k1)) = (self.keys.get(index), self.keys.get(index + 1)) else {
            return self.keys.last().map_or(Value::scalar(0.0), |k| k.value);
        };
        if let Some(curve) = &self.fcurve {
            return Value::scalar(curve.eval_segment(index, frame));
        }
        let u = k0.ease.at_offset(frame - k0.frame, k1.frame - k0.frame);
        self.eval_segment_at(index, u)
    }

    /// The two keys' quaternions of segment `index` when it is a `slerp` segment between
    /// four-component values: there [`Track::eval_segment_at`] is the first at u = 0 and
    /// `quat::slerp(first, second, u)` otherwise (what a caller evaluating many frames of the
    /// segment needs, looked up once).
    #[must_use]
    pub(crate) fn slerp_keys(&self, index: usize) -> Option<([f64; 4], [f64; 4])> {
        let (segment, k0, k1) = (
            self.segments.get(index)?,
            self.keys.get(index)?,
            self.keys.get(index + 1)?,
        );
        let quats = k0.value.len() == 4 && k1.value.len() == 4;
        (matches!(segment.form, SegmentForm::Slerp) && quats)
            .then(|| (k0.value.to_array(), k1.value.to_array()))
    }

    /// Segment `index`'s shape at the (already eased) parameter `u`: 0 gives the segment's start,
    /// 1 its end (the limit from inside). No ease, no wrap; out-of-range `index` gives the last
    /// key's value.
    #[must_use]
    pub fn eval_segment_at(&self, index: usize, u: f64) -> Value {
        let (Some(segment), Some(k0), Some(k1)) = (
            self.segments.get(index),
            self.keys.get(index),
            self.keys.get(index + 1),
        ) else {
            return self.keys.last().map_or(Value::scalar(0.0), |k| k.value);
        };
        let length = k1.frame - k0.frame;
        let p0 = &k0.value;
        let p1 = &k1.value;
        if u == 0.0 && !matches!(segment.form, SegmentForm::Expr(_)) {
            // Every kind but `expr` starts at its key's value: return it as stored (a blend
            // such as Σ h_i·p_i is exact there too, but a quaternion's re-normalization could
            // move it by an ulp).
            return *p0;
        }
        let (out, magnitude) = match &segment.form {
            SegmentForm::Hold => return *p0,
            SegmentForm::Slerp => return Value::new(quat::slerp(p0.to_array(), p1.to_array(), u)),
            SegmentForm::Lerp => {
                // p0 + (p1 − p0)·u, the form that is exact at both ends.
                let mut out = Value::zeros(p0.len());
                let mut magnitude = 0.0;
                for c in 0..p0.len() {
                    let step = (p1[c] - p0[c]) * u;
                    out.as_mut_slice()[c] = p0[c] + step;
                    magnitude += math::abs(p0[c]) + math::abs(step);
                }
                (out, magnitude)
            }
            SegmentForm::Hermite { m0, m1 } => {
                let (u2, u3) = (u * u, u * u * u);
                let weights = [
                    2.0 * u3 - 3.0 * u2 + 1.0,
                    u3 - 2.0 * u2 + u,
                    -2.0 * u3 + 3.0 * u2,
                    u3 - u2,
                ];
                blend(&weights, [p0, m0, p1, m1])
            }
            SegmentForm::Bezier { c1, c2 } => {
                let v = 1.0 - u;
                let weights = [v * v * v, 3.0 * v * v * u, 3.0 * v * u * u, u * u * u];
                blend(&weights, [p0, c1, c2, p1])
            }
            SegmentForm::Lagrange { start, count } => {
                let window = self.lagrange_window(*start, *count).unwrap_or(&[]);
                lagrange(window, k0.frame + u * length, p0.len())
            }
            SegmentForm::Expr(exprs) => {
                let frame_at = k0.frame + u * length;
                let vars = ExprVars {
                    u,
                    frame: frame_at,
                    time: frame_at / self.fps,
                };
                let mut out = Value::zeros(p0.len());
                for (c, e) in exprs.iter().enumerate().take(p0.len()) {
                    out.as_mut_slice()[c] = e.eval(&vars);
                }
                // Expressions have no terms to compare with: only an exact zero cancels.
                (out, 0.0)
            }
        };
        if segment.normalize {
            normalized_blend(out, magnitude, *p0)
        } else {
            out
        }
    }

    /// d/du of segment `index`'s shape at `u` (no ease), for the component-wise kinds of
    /// vector tracks: exact for the polynomial kinds, forward-mode automatic differentiation for
    /// expressions, zero for `step`. (Rotation kinds are not spatial curves; they give zero.)
    #[must_use]
    pub fn segment_derivative_at(&self, index: usize, u: f64) -> Value {
        let (Some(segment), Some(k0), Some(k1)) = (
            self.segments.get(index),
            self.keys.get(index),
            self.keys.get(index + 1),
        ) else {
            return Value::zeros(self.components());
        };
        let length = k1.frame - k0.frame;
        let p0 = &k0.value;
        let p1 = &k1.value;
        let dims = p0.len();
        let mut out = Value::zeros(dims);
        if segment.normalize {
            return out;
        }
        match &segment.form {
            SegmentForm::Hold | SegmentForm::Slerp => {}
            SegmentForm::Lerp => {
                for c in 0..dims {
                    out.as_mut_slice()[c] = p1[c] - p0[c];
                }
            }
            SegmentForm::Hermite { m0, m1 } => {
                let u2 = u * u;
                let (d00, d10, d01, d11) = (
                    6.0 * u2 - 6.0 * u,
                    3.0 * u2 - 4.0 * u + 1.0,
                    -6.0 * u2 + 6.0 * u,
                    3.0 * u2 - 2.0 * u,
                );
                for c in 0..dims {
                    out.as_mut_slice()[c] = d00 * p0[c] + d10 * m0[c] + d01 * p1[c] + d11 * m1[c];
                }
            }
            SegmentForm::Bezier { c1, c2 } => {
                let v = 1.0 - u;
                for c in 0..dims {
                    out.as_mut_slice()[c] = 3.0 * v * v * (c1[c] - p0[c])
                        + 6.0 * v * u * (c2[c] - c1[c])
                        + 3.0 * u * u * (p1[c] - c2[c]);
                }
            }
            SegmentForm::Lagrange { start, count } => {
                let x = k0.frame + u * length;
                let window = self.lagrange_window(*start, *count).unwrap_or(&[]);
                lagrange_derivative(window, x, length, &mut out);
            }
            SegmentForm::Expr(exprs) => {
                let frame_at = k0.frame + u * length;
                let vars = ExprVars {
                    u,
                    frame: frame_at,
                    time: frame_at / self.fps,
                };
                let rates = ExprVars {
                    u: 1.0,
                    frame: length,
                    time: length / self.fps,
                };
                for (c, e) in exprs.iter().enumerate().take(dims) {
                    out.as_mut_slice()[c] = e.eval_with_derivative(&vars, &rates).1;
                }
            }
        }
        out
    }

    /// The keys `start .. start + count` of a `polynomial` segment's Lagrange window; `None`
    /// cannot happen, as `assemble` places every window inside the keys (start ≤ n − count).
    pub(crate) fn lagrange_window(&self, start: usize, count: usize) -> Option<&[Key]> {
        let window = start
            .checked_add(count)
            .and_then(|end| self.keys.get(start..end));
        debug_assert!(
            window.is_some(),
            "Lagrange window {start}+{count} outside the keys"
        );
        window
    }

    /// Writes the value at `frame` into `out[..components()]` (see [`Track::eval`]).
    pub fn eval_into(&self, frame: f64, out: &mut [f64]) {
        let v = self.eval(frame);
        for (o, c) in out.iter_mut().zip(v.iter()) {
            *o = *c;
        }
    }

    /// The Blender F-curve of an `fcurve` track (its keys with handles placed, extrapolation
    /// and cycles); `None` for other tracks.
    #[must_use]
    pub fn fcurve(&self) -> Option<&crate::fcurve::FCurve> {
        self.fcurve.as_deref()
    }

    pub(crate) fn with_fcurve(mut self, curve: alloc::boxed::Box<crate::fcurve::FCurve>) -> Track {
        self.fcurve = Some(curve);
        self
    }

    pub(crate) fn segment(&self, index: usize) -> Option<&Segment> {
        self.segments.get(index)
    }

    /// The segment kinds this track uses (each name once, in order of first use).
    #[must_use]
    pub fn kinds_used(&self) -> Vec<&'static str> {
        if let Some(curve) = &self.fcurve {
            return curve.kinds_used();
        }
        let segments = self.keys.len().saturating_sub(1);
        distinct_names(self.keys.iter().take(segments).map(|k| k.interp.name()))
    }

    /// The eases this track's segments use, by name (each once).
    #[must_use]
    pub fn eases_used(&self) -> Vec<String> {
        let mut eases: Vec<String> = Vec::new();
        for key in self.keys.iter().take(self.keys.len().saturating_sub(1)) {
            let name = key.ease.name();
            if !eases.contains(&name) {
                eases.push(name);
            }
        }
        eases
    }
}

/// Builds a [`Track`] in code; [`TrackBuilder::build`] validates it exactly as a loaded document.
///
/// Methods that describe a key (`interp`, `ease`, `tcb`, `hermite`, ...) apply to the key added
/// last.
///
/// ```
/// use inbetween::{Track, Interp, Ease};
/// let ball = Track::vec2("ball")
///     .key(0.0, [0.0, 0.0]).interp(Interp::Tcb).tcb(0.5, 0.0, 0.0)
///     .key(30.0, [100.0, 50.0]).interp(Interp::Tcb)
///     .key(60.0, [200.0, 0.0])
///     .build()
///     .unwrap();
/// assert_eq!(ball.eval(30.0).as_slice(), &[100.0, 50.0]);
/// ```
#[derive(Clone, Debug)]
pub struct TrackBuilder {
    pub(crate) name: String,
    pub(crate) value_type: ValueType,
    pub(crate) wrap: Wrap,
    pub(crate) arclength: bool,
    /// `path: "segment_arclength"` (see [`PathMode::SegmentArclength`]).
    pub(crate) segment_arclength: bool,
    pub(crate) track_ease: Option<Ease>,
    pub(crate) fps: f64,
    pub(crate) keys: Vec<RawKey>,
    /// The keys and options of an F-curve track (used instead of `keys`).
    pub(crate) fcurve: Option<crate::fcurve::RawFCurve>,
}

/// A key before validation: values as plain numbers of any length.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RawKey {
    pub(crate) frame: f64,
    pub(crate) value: Vec<f64>,
    pub(crate) interp: RawInterp,
    pub(crate) ease: Ease,
    pub(crate) tcb: [f64; 3],
}

/// An interp before validation.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RawInterp {
    Plain(Interp),
    Hermite { out: Vec<f64>, r#in: Vec<f64> },
    Bezier { out: Vec<f64>, r#in: Vec<f64> },
}

impl TrackBuilder {
    /// A track with no keys yet.
    #[must_use]
    pub fn new(name: impl Into<String>, value_type: ValueType) -> TrackBuilder {
        TrackBuilder {
            name: name.into(),
            value_type,
            wrap: Wrap::Clamp,
            arclength: false,
            segment_arclength: false,
            track_ease: None,
            fps: DEFAULT_FPS,
            keys: Vec::new(),
            fcurve: None,
        }
    }

    /// Adds a linear key at `frame`.
    #[must_use]
    pub fn key(mut self, frame: f64, value: impl Into<Value>) -> Self {
        self.keys.push(RawKey {
            frame,
            value: value.into().as_slice().to_vec(),
            interp: RawInterp::Plain(Interp::Linear),
            ease: Ease::Linear,
            tcb: [0.0; 3],
        });
        self
    }

    /// Adds a key from raw numbers (any length; checked by `build`).
    #[must_use]
    pub fn key_slice(mut self, frame: f64, value: &[f64]) -> Self {
        self.keys.push(RawKey {
            frame,
            value: value.to_vec(),
            interp: RawInterp::Plain(Interp::Linear),
            ease: Ease::Linear,
            tcb: [0.0; 3],
        });
        self
    }

    fn last_key(&mut self) -> Option<&mut RawKey> {
        self.keys.last_mut()
    }

    /// Sets the last key's segment kind.
    #[must_use]
    pub fn interp(mut self, interp: Interp) -> Self {
        if let Some(k) = self.last_key() {
            k.interp = match interp {
                Interp::Hermite { out, r#in } => RawInterp::Hermite {
                    out: out.as_slice().to_vec(),
                    r#in: r#in.as_slice().to_vec(),
                },
                Interp::Bezier { out, r#in } => RawInterp::Bezier {
                    out: out.as_slice().to_vec(),
                    r#in: r#in.as_slice().to_vec(),
                },
                other => RawInterp::Plain(other),
            };
        }
        self
    }

    /// The last key's segment becomes a cubic Hermite with slopes per frame.
    #[must_use]
    pub fn hermite(self, out: impl Into<Value>, r#in: impl Into<Value>) -> Self {
        self.interp(Interp::hermite(out, r#in))
    }

    /// The last key's segment becomes a cubic Bezier with absolute control points.
    #[must_use]
    pub fn bezier(self, out: impl Into<Value>, r#in: impl Into<Value>) -> Self {
        self.interp(Interp::bezier(out, r#in))
    }

    /// The last key's segment becomes an expression per component.
    #[must_use]
    pub fn expr<S: Into<String>>(self, components: impl IntoIterator<Item = S>) -> Self {
        self.interp(Interp::expr(components))
    }

    /// Sets the last key's ease.
    #[must_use]
    pub fn ease(mut self, ease: Ease) -> Self {
        if let Some(k) = self.last_key() {
            k.ease = ease;
        }
        self
    }

    /// Sets the last key's tension, continuity and bias.
    #[must_use]
    pub fn tcb(mut self, tension: f64, continuity: f64, bias: f64) -> Self {
        if let Some(k) = self.last_key() {
            k.tcb = [tension, continuity, bias];
        }
        self
    }

    /// Sets the wrap.
    #[must_use]
    pub fn wrap(mut self, wrap: Wrap) -> Self {
        self.wrap = wrap;
        self
    }

    /// Times the motion by arc length with `ease` as the speed curve (vec2 and vec3 only).
    #[must_use]
    pub fn arclength(mut self, ease: Ease) -> Self {
        self.arclength = true;
        self.track_ease = Some(ease);
        self
    }

    /// Times each segment by its own arc length, its key's ease mapping time to distance
    /// (vec2 and vec3 only; [`PathMode::SegmentArclength`]).
    #[must_use]
    pub fn segment_arclength(mut self) -> Self {
        self.segment_arclength = true;
        self
    }

    /// Makes this a Blender F-curve track (scalar only) of `keys`, with `extrapolation` before
    /// and after them and an optional Cycles modifier; keys added with `key` are not used.
    #[must_use]
    pub fn fcurve(
        mut self,
        keys: Vec<crate::fcurve::FKey>,
        extrapolation: [crate::fcurve::Extrapolation; 2],
        cycles: Option<crate::fcurve::Cycles>,
    ) -> Self {
        self.fcurve = Some(crate::fcurve::RawFCurve {
            keys,
            extrapolation,
            cycles,
            smoothing: crate::fcurve::AutoSmoothing::None,
        });
        self
    }

    /// Frames per second, for `time` in expressions (default 60; a document sets its own).
    #[must_use]
    pub fn fps(mut self, fps: f64) -> Self {
        self.fps = fps;
        self
    }
}

/// Assembles a validated track; used by the validator.
pub(crate) fn assemble(
    name: String,
    value_type: ValueType,
    wrap: Wrap,
    path: PathMode,
    fps: f64,
    keys: Vec<Key>,
    mut exprs: Vec<Vec<Expr>>,
) -> Track {
    let is_quat = value_type == ValueType::Quat;
    let n = keys.len();
    let segments = (0..n.saturating_sub(1))
        .map(|i| {
            let key = &keys[i];
            let (form, normalize) = match &key.interp {
                Interp::Step => (SegmentForm::Hold, false),
                Interp::Linear if is_quat => (SegmentForm::Slerp, false),
                Interp::Linear => (SegmentForm::Lerp, false),
                Interp::Slerp => (SegmentForm::Slerp, false),
                Interp::Hermite { out, r#in } => {
                    let len = keys[i + 1].frame - key.frame;
                    let mut m0 = *out;
                    let mut m1 = *r#in;
                    m0.as_mut_slice().iter_mut().for_each(|c| *c *= len);
                    m1.as_mut_slice().iter_mut().for_each(|c| *c *= len);
                    (SegmentForm::Hermite { m0, m1 }, is_quat)
                }
                Interp::Bezier { out, r#in } => (
                    SegmentForm::Bezier {
                        c1: *out,
                        c2: *r#in,
                    },
                    is_quat,
                ),
                Interp::CatmullRom => {
                    let m0 = kb_tangent(&keys, i, Tcb::ZERO, Side::Outgoing);
                    let m1 = kb_tangent(&keys, i + 1, Tcb::ZERO, Side::Incoming);
                    (SegmentForm::Hermite { m0, m1 }, is_quat)
                }
                Interp::Tcb => {
                    let m0 = kb_tangent(&keys, i, keys[i].tcb, Side::Outgoing);
                    let m1 = kb_tangent(&keys, i + 1, keys[i + 1].tcb, Side::Incoming);
                    (SegmentForm::Hermite { m0, m1 }, is_quat)
                }
                Interp::Polynomial { keys: count } => {
                    let count = (*count).clamp(1, n);
                    let start = i.saturating_sub(count.saturating_sub(2) / 2).min(n - count);
                    (SegmentForm::Lagrange { start, count }, is_quat)
                }
                Interp::Expr(_) => {
                    let parsed = exprs.get_mut(i).map(core::mem::take).unwrap_or_default();
                    (SegmentForm::Expr(parsed), is_quat)
                }
            };
            Segment { form, normalize }
        })
        .collect();
    let scale = keys.iter().fold(1.0_f64, |m, k| m.max(k.value.max_abs()));
    Track {
        name,
        value_type,
        wrap,
        path,
        fps,
        keys,
        segments,
        scale,
        arc: None,
        fcurve: None,
    }
}

/// Measures an arclength track's curve once; other tracks are returned unchanged.
pub(crate) fn with_arclength(mut track: Track) -> Result<Track, crate::arclength::ArcLengthError> {
    if let PathMode::Arclength { .. } | PathMode::SegmentArclength = track.path {
        let table = {
            let curves: Vec<SegmentCurve<'_>> = (0..track.segments.len())
                .map(|index| SegmentCurve {
                    track: &track,
                    index,
                })
                .collect();
            let refs: Vec<&dyn ParamCurve> = curves.iter().map(|c| c as &dyn ParamCurve).collect();
            ArcLengthTable::build(&refs, ARCLENGTH_ACCURACY)?
        };
        track.arc = Some(table);
    }
    Ok(track)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// DS: the tangent arriving at the key (used by the segment that ends there).
    Incoming,
    /// DD: the tangent leaving the key (used by the segment that starts there).
    Outgoing,
}

/// Kochanek–Bartels (1984) tangent at key `i`, per-segment (u) units, adjusted for uneven spacing:
///
/// ```text
/// DS_i = (1−t)(1+b)(1−c)/2 · (p_i − p_{i−1}) + (1−t)(1−b)(1+c)/2 · (p_{i+1} − p_i)   · 2N_{i−1}/(N_{i−1}+N_i)
/// DD_i = (1−t)(1+b)(1+c)/2 · (p_i − p_{i−1}) + (1−t)(1−b)(1−c)/2 · (p_{i+1} − p_i)   · 2N_i/(N_{i−1}+N_i)
/// ```
///
/// At the first and last key the missing neighbour is the reflection of the present one
/// (`p_{−1} = 2p_0 − p_1`) and the missing segment length equals the present one.
fn kb_tangent(keys: &[Key], i: usize, tcb: Tcb, side: Side) -> Value {
    let n = keys.len();
    let p = &keys[i].value;
    let dims = p.len();
    let mut before = [0.0; MAX_COMPONENTS];
    let mut after = [0.0; MAX_COMPONENTS];
    let (len_before, len_after);
    if n < 2 {
        return Value::zeros(dims);
    }
    if i == 0 {
        let next = &keys[1];
        for c in 0..dims {
            after[c] = next.value[c] - p[c];
            before[c] = after[c];
        }
        len_after = next.frame - keys[0].frame;
        len_before = len_after;
    } else if i == n - 1 {
        let prev = &keys[i - 1];
        for c in 0..dims {
            before[c] = p[c] - prev.value[c];
            after[c] = before[c];
        }
        len_before = keys[i].frame - prev.frame;
        len_after = len_before;
    } else {
        let prev = &keys[i - 1];
        let next = &keys[i + 1];
        for c in 0..dims {
            before[c] = p[c] - prev.value[c];
            after[c] = next.value[c] - p[c];
        }
        len_before = keys[i].frame - prev.frame;
        len_after = next.frame - keys[i].frame;
    }
    let Tcb {
        tension: t,
        continuity: c,
        bias: b,
    } = tcb;
    let (w_before, w_after, adjust) = match side {
        Side::Incoming => (
            (1.0 - t) * (1.0 + b) * (1.0 - c) / 2.0,
            (1.0 - t) * (1.0 - b) * (1.0 + c) / 2.0,
            2.0 * len_before / (len_before + len_after),
        ),
        Side::Outgoing => (
            (1.0 - t) * (1.0 + b) * (1.0 + c) / 2.0,
            (1.0 - t) * (1.0 - b) * (1.0 - c) / 2.0,
            2.0 * len_after / (len_before + len_after),
        ),
    };
    let mut out = Value::zeros(dims);
    for k in 0..dims {
        out.as_mut_slice()[k] = (w_before * before[k] + w_after * after[k]) * adjust;
    }
    out
}

/// `names` in first-seen order, each once (segment kinds, eases: a handful, so a linear search).
pub(crate) fn distinct_names(names: impl Iterator<Item = &'static str>) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for name in names {
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// Σ wᵢ·pᵢ per component over four weighted points, with Σ |wᵢ·pᵢ| over every term and component
/// (the size of the rounding left where a blend cancels; see [`normalized_blend`]).
fn blend(weights: &[f64; 4], points: [&Value; 4]) -> (Value, f64) {
    let mut out = Value::zeros(points[0].len());
    let mut magnitude = 0.0;
    for (c, slot) in out.as_mut_slice().iter_mut().enumerate() {
        let terms: [f64; 4] = core::array::from_fn(|i| weights[i] * points[i][c]);
        *slot = terms[0] + terms[1] + terms[2] + terms[3];
        magnitude += terms.iter().map(|t| math::abs(*t)).sum::<f64>();
    }
    (out, magnitude)
}

/// The Lagrange polynomial through `window`'s keys at frame `x`, with Σ |term|.
fn lagrange(window: &[Key], x: f64, dims: usize) -> (Value, f64) {
    let mut out = Value::zeros(dims);
    let mut magnitude = 0.0;
    for (j, kj) in window.iter().enumerate() {
        let mut basis = 1.0;
        for (m, km) in window.iter().enumerate() {
            if m != j {
                basis *= (x - km.frame) / (kj.frame - km.frame);
            }
        }
        for c in 0..dims {
            out.as_mut_slice()[c] += basis * kj.value[c];
            magnitude += math::abs(basis * kj.value[c]);
        }
    }
    (out, magnitude)
}

/// Adds d/du of the Lagrange polynomial through `window` at frame `x` to `out`, for a segment
/// `length` frames long: d/du = N · Σ_j p_j · L_j'(x), L_j(x) = Π_{m≠j} (x − x_m)/(x_j − x_m).
/// The product and its derivative are carried together, (v, d) ← (v·f, d·f + v·f'), so each
/// basis costs O(K) and the whole O(K²), exact at the keys too.
fn lagrange_derivative(window: &[Key], x: f64, length: f64, out: &mut Value) {
    for (j, kj) in window.iter().enumerate() {
        let (mut value, mut slope) = (1.0, 0.0);
        for (m, km) in window.iter().enumerate() {
            if m != j {
                let scale = 1.0 / (kj.frame - km.frame);
                let factor = (x - km.frame) * scale;
                slope = slope * factor + value * scale;
                value *= factor;
            }
        }
        for c in 0..out.len() {
            out.as_mut_slice()[c] += length * slope * kj.value[c];
        }
    }
}

/// A component-wise quaternion blend normalized. A blend whose length is within rounding of
/// its terms' sizes (16 ulp of `magnitude` = Σ |term|) is a cancellation to zero: its direction
/// is noise, so it counts as zero, like an exact zero, and the segment's start rotation `start`
/// holds (the same rotation as any q and −q pair).
fn normalized_blend(out: Value, magnitude: f64, start: Value) -> Value {
    let length_squared: f64 = out.iter().map(|x| x * x).sum();
    let cancelled = math::sqrt(length_squared) <= 16.0 * f64::EPSILON * magnitude;
    if cancelled && out.is_finite() {
        return start;
    }
    match quat::normalize(out.to_array()) {
        Some(q) => Value::new(q),
        None if out.is_finite() => start,
        None => out,
    }
}
