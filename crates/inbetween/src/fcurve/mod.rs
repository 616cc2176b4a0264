//! Blender's F-curve model: keys with 2-D handles and handle types, easing keys, extrapolation and cycles.
//!
//! A curve is built from [`FKey`]s (frame, value, how the segment after the key is drawn, a
//! handle on each side with its [`HandleType`]); [`FCurve::new`] places the handles of the
//! `auto`, `auto_clamped`, `vector` and `aligned` types as Blender 3.4 does, and [`FCurve::eval`]
//! evaluates at any frame with Blender's extrapolation and Cycles modifier. Everything is in f64;
//! Blender stores and evaluates in f32 (see docs/blender.md for each difference).

mod bezier;
mod cycles;
mod easing;
mod handles;
#[cfg(feature = "json")]
pub(crate) mod json;
mod smooth;
mod source;
pub(crate) mod validate;

use alloc::vec::Vec;

pub use bezier::{solve_time, BEZIER_TIME_TOLERANCE};
pub use cycles::{CycleMode, Cycles};
pub use easing::{EasingMode, EasingType};

/// How a handle is placed (Blender's handle types).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HandleType {
    /// Kept where the document puts it.
    Free,
    /// Kept where the document puts it, but turned to continue the other handle's direction when
    /// the other handle is placed automatically.
    Aligned,
    /// One third of the way to the neighbouring key (a corner).
    Vector,
    /// A smooth tangent from both neighbours.
    Auto,
    /// `Auto`, but flat at extremes and never past the neighbours' values.
    #[default]
    AutoClamped,
}

impl HandleType {
    /// Every handle type.
    pub const ALL: [HandleType; 5] = [
        HandleType::Free,
        HandleType::Aligned,
        HandleType::Vector,
        HandleType::Auto,
        HandleType::AutoClamped,
    ];

    /// The document name: `free`, `aligned`, `vector`, `auto`, `auto_clamped`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            HandleType::Free => "free",
            HandleType::Aligned => "aligned",
            HandleType::Vector => "vector",
            HandleType::Auto => "auto",
            HandleType::AutoClamped => "auto_clamped",
        }
    }

    /// Parses a document name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<HandleType> {
        HandleType::ALL.into_iter().find(|h| h.name() == name)
    }

    fn is_auto(self) -> bool {
        matches!(self, HandleType::Auto | HandleType::AutoClamped)
    }
}

/// How the segment from a key to the next one is drawn (Blender's key interpolation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FInterp {
    /// Hold the key's value (Blender's `CONSTANT`).
    Constant,
    /// Straight line to the next key.
    Linear,
    /// The 2-D cubic through the key, its right handle, the next key's left handle and the next
    /// key, solved for time first.
    Bezier,
    /// One of Blender's easing formulas from this key's value to the next one's.
    Easing {
        /// The formula.
        kind: EasingType,
        /// Which end it eases (`Auto` is `Out` for back, bounce and elastic, `In` for the rest).
        mode: EasingMode,
    },
}

impl FInterp {
    /// The document name of the segment kind: `step`, `linear`, `bezier_2d`, `easing`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            FInterp::Constant => "step",
            FInterp::Linear => "linear",
            FInterp::Bezier => "bezier_2d",
            FInterp::Easing { .. } => "easing",
        }
    }
}

/// Frames within which a frame strictly between the first and last key gets a key's own value
/// (Blender's key search tolerance; measured with Blender 3.4: 1e-4 past a key snaps to it, 1.001e-4 does not).
pub const KEY_SNAP: f64 = 1e-4;

/// Blender's default `back` overshoot of a key.
pub const DEFAULT_BACK: f64 = 1.70158;
/// Blender's default elastic `amplitude` of a key.
pub const DEFAULT_AMPLITUDE: f64 = 0.8;
/// Blender's default elastic `period` of a key, in frames.
pub const DEFAULT_PERIOD: f64 = 4.1;

/// One key of an F-curve. Handles are absolute `[frame, value]` points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FKey {
    /// Frame of the key.
    pub frame: f64,
    /// Value at the key.
    pub value: f64,
    /// The segment from this key to the next.
    pub interp: FInterp,
    /// The handle before the key.
    pub left: [f64; 2],
    /// The handle after the key.
    pub right: [f64; 2],
    /// How the left handle is placed.
    pub left_type: HandleType,
    /// How the right handle is placed.
    pub right_type: HandleType,
    /// Overshoot of a `back` easing segment starting here.
    pub back: f64,
    /// Amplitude of an `elastic` easing segment starting here (value units; 0 = none).
    pub amplitude: f64,
    /// Period of an `elastic` easing segment starting here, in frames (0 = 0.3 × the segment).
    pub period: f64,
}

impl FKey {
    /// A Bezier key with auto-clamped handles (Blender's default for a new key); the handles
    /// are placed by [`FCurve::new`].
    #[must_use]
    pub fn new(frame: f64, value: f64) -> FKey {
        FKey {
            frame,
            value,
            interp: FInterp::Bezier,
            left: [frame, value],
            right: [frame, value],
            left_type: HandleType::AutoClamped,
            right_type: HandleType::AutoClamped,
            back: DEFAULT_BACK,
            amplitude: DEFAULT_AMPLITUDE,
            period: DEFAULT_PERIOD,
        }
    }
}

/// What frames outside the keys get (before cycles apply): Blender's F-curve extrapolation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Extrapolation {
    /// Hold the end key's value.
    #[default]
    Constant,
    /// Continue straight: along the end handle for a Bezier or easing end key, along the chord
    /// to the neighbouring key for a linear one (a constant end key holds).
    Linear,
}

impl Extrapolation {
    /// The document name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Extrapolation::Constant => "constant",
            Extrapolation::Linear => "linear",
        }
    }

    /// Parses a document name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Extrapolation> {
        [Extrapolation::Constant, Extrapolation::Linear]
            .into_iter()
            .find(|e| e.name() == name)
    }
}

/// How auto handles are placed along the whole curve (Blender's F-curve "Auto Handle
/// Smoothing").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AutoSmoothing {
    /// Each key's auto handles from its two neighbours alone (document name `none`).
    #[default]
    None,
    /// "Continuous Acceleration" (`cont_accel`): auto handles a third of the key spacing long,
    /// their values solved together so the second derivative is continuous at every key.
    ContAccel,
}

impl AutoSmoothing {
    /// The document name: `none`, `cont_accel`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            AutoSmoothing::None => "none",
            AutoSmoothing::ContAccel => "cont_accel",
        }
    }

    /// Parses a document name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<AutoSmoothing> {
        [AutoSmoothing::None, AutoSmoothing::ContAccel]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

/// A validated F-curve: keys strictly increasing in frame, handles placed.
#[derive(Clone, Debug, PartialEq)]
pub struct FCurve {
    keys: Vec<FKey>,
    extrapolation: [Extrapolation; 2],
    cycles: Option<Cycles>,
    smoothing: AutoSmoothing,
}

impl FCurve {
    /// Places the handles of `keys` (strictly increasing finite frames, at least one key) the way
    /// Blender's handle recalculation does, with `extrapolation` before and after the keys and an
    /// optional Cycles modifier.
    #[must_use]
    pub fn new(
        keys: Vec<FKey>,
        extrapolation: [Extrapolation; 2],
        cycles: Option<Cycles>,
    ) -> FCurve {
        FCurve::with_smoothing(keys, extrapolation, cycles, AutoSmoothing::None)
    }

    /// [`FCurve::new`] with Blender's auto handle smoothing `smoothing`.
    #[must_use]
    pub fn with_smoothing(
        mut keys: Vec<FKey>,
        extrapolation: [Extrapolation; 2],
        cycles: Option<Cycles>,
        smoothing: AutoSmoothing,
    ) -> FCurve {
        let cyclic = cycles.is_some_and(|c| c.makes_handles_cyclic());
        handles::place_handles(&mut keys, extrapolation, cyclic, smoothing);
        FCurve {
            keys,
            extrapolation,
            cycles,
            smoothing,
        }
    }

    /// The auto handle smoothing the handles were placed with.
    #[must_use]
    pub fn smoothing(&self) -> AutoSmoothing {
        self.smoothing
    }

    /// The keys with their handles placed.
    #[must_use]
    pub fn keys(&self) -> &[FKey] {
        &self.keys
    }

    /// Extrapolation before the first key and after the last.
    #[must_use]
    pub fn extrapolation(&self) -> [Extrapolation; 2] {
        self.extrapolation
    }

    /// The Cycles modifier, if any.
    #[must_use]
    pub fn cycles(&self) -> Option<Cycles> {
        self.cycles
    }

    /// The value at `frame`: cycles map the frame (and add an offset per cycle for
    /// `repeat_offset`), then the keys are evaluated, extrapolating outside them.
    #[must_use]
    pub fn eval(&self, frame: f64) -> f64 {
        let (first, last) = match (self.keys.first(), self.keys.last()) {
            (Some(a), Some(b)) => (a, b),
            _ => return 0.0,
        };
        let (local, offset) = match self.cycles {
            Some(c) => c.map(frame, [first.frame, first.value], [last.frame, last.value]),
            None => (frame, 0.0),
        };
        self.eval_keys(local) + offset
    }

    /// The keys alone at `frame` (no cycles): extrapolation outside, segments inside, and a
    /// key's own value within [`KEY_SNAP`] frames of it (Blender's rule).
    #[must_use]
    pub fn eval_keys(&self, frame: f64) -> f64 {
        self.eval_keys_with(frame, KEY_SNAP)
    }

    /// [`FCurve::eval_keys`] with the key values only at the keys' exact frames: the segments'
    /// own formulas (compiled streams play [`FCurve::eval_keys`], snapped, since session 13).
    #[must_use]
    pub fn eval_keys_unsnapped(&self, frame: f64) -> f64 {
        self.eval_keys_with(frame, 0.0)
    }

    fn eval_keys_with(&self, frame: f64, snap: f64) -> f64 {
        let n = self.keys.len();
        if n < 2 {
            return self.extrapolate(0, frame <= self.keys[0].frame, frame);
        }
        let (first, last) = (&self.keys[0], &self.keys[n - 1]);
        if frame <= first.frame {
            return self.extrapolate(0, true, frame);
        }
        if frame >= last.frame {
            return self.extrapolate(n - 1, false, frame);
        }
        let above = self.keys.partition_point(|k| k.frame <= frame);
        let i = above.saturating_sub(1);
        if frame - self.keys[i].frame <= snap {
            return self.keys[i].value;
        }
        if self.keys[i + 1].frame - frame <= snap {
            return self.keys[i + 1].value;
        }
        self.eval_segment(i, frame)
    }

    /// Segment `index` (from key `index` to the next) at `frame` in its closed range.
    #[must_use]
    pub fn eval_segment(&self, index: usize, frame: f64) -> f64 {
        let (Some(k0), Some(k1)) = (self.keys.get(index), self.keys.get(index + 1)) else {
            return self.keys.last().map_or(0.0, |k| k.value);
        };
        let duration = k1.frame - k0.frame;
        if duration <= 0.0 {
            return k0.value;
        }
        let t = frame - k0.frame;
        match k0.interp {
            FInterp::Constant => k0.value,
            FInterp::Linear => k0.value + (k1.value - k0.value) * (t / duration),
            FInterp::Bezier => bezier::eval(k0, k1, frame),
            FInterp::Easing { kind, mode } => {
                let params = easing::Params {
                    back: k0.back,
                    amplitude: k0.amplitude,
                    period: k0.period,
                    t,
                    begin: k0.value,
                    change: k1.value - k0.value,
                    duration,
                };
                easing::ease(kind, mode, params)
            }
        }
    }

    /// Outside the keys, from end key `index` (0 `before` the keys, the last after them).
    fn extrapolate(&self, index: usize, before: bool, frame: f64) -> f64 {
        let key = &self.keys[index];
        let slope = self.extrapolation_slope(!before);
        if slope == 0.0 {
            return key.value;
        }
        key.value + slope * (frame - key.frame)
    }

    /// The slope (value units per frame) of the extrapolation after the keys (`after`) or before
    /// them: 0 for `constant` or a `step` end key, the chord to the neighbouring key for a
    /// `linear` one, the end key's outer handle otherwise (0 when it has no frame length).
    #[must_use]
    pub fn extrapolation_slope(&self, after: bool) -> f64 {
        let n = self.keys.len();
        let index = if after { n - 1 } else { 0 };
        let key = &self.keys[index];
        let mode = self.extrapolation[usize::from(after)];
        if mode == Extrapolation::Constant || key.interp == FInterp::Constant {
            return 0.0;
        }
        if key.interp == FInterp::Linear {
            let neighbour = if after {
                index.checked_sub(1).and_then(|j| self.keys.get(j))
            } else {
                self.keys.get(1)
            };
            return match neighbour {
                Some(nb) if nb.frame != key.frame => {
                    (nb.value - key.value) / (nb.frame - key.frame)
                }
                _ => 0.0,
            };
        }
        let handle = if after { key.right } else { key.left };
        let run = key.frame - handle[0];
        if run == 0.0 {
            return 0.0;
        }
        (key.value - handle[1]) / run
    }
}

/// An F-curve track's keys and options before validation.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RawFCurve {
    pub(crate) keys: Vec<FKey>,
    pub(crate) extrapolation: [Extrapolation; 2],
    pub(crate) cycles: Option<Cycles>,
    pub(crate) smoothing: AutoSmoothing,
}

impl FCurve {
    /// The segment kinds the keys use, by document name, each once (`step`, `linear`,
    /// `bezier_2d`, `easing`).
    #[must_use]
    pub fn kinds_used(&self) -> Vec<&'static str> {
        let segments = self.keys.len().saturating_sub(1);
        crate::track::distinct_names(self.keys.iter().take(segments).map(|k| k.interp.name()))
    }
}

/// Writes a compiled F-curve value into the compiler's buffer (a non-finite one is an error at
/// `frame`; validated curves only produce one from overflowing numbers).
pub(crate) fn write_value(
    value: f64,
    frame: f64,
    out: &mut [f64],
) -> Result<(), crate::compile::source::NonFiniteValue> {
    if let Some(slot) = out.first_mut() {
        *slot = value;
    }
    if value.is_finite() {
        Ok(())
    } else {
        Err(crate::compile::source::NonFiniteValue { frame, key: 0 })
    }
}
