//! Playing a stream: a caller-owned cursor per track that seeks in O(log pieces + degree²) and advances with `degree` additions per component.
//!
//! # How a frame is played
//!
//! A piece stores, per component, the forward differences `D_k = Δ^k p(o)` (step 1 frame) at its
//! origin `o`. The cursor holds a state `W_0..W_n` = the differences at the current position
//! with the current step `d` (frames per `advance`); `advance` does `W_i += W_{i+1}` for
//! i in 0..n, after which `W_0` is the value one step later. Entering a piece at position `w`
//! (once per piece, or per wrap fold):
//!
//! 1. shift to offset `t = w − o` with the Newton form and generalized binomials,
//!    `W_k = Σ_{j≥k} C(t, j−k) · D_j` — O(n²);
//! 2. if `d ≠ 1`, convert to step `d`: `Δ_d = E^d − 1 = Σ_{i≥1} C(d, i) Δ^i`, so
//!    `Δ_d^k = (Σ_{i≥1} C(d, i) Δ^i)^k`, a power series truncated at degree n — O(n³), only on
//!    rate changes or backward play (`d = −1` gives integer coefficients).
//!
//! Frames outside `[first, last]` are wrapped per track (`StreamWrap`); inside a ping-pong fold the
//! local step is `−d`. The number of steps a state stays valid is computed when it is entered and
//! checked against the wrap mapping of the actual positions, so a piece boundary or a fold
//! is never played from the wrong polynomial.
//!
//! # Precision
//!
//! - `F64` and `F32` tracks play an f64 state (f32 numbers are widened; see `Precision`).
//! - `Fixed` tracks at whole-frame steps (`d = ±1`) and whole-frame offsets play an i64 state with
//!   wrapping additions: the integers are exactly those the compiler verified (bit-exact on every
//!   platform, whichever frame playback started from). At fractional offsets or other steps they
//!   play an f64 state derived from the stored integers.
//!
//! Quaternion tracks with the normalize flag (`StreamTrack::normalizes`) are played
//! component-wise and then divided by their norm (`math::normalize4`, in f64 for every
//! precision: fixed tracks' integers are converted exactly first); the compiler fitted them so
//! that the *normalized* value is within the tolerance. Unflagged quaternion tracks are played
//! component-wise without normalization (the compiler fitted the normalized curve itself).

use crate::stream::cursor::PieceCursor;
use crate::stream::layout::{MAX_COMPONENTS, MAX_DEGREE, MAX_TERMS};
use crate::stream::outside::{Landing, Outside};
use crate::stream::{Piece, Precision, Stream, StreamTrack, StreamWrap};

/// Size of a cursor's state: (degree 8 + 1) numbers × 4 components.
pub const STATE_SIZE: usize = MAX_TERMS * MAX_COMPONENTS;

/// A request the player refuses (a stream that passed validation never causes one).
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum PlayerError {
    /// `seek` to NaN or an infinity.
    #[error("cannot seek to frame {frame}: not finite")]
    NonFiniteFrame {
        /// The frame asked for.
        frame: f64,
    },
    /// `set_step` with 0, NaN or an infinity.
    #[error("cannot play with a step of {step} frames: expected a finite non-zero number")]
    InvalidStep {
        /// The step asked for.
        step: f64,
    },
    /// Fewer cursor slots than tracks.
    #[error("the stream has {needed} tracks but only {found} cursor slots were given")]
    TooFewSlots {
        /// Tracks in the stream.
        needed: usize,
        /// Slots given.
        found: usize,
    },
}

/// A cursor's state for one component: `W_0..=W_n` as floats, or as integers with the scale
/// `2^-exponent` of the current fixed piece ([`TrackPlayer::raw_state`]). Until the run ends
/// ([`TrackPlayer::run_left`]) each `advance` does `W_i += W_{i+1}` for i in 0..n, in order
/// (wrapping for integers); the raw value is `W_0` (`W_0 as f64 · scale`), normalized
/// (`math::normalize4`) on tracks that say so.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RawState<'a> {
    /// Float state.
    Float(&'a [f64]),
    /// Integer state and its scale.
    Int(&'a [i64], f64),
}

/// Which state array is live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Float,
    Int,
}

/// What a frame maps to after wrapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Region {
    /// Inside piece `index`.
    Piece(usize),
    /// Clamped before the first frame: holds the value at the first frame.
    Start,
    /// The last frame (or clamped after it, or a constant track): holds the end value.
    End,
    /// A line of an outside record (its value at the frame is `WrappedFrame::extra`); `moving` when
    /// its slope is not zero, `after` the track.
    Line { after: bool, moving: bool },
}

/// A frame after wrapping: where it lands and on which fold of the wrap.
#[derive(Debug, Clone, Copy, PartialEq)]
struct WrappedFrame {
    region: Region,
    /// Which fold of the wrap (loop cycle, ping-pong half-period, clamp side), a whole number;
    /// NaN beyond `math::EXACT_FOLDS` cycles, where folds are not told apart (never the same
    /// run: every step re-enters its piece).
    fold: f64,
    /// True on the backward half of a ping-pong period.
    mirrored: bool,
    /// The wrapped frame.
    w: f64,
    /// Added to the value (a loop's offset × cycles), or a line's value.
    extra: [f64; MAX_COMPONENTS],
}

impl WrappedFrame {
    fn same_run(&self, other: &WrappedFrame) -> bool {
        self.region == other.region && self.fold == other.fold && self.mirrored == other.mirrored
    }
}

/// Fold of a clamped frame after the last frame.
const CLAMP_AFTER: f64 = f64::NEG_INFINITY;
/// Fold of a clamped frame before the first frame.
const CLAMP_BEFORE: f64 = -1.0;
/// Fold of the last frame itself, inside `[first, last]`.
const LAST_FRAME: f64 = f64::INFINITY;

/// Run length meaning "until the step changes or the caller seeks".
const FOREVER: u64 = u64::MAX;
/// Largest count of steps computed from float positions (2^52).
const MAX_RUN: f64 = 4_503_599_627_370_496.0;

/// The track fields the wrap mapping reads at every piece entry, read once.
#[derive(Debug, Clone, Copy)]
struct Shape {
    first: f64,
    last: f64,
    pieces: usize,
    wrap: StreamWrap,
    outside: Option<Outside>,
}

impl Shape {
    fn new(track: &StreamTrack<'_>) -> Self {
        Self {
            first: track.first_frame(),
            last: track.last_frame(),
            pieces: track.piece_count(),
            wrap: track.wrap(),
            outside: track.outside(),
        }
    }
    /// `StreamTrack::first_frame`.
    fn first_frame(&self) -> f64 {
        self.first
    }
    /// `StreamTrack::last_frame`.
    fn last_frame(&self) -> f64 {
        self.last
    }
    /// `StreamTrack::piece_count`.
    fn piece_count(&self) -> usize {
        self.pieces
    }
    /// `StreamTrack::wrap`.
    fn wrap(&self) -> StreamWrap {
        self.wrap
    }
    /// `StreamTrack::outside`.
    fn outside(&self) -> Option<Outside> {
        self.outside
    }
}

/// A cursor over one track. Caller-owned, `Copy`, no allocation.
///
/// Starts at the track's first frame with a step of one frame.
#[derive(Debug, Clone, Copy)]
pub struct TrackPlayer<'s> {
    track: StreamTrack<'s>,
    step: f64,
    /// Position at `steps == 0` (the last seek or step change).
    base_frame: f64,
    steps: u64,
    /// Steps, including the current one, that the current state stays valid for.
    run_left: u64,
    degree: usize,
    components: usize,
    mode: Mode,
    /// `2^-exponent` of the current fixed piece.
    int_scale: f64,
    /// The track's normalize flag: values are divided by their norm on output.
    normalize: bool,
    work: [f64; STATE_SIZE],
    int_work: [i64; STATE_SIZE],
    /// The last piece entered and its neighbours' spans: lookups and entries there skip the
    /// search (`stream::cursor`; the same answers as the search).
    pieces: PieceCursor<'s>,
    /// The track's frames, piece count, wrap and outside record.
    shape: Shape,
}

impl Default for TrackPlayer<'_> {
    fn default() -> Self {
        Self::new(StreamTrack::EMPTY)
    }
}

impl<'s> TrackPlayer<'s> {
    /// A cursor at the track's first frame, step 1.
    #[must_use]
    pub fn new(track: StreamTrack<'s>) -> Self {
        Self::at(track, track.first_frame(), 0, 1.0)
    }

    /// A cursor at `frame` with step `step`, its run entered once: the state `new`,
    /// `seek(frame)` and `set_step(step)` leave (whose base frame is `frame + 0 · step`), for
    /// a caller that plays many short stretches (the compiler's final check).
    ///
    /// # Errors
    /// `NonFiniteFrame` or `InvalidStep`, as `seek` and `set_step`.
    pub fn starting_at(track: StreamTrack<'s>, frame: f64, step: f64) -> Result<Self, PlayerError> {
        if !frame.is_finite() {
            return Err(PlayerError::NonFiniteFrame { frame });
        }
        if !(step.is_finite() && step != 0.0) {
            return Err(PlayerError::InvalidStep { step });
        }
        Ok(Self::at(track, frame + 0.0 * step, 0, step))
    }

    /// A cursor at `base_frame + steps · step` whose positions are computed exactly as those of
    /// a cursor seeked to `base_frame`, stepped with `step` and advanced `steps` times (for the
    /// batch player's reloads). `step` must be finite and non-zero (the caller checked it).
    pub(crate) fn at(track: StreamTrack<'s>, base_frame: f64, steps: u64, step: f64) -> Self {
        let mut player = Self {
            track,
            step,
            base_frame,
            steps,
            run_left: 1,
            degree: 0,
            components: track.components().min(MAX_COMPONENTS),
            mode: Mode::Float,
            int_scale: 1.0,
            normalize: track.normalizes(),
            work: [0.0; STATE_SIZE],
            int_work: [0; STATE_SIZE],
            pieces: PieceCursor::new(track),
            shape: Shape::new(&track),
        };
        player.enter_run();
        player
    }

    /// Steps, including the current one, that the current state stays valid for
    /// (`u64::MAX`: until the step changes or the caller seeks). The next `advance` after the
    /// last of them enters a new run; at whole frames with a step of ±1 (positions below 2^53,
    /// computed exactly) a `seek` to that frame enters the same one.
    #[must_use]
    pub fn run_left(&self) -> u64 {
        self.run_left
    }

    /// The current state of component `c` (degree and differences), for the batch player and
    /// the compiler's check, which play a run's additions themselves.
    #[must_use]
    pub fn raw_state(&self, c: usize) -> RawState<'_> {
        let n = self.degree.min(MAX_DEGREE);
        let start = c.min(MAX_COMPONENTS - 1) * MAX_TERMS;
        match self.mode {
            Mode::Float => RawState::Float(self.work.get(start..=start + n).unwrap_or(&[])),
            Mode::Int => RawState::Int(
                self.int_work.get(start..=start + n).unwrap_or(&[]),
                self.int_scale,
            ),
        }
    }

    /// The track played.
    #[must_use]
    pub fn track(&self) -> StreamTrack<'s> {
        self.track
    }

    /// The current frame (before wrapping).
    #[must_use]
    pub fn frame(&self) -> f64 {
        self.position(0)
    }

    /// Frames per `advance` (negative plays backward).
    #[must_use]
    pub fn step(&self) -> f64 {
        self.step
    }

    /// Moves to `frame` (any finite real; wrapped per the track) in O(log pieces + degree²).
    ///
    /// # Errors
    /// `NonFiniteFrame` for NaN or an infinity (the cursor is unchanged).
    pub fn seek(&mut self, frame: f64) -> Result<(), PlayerError> {
        if !frame.is_finite() {
            return Err(PlayerError::NonFiniteFrame { frame });
        }
        self.base_frame = frame;
        self.steps = 0;
        self.enter_run();
        Ok(())
    }

    /// Sets the frames played per `advance`: 1 plays every frame, −1 plays backward, 60/144
    /// shows a 60 fps stream at 144 Hz, 0.5 plays at half speed. The differences for the new
    /// step are derived from the stored ones (O(degree³) when a piece is entered), never by
    /// recompiling. The current frame is kept.
    ///
    /// # Errors
    /// `InvalidStep` for 0, NaN or an infinity (the cursor is unchanged).
    pub fn set_step(&mut self, step: f64) -> Result<(), PlayerError> {
        if !(step.is_finite() && step != 0.0) {
            return Err(PlayerError::InvalidStep { step });
        }
        self.base_frame = self.position(0);
        self.steps = 0;
        self.step = step;
        self.enter_run();
        Ok(())
    }

    /// Moves one step (`step()` frames): `degree` additions per component, except when a piece
    /// or a wrap fold is entered.
    #[inline]
    pub fn advance(&mut self) {
        self.steps = self.steps.saturating_add(1);
        if self.run_left > 1 {
            if self.run_left != FOREVER {
                self.run_left -= 1;
            }
            self.add();
        } else {
            self.enter_run();
        }
    }

    /// Component `c` of the current value (0 for components the track does not have);
    /// normalized when the track says so (`StreamTrack::normalizes`).
    #[inline]
    #[must_use]
    pub fn component(&self, c: usize) -> f64 {
        if self.normalize && c < self.components {
            return self.value().get(c).copied().unwrap_or(0.0);
        }
        self.raw_component(c)
    }

    /// Component `c` of the played polynomials, before any normalization.
    #[inline]
    fn raw_component(&self, c: usize) -> f64 {
        if c >= self.components {
            return 0.0;
        }
        match self.mode {
            Mode::Float => self.work.get(c * MAX_TERMS).copied().unwrap_or(0.0),
            Mode::Int => {
                self.int_work.get(c * MAX_TERMS).copied().unwrap_or(0) as f64 * self.int_scale
            }
        }
    }

    /// The current value; components beyond the track's are 0.
    #[must_use]
    pub fn value(&self) -> [f64; MAX_COMPONENTS] {
        let raw = [
            self.raw_component(0),
            self.raw_component(1),
            self.raw_component(2),
            self.raw_component(3),
        ];
        if self.normalize {
            crate::math::normalize4(raw)
        } else {
            raw
        }
    }

    /// Writes the current value's components to `out` (as many as fit); returns how many.
    pub fn write(&self, out: &mut [f64]) -> usize {
        let n = self.components.min(out.len());
        let value = self.value();
        for (slot, v) in out.iter_mut().take(n).zip(value) {
            *slot = v;
        }
        n
    }

    /// Like `write`, rounding to f32.
    pub fn write_f32(&self, out: &mut [f32]) -> usize {
        let n = self.components.min(out.len());
        let value = self.value();
        for (slot, v) in out.iter_mut().take(n).zip(value) {
            *slot = v as f32;
        }
        n
    }

    /// Position after `k` more steps, computed from the last seek so it never drifts.
    fn position(&self, k: u64) -> f64 {
        self.base_frame + (self.steps.saturating_add(k)) as f64 * self.step
    }

    /// `degree` additions per component.
    #[inline]
    fn add(&mut self) {
        let n = self.degree;
        match self.mode {
            Mode::Float => {
                for chunk in self.work.chunks_exact_mut(MAX_TERMS).take(self.components) {
                    for i in 0..n {
                        chunk[i] += chunk[i + 1];
                    }
                }
            }
            Mode::Int => {
                for chunk in self
                    .int_work
                    .chunks_exact_mut(MAX_TERMS)
                    .take(self.components)
                {
                    for i in 0..n {
                        chunk[i] = chunk[i].wrapping_add(chunk[i + 1]);
                    }
                }
            }
        }
    }

    /// Maps a frame through the track's wrap.
    fn place(&self, f: f64) -> WrappedFrame {
        let track = &self.shape;
        let (first, last) = (track.first_frame(), track.last_frame());
        let span = last - first;
        let end = |fold: f64| self.inside(last, fold, false);
        if !(f >= first && f <= last) {
            if let Some(outside) = track.outside() {
                return self.place_outside(&outside, f);
            }
        }
        if track.piece_count() == 0 || span.partial_cmp(&0.0) != Some(core::cmp::Ordering::Greater)
        {
            return end(0.0);
        }
        let inside = |w: f64, fold: f64, mirrored: bool| self.inside(w, fold, mirrored);
        if f >= first && f <= last {
            return if f == last {
                end(LAST_FRAME)
            } else {
                inside(f, 0.0, false)
            };
        }
        match track.wrap() {
            StreamWrap::Clamp => self.clamped(f),
            // The exact remainder, as exact evaluation folds (`Wrap::apply`).
            StreamWrap::Loop => {
                let (r, fold) = crate::math::wrap_remainder(f, first, span);
                inside(first + r, fold, false)
            }
            StreamWrap::PingPong => {
                let (r, half) = crate::math::wrap_remainder(f, first, 2.0 * span);
                if r <= span {
                    inside(first + r, 2.0 * half, false)
                } else {
                    inside(first + (2.0 * span - r), 2.0 * half + 1.0, true)
                }
            }
        }
    }

    /// Frame `w` of `[first, last]` on `fold`: its piece, or the end value at `last`.
    fn inside(&self, w: f64, fold: f64, mirrored: bool) -> WrappedFrame {
        let track = &self.shape;
        let (first, last) = (track.first_frame(), track.last_frame());
        let region = if w >= last || track.piece_count() == 0 {
            Region::End
        } else {
            Region::Piece(self.piece_index_at(w))
        };
        WrappedFrame {
            region,
            fold,
            mirrored,
            w: if region == Region::End {
                last
            } else {
                w.max(first)
            },
            extra: [0.0; MAX_COMPONENTS],
        }
    }

    /// What `clamp` plays at a frame outside the track.
    fn clamped(&self, f: f64) -> WrappedFrame {
        let track = &self.shape;
        if f < track.first_frame() {
            // A track without pieces holds its end value there.
            let region = if track.piece_count() > 0 {
                Region::Start
            } else {
                Region::End
            };
            WrappedFrame {
                region,
                fold: CLAMP_BEFORE,
                mirrored: false,
                w: track.first_frame(),
                extra: [0.0; MAX_COMPONENTS],
            }
        } else {
            self.inside(track.last_frame(), CLAMP_AFTER, false)
        }
    }

    /// A frame outside the track played by its outside record (`stream::outside`).
    fn place_outside(&self, outside: &Outside, f: f64) -> WrappedFrame {
        let (first, last) = (self.shape.first, self.shape.last);
        let after = f > last;
        match outside.land(f, first, last) {
            Landing::Hold => self.clamped(f),
            Landing::Line { value, moving } => WrappedFrame {
                region: Region::Line { after, moving },
                fold: if after { CLAMP_AFTER } else { -1.0 },
                mirrored: false,
                w: f,
                extra: value,
            },
            Landing::Wrapped {
                w,
                fold,
                mirrored,
                extra,
            } => WrappedFrame {
                extra,
                ..self.inside(w, fold, mirrored)
            },
        }
    }

    /// Loads the state for the current position and computes how long it stays valid.
    fn enter_run(&mut self) {
        let f = self.position(0);
        let place = self.place(f);
        let local_step = if place.mirrored {
            -self.step
        } else {
            self.step
        };
        let track = self.track;
        match place.region {
            Region::End => {
                let mut value = track.end_value();
                for (v, e) in value.iter_mut().zip(place.extra) {
                    *v += e;
                }
                self.load_constant(value);
            }
            Region::Line { .. } => self.load_constant(place.extra),
            Region::Start => {
                let mut value = [0.0; MAX_COMPONENTS];
                if let Some(piece) = track.piece(0) {
                    for (c, slot) in value.iter_mut().enumerate().take(self.components) {
                        *slot = newton_value(&track, &piece, c, track.first_frame() - piece.origin);
                    }
                }
                self.load_constant(value);
            }
            Region::Piece(index) => {
                if let Some(piece) = self.pieces.enter(index) {
                    self.load_piece(&piece, place.w, local_step, place.extra);
                }
            }
        }
        self.run_left = self.run_length(&place, local_step);
    }

    fn load_constant(&mut self, value: [f64; MAX_COMPONENTS]) {
        self.mode = Mode::Float;
        self.degree = 0;
        for (chunk, v) in self.work.chunks_exact_mut(MAX_TERMS).zip(value) {
            chunk[0] = v;
        }
    }

    /// State for `piece` at wrapped frame `w` and local step `d`, `extra` added to the value
    /// (an f64 state then, also on fixed tracks).
    fn load_piece(&mut self, piece: &Piece, w: f64, d: f64, extra: [f64; MAX_COMPONENTS]) {
        let track = self.track;
        let n = usize::from(piece.degree).min(MAX_DEGREE);
        self.degree = n;
        let t = w - piece.origin;
        let whole = crate::math::floor(t) == t && (0.0..MAX_RUN).contains(&t);
        let plain = extra == [0.0; MAX_COMPONENTS];
        if track.precision() == Precision::Fixed && whole && (d == 1.0 || d == -1.0) && plain {
            self.mode = Mode::Int;
            self.int_scale = crate::math::powi(2.0, -i32::from(piece.exponent));
            let binomials = integer_binomials(t as u64);
            for (c, chunk) in self
                .int_work
                .chunks_exact_mut(MAX_TERMS)
                .enumerate()
                .take(self.components)
            {
                let mut stored = [0i64; MAX_TERMS];
                for (k, s) in stored.iter_mut().enumerate().take(n + 1) {
                    *s = track.fixed_number(piece, c, k);
                }
                enter_int(&stored[..=n], &binomials, d == -1.0, chunk);
            }
        } else {
            self.mode = Mode::Float;
            let computed;
            let matrix = if d == 1.0 {
                None
            } else if d == -1.0 {
                Some(&REVERSE_STEP)
            } else {
                computed = step_matrix(d, n);
                Some(&computed)
            };
            for (c, chunk) in self
                .work
                .chunks_exact_mut(MAX_TERMS)
                .enumerate()
                .take(self.components)
            {
                let mut stored = [0.0; MAX_TERMS];
                for (k, s) in stored.iter_mut().enumerate().take(n + 1) {
                    *s = track.number(piece, c, k);
                }
                enter_float(&stored[..=n], t, matrix, extra[c], chunk);
            }
        }
    }

    /// The piece containing frame `w` (`StreamTrack::piece_index_at`), without a search when
    /// `w` lies in the last piece entered or a neighbour.
    fn piece_index_at(&self, w: f64) -> usize {
        self.pieces.index_at(w)
    }

    /// Start and end of piece `index`, from the last piece entered when it is that one.
    fn piece_span(&self, index: usize) -> Option<(f64, f64)> {
        match self.pieces.held(index) {
            Some(p) => Some((p.start, p.end)),
            None => self.track.piece(index).map(|p| (p.start, p.end)),
        }
    }

    /// Steps, including the current one, for which the state just loaded stays valid.
    fn run_length(&self, place: &WrappedFrame, local_step: f64) -> u64 {
        if place.fold.is_nan() {
            // Folds this far out are not told apart (adjacent ones may round to the same
            // number): re-enter every step rather than add across an unseen wrap.
            return 1;
        }
        let h = self.step;
        let f = self.position(0);
        let track = &self.shape;
        // A track without pieces or outside record is one value everywhere.
        let pieceless = track.piece_count() == 0 && track.outside().is_none();
        // Held before the first frame (or after the last): until the first (last) frame.
        let before = || {
            if h < 0.0 {
                return None;
            }
            Some(crate::math::ceil((track.first_frame() - f) / h))
        };
        let after = || {
            if pieceless || h > 0.0 {
                return None;
            }
            Some(crate::math::ceil((f - track.last_frame()) / -h))
        };
        let held = match place.region {
            Region::Start | Region::Line { after: false, .. } => Some(before()),
            Region::End if place.fold == CLAMP_BEFORE => Some(before()),
            Region::End if place.fold == CLAMP_AFTER || pieceless => Some(after()),
            Region::Line { after: true, .. } => Some(after()),
            _ => None,
        };
        let estimate = match (place.region, held) {
            (Region::Line { moving: true, .. }, _) => return 1,
            (_, Some(None)) => return FOREVER,
            (_, Some(Some(estimate))) => estimate,
            (Region::End | Region::Start | Region::Line { .. }, None) => 1.0,
            (Region::Piece(index), None) => {
                let Some((start, end)) = self.piece_span(index) else {
                    return 1;
                };
                if local_step > 0.0 {
                    crate::math::ceil((end - place.w) / local_step)
                } else {
                    crate::math::floor((place.w - start) / -local_step) + 1.0
                }
            }
        };
        let mut k = if estimate >= 1.0 {
            estimate.min(MAX_RUN) as u64
        } else {
            1
        };
        // Make the run agree with the wrap mapping of the actual positions.
        let same = |k: u64| self.place(self.position(k)).same_run(place);
        let mut tries = 0;
        while k > 1 && !same(k - 1) && tries < 4 {
            k -= 1;
            tries += 1;
        }
        if k > 1 && !same(k - 1) {
            return 1;
        }
        tries = 0;
        while same(k) && tries < 4 {
            k += 1;
            tries += 1;
        }
        k
    }
}

/// One component's float state as a cursor enters a piece (`load_piece`): the stored numbers
/// `stored` (degree `n = stored.len() − 1`, as the player reads them) shifted to offset `t`
/// from the origin ([`shift_differences`]), converted to the step by `matrix` (`None` at step
/// 1, [`REVERSE_STEP`] at step −1, [`step_matrix`] otherwise), `extra` added to the value;
/// into `out[..=n]`. The compiler's check enters pieces with it too (`compile::measure`).
pub fn enter_float(
    stored: &[f64],
    t: f64,
    matrix: Option<&[[f64; MAX_TERMS]; MAX_TERMS]>,
    extra: f64,
    out: &mut [f64],
) {
    let n = stored.len().clamp(1, MAX_TERMS) - 1;
    let mut shifted = [0.0; MAX_TERMS];
    shift_differences(&stored[..=n], t, &mut shifted[..=n]);
    match matrix {
        Some(m) => apply_step_matrix(m, &shifted[..=n], &mut out[..=n]),
        None => out[..=n].copy_from_slice(&shifted[..=n]),
    }
    out[0] += extra;
}

/// One component's integer state as a cursor enters a fixed piece at a whole offset `m` at
/// step ±1 (`load_piece`): `Σ_{j≥k} C(m, j−k) · I_j` in wrapping arithmetic with
/// `binomials = integer_binomials(m)`, then converted to step −1 when `backward`; into
/// `out[..=n]` (`n = stored.len() − 1`). The compiler's check enters pieces with it too.
pub fn enter_int(stored: &[i64], binomials: &[i64; MAX_TERMS], backward: bool, out: &mut [i64]) {
    let n = stored.len().clamp(1, MAX_TERMS) - 1;
    for k in 0..=n {
        let mut sum = 0i64;
        for j in k..=n {
            sum = sum.wrapping_add(binomials[j - k].wrapping_mul(stored[j]));
        }
        out[k] = sum;
    }
    if backward {
        reverse_integer(out, n);
    }
}

/// Value of component `c` of `piece` at offset `t` from its origin: `Σ_k C(t, k) · D_k`.
fn newton_value(track: &StreamTrack<'_>, piece: &Piece, c: usize, t: f64) -> f64 {
    let n = usize::from(piece.degree).min(MAX_DEGREE);
    let mut binomial = 1.0;
    let mut sum = 0.0;
    for k in 0..=n {
        sum += binomial * track.number(piece, c, k);
        binomial *= (t - k as f64) / (k as f64 + 1.0);
    }
    sum
}

/// Generalized binomials `C(t, 0..=8)`: `C(t, k) = t (t−1) … (t−k+1) / k!`.
#[must_use]
pub const fn binomials(t: f64) -> [f64; MAX_TERMS] {
    let mut out = [0.0; MAX_TERMS];
    let mut b = 1.0;
    let mut k = 0;
    while k < MAX_TERMS {
        out[k] = b;
        b *= (t - k as f64) / (k as f64 + 1.0);
        k += 1;
    }
    out
}

/// Differences at offset `t` (frames, any real) from those at the origin:
/// `out[k] = Σ_{j≥k} C(t, j−k) · d[j]` (Newton forward form). `out` has `d.len()` slots.
pub fn shift_differences(d: &[f64], t: f64, out: &mut [f64]) {
    if t == 0.0 {
        for (o, x) in out.iter_mut().zip(d) {
            *o = *x;
        }
        return;
    }
    let b = binomials(t);
    let n = d.len();
    for (k, o) in out.iter_mut().enumerate().take(n) {
        let mut sum = 0.0;
        // Highest order first: the small terms are added before the large ones.
        for j in (k..n).rev() {
            sum += b[j - k] * d[j];
        }
        *o = sum;
    }
}

/// The matrix taking step-1 differences to step-`h` differences for degree `n`:
/// row k holds the coefficients of `(Σ_{i≥1} C(h, i) x^i)^k` truncated at `x^n`.
#[must_use]
pub const fn step_matrix(h: f64, n: usize) -> [[f64; MAX_TERMS]; MAX_TERMS] {
    let n = if n < MAX_DEGREE { n } else { MAX_DEGREE };
    let b = binomials(h);
    let mut m = [[0.0; MAX_TERMS]; MAX_TERMS];
    m[0][0] = 1.0;
    let mut k = 1;
    while k <= n {
        let mut j = k;
        while j <= n {
            // (P^{k-1} · P)_j = Σ_{i=1}^{j-(k-1)} P_i · P^{k-1}_{j-i}
            let mut sum = 0.0;
            let mut i = 1;
            while i <= j + 1 - k {
                sum += b[i] * m[k - 1][j - i];
                i += 1;
            }
            m[k][j] = sum;
            j += 1;
        }
        k += 1;
    }
    m
}

/// `step_matrix(−1, 8)`, computed once: its rows and columns up to `n` are `step_matrix(−1, n)`'s
/// (each entry depends only on entries of lower order), the matrix of every backward entry.
pub const REVERSE_STEP: [[f64; MAX_TERMS]; MAX_TERMS] = step_matrix(-1.0, MAX_DEGREE);

/// `out[k] = Σ_{j≥k} m[k][j] · d[j]` for k < d.len().
pub fn apply_step_matrix(m: &[[f64; MAX_TERMS]; MAX_TERMS], d: &[f64], out: &mut [f64]) {
    let n = d.len().min(MAX_TERMS);
    for (k, o) in out.iter_mut().enumerate().take(n) {
        let mut sum = 0.0;
        for j in (k..n).rev() {
            sum += m[k][j] * d[j];
        }
        *o = sum;
    }
}

/// Forward differences at step 1 → at step −1, in wrapping integer arithmetic
/// (`Δ_{−1} = E^{−1} − 1 = Σ_{i≥1} (−1)^i Δ^i`; exact since Δ^{n+1} = 0).
fn reverse_integer(chunk: &mut [i64], n: usize) {
    let n = n.min(MAX_DEGREE);
    let m = &REVERSE_INT;
    let mut out = [0i64; MAX_TERMS];
    for (k, o) in out.iter_mut().enumerate().take(n + 1) {
        let mut sum = 0i64;
        for j in k..=n {
            sum = sum.wrapping_add(m[k][j].wrapping_mul(chunk[j]));
        }
        *o = sum;
    }
    chunk[..=n].copy_from_slice(&out[..=n]);
}

/// The step −1 matrix in integers for degree 8, computed once: row k holds
/// `(Σ_{i≥1} (−1)^i x^i)^k` truncated at `x^8`; its rows and columns up to `n` are degree n's
/// (each entry depends only on entries of lower order).
const REVERSE_INT: [[i64; MAX_TERMS]; MAX_TERMS] = reverse_int_matrix();

/// [`REVERSE_INT`]: `P^k = P^{k−1} · P` column by column, wrapping.
const fn reverse_int_matrix() -> [[i64; MAX_TERMS]; MAX_TERMS] {
    let mut m = [[0i64; MAX_TERMS]; MAX_TERMS];
    m[0][0] = 1;
    let mut k = 1;
    while k <= MAX_DEGREE {
        let mut j = k;
        while j <= MAX_DEGREE {
            let mut sum = 0i64;
            let mut i = 1;
            while i <= j + 1 - k {
                let p = if i % 2 == 0 { 1i64 } else { -1 };
                sum = sum.wrapping_add(p.wrapping_mul(m[k - 1][j - i]));
                i += 1;
            }
            m[k][j] = sum;
            j += 1;
        }
        k += 1;
    }
    m
}

/// `C(m, k) mod 2^64` for k in 0..=8, exactly (i! divided out of the factors before multiplying).
#[must_use]
pub fn integer_binomials(m: u64) -> [i64; MAX_TERMS] {
    let mut out = [0i64; MAX_TERMS];
    out[0] = 1;
    for (k, slot) in out.iter_mut().enumerate().skip(1) {
        let k64 = k as u64;
        if m < k64 {
            *slot = 0;
            continue;
        }
        let mut factors = [1u64; MAX_TERMS];
        for (i, f) in factors.iter_mut().enumerate().take(k) {
            *f = m - i as u64;
        }
        // Divide out k! prime by prime: i consecutive integers hold at least as many of each prime.
        for q in 2..=k64 {
            let mut rest = q;
            for p in [2u64, 3, 5, 7] {
                while rest % p == 0 {
                    rest /= p;
                    if let Some(f) = factors.iter_mut().take(k).find(|f| **f % p == 0) {
                        *f /= p;
                    }
                }
            }
        }
        let mut product = 1u64;
        for f in factors.iter().take(k) {
            product = product.wrapping_mul(*f);
        }
        *slot = product as i64;
    }
    out
}

/// Cursors for every track of a stream, moved together.
#[derive(Debug)]
pub struct Player<'s, 'b> {
    tracks: &'b mut [TrackPlayer<'s>],
}

impl<'s, 'b> Player<'s, 'b> {
    /// A player over caller-owned cursor slots (at least one per track; extra slots are unused),
    /// each at its track's first frame.
    ///
    /// # Errors
    /// `TooFewSlots` when `slots` is shorter than the track count.
    pub fn new(stream: &Stream<'s>, slots: &'b mut [TrackPlayer<'s>]) -> Result<Self, PlayerError> {
        let needed = stream.track_count();
        let found = slots.len();
        let tracks = slots
            .get_mut(..needed)
            .ok_or(PlayerError::TooFewSlots { needed, found })?;
        for (slot, track) in tracks.iter_mut().zip(stream.tracks()) {
            *slot = TrackPlayer::new(track);
        }
        Ok(Self { tracks })
    }
    /// The per-track cursors.
    #[must_use]
    pub fn tracks(&self) -> &[TrackPlayer<'s>] {
        self.tracks
    }
    /// Seeks every track to `frame`.
    ///
    /// # Errors
    /// `NonFiniteFrame` for NaN or an infinity.
    pub fn seek(&mut self, frame: f64) -> Result<(), PlayerError> {
        self.tracks.iter_mut().try_for_each(|t| t.seek(frame))
    }
    /// Sets every track's step (see `TrackPlayer::set_step`).
    ///
    /// # Errors
    /// `InvalidStep` for 0, NaN or an infinity.
    pub fn set_step(&mut self, step: f64) -> Result<(), PlayerError> {
        self.tracks.iter_mut().try_for_each(|t| t.set_step(step))
    }
    /// Advances every track one step.
    pub fn advance(&mut self) {
        self.tracks.iter_mut().for_each(TrackPlayer::advance);
    }
    /// Current value of track `index`, if it exists.
    #[must_use]
    pub fn value(&self, index: usize) -> Option<[f64; MAX_COMPONENTS]> {
        self.tracks.get(index).map(TrackPlayer::value)
    }
    /// Writes every track's components in order (the CSV column order); returns how many were
    /// written (stops when `out` is full). `Stream::total_components` gives the width.
    pub fn write(&self, out: &mut [f64]) -> usize {
        let mut written = 0;
        for t in self.tracks.iter() {
            written += t.write(out.get_mut(written..).unwrap_or(&mut []));
        }
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// C(m, k) by the multiplicative formula in u128 (small m only).
    fn naive_binomial(m: u64, k: usize) -> u128 {
        let mut c: u128 = 1;
        for i in 0..k as u128 {
            if u128::from(m) < i + 1 && u128::from(m) <= i {
                return 0;
            }
            c = c * (u128::from(m) - i) / (i + 1);
        }
        c
    }

    #[test]
    fn integer_binomials_are_exact() {
        for m in [0u64, 1, 2, 7, 8, 9, 100, 4097] {
            let b = integer_binomials(m);
            for (k, value) in b.iter().enumerate() {
                assert_eq!(
                    *value as u64 as u128,
                    naive_binomial(m, k) % (1u128 << 64),
                    "C({m}, {k})"
                );
            }
        }
        // Beyond u64: still exact modulo 2^64 (C(2^40, 8) wraps).
        let m = 1u64 << 40;
        let wrapped = integer_binomials(m)[2];
        assert_eq!(wrapped as u64, (m / 2).wrapping_mul(m - 1));
    }

    #[test]
    fn generalized_binomials_match_closed_forms() {
        let b = binomials(0.5);
        assert!((b[1] - 0.5).abs() < 1e-16);
        assert!((b[2] + 0.125).abs() < 1e-16);
        let b = binomials(-1.0);
        for (k, v) in b.iter().enumerate() {
            assert_eq!(*v, if k % 2 == 0 { 1.0 } else { -1.0 });
        }
    }

    #[test]
    fn step_matrix_gives_the_differences_of_a_cubic_at_step_h() {
        // p(t) = t³: Δ at step 1 at 0 is [0, 1, 6, 6].
        let d = [0.0, 1.0, 6.0, 6.0];
        for h in [0.5, -1.0, 60.0 / 144.0, 2.5] {
            let m = step_matrix(h, 3);
            let mut out = [0.0; 4];
            apply_step_matrix(&m, &d, &mut out);
            // Exact: p(0) = 0, Δ_h p = h³, Δ_h² p = p(2h) − 2p(h) + p(0) = 6h³, Δ_h³ = 6h³.
            let h3 = h * h * h;
            for (got, want) in out.iter().zip([0.0, h3, 6.0 * h3, 6.0 * h3]) {
                assert!((got - want).abs() < 1e-12, "h = {h}: {out:?}");
            }
        }
    }

    #[test]
    fn the_reverse_step_constant_is_every_degrees_step_matrix() {
        for n in 0..=MAX_DEGREE {
            let m = step_matrix(-1.0, n);
            for k in 0..=n {
                for j in 0..=n {
                    assert_eq!(REVERSE_STEP[k][j].to_bits(), m[k][j].to_bits(), "n {n}");
                }
            }
        }
        // Δ_{−1}³ of degree 3 = −Δ³ (row 3 of (−Δ + Δ² − Δ³)³ truncated): −1 at column 3.
        assert_eq!(REVERSE_STEP[3][3], -1.0);
    }

    #[test]
    fn integer_reverse_matches_the_float_matrix_at_every_degree() {
        let values = [5i64, -3, 7, 2, -11, 4, 9, -1, 6];
        for n in 0..=MAX_DEGREE {
            let mut chunk = [0i64; MAX_TERMS];
            chunk[..=n].copy_from_slice(&values[..=n]);
            let float: Vec<f64> = values[..=n].iter().map(|&v| v as f64).collect();
            reverse_integer(&mut chunk, n);
            let mut out = [0.0; MAX_TERMS];
            apply_step_matrix(&step_matrix(-1.0, n), &float, &mut out[..=n]);
            for (i, f) in chunk.iter().zip(out).take(n + 1) {
                assert_eq!(*i as f64, f, "degree {n}");
            }
        }
    }

    #[test]
    fn integer_reverse_matches_the_float_matrix() {
        let mut chunk = [5i64, -3, 7, 2, 0, 0, 0, 0, 0];
        let float: [f64; 4] = [5.0, -3.0, 7.0, 2.0];
        reverse_integer(&mut chunk, 3);
        let m = step_matrix(-1.0, 3);
        let mut out = [0.0; 4];
        apply_step_matrix(&m, &float, &mut out);
        for (i, f) in chunk.iter().zip(out) {
            assert_eq!(*i as f64, f);
        }
    }

    #[test]
    fn shift_differences_moves_along_the_polynomial() {
        // p(t) = t³ from 0 to t = 2.5: p = 15.625, Δp = 3.5³ − 2.5³ = 27.25, Δ² = 6·3.5 = 21, Δ³ = 6.
        let mut out = [0.0; 4];
        shift_differences(&[0.0, 1.0, 6.0, 6.0], 2.5, &mut out);
        for (got, want) in out.iter().zip([15.625, 27.25, 21.0, 6.0]) {
            assert!((got - want).abs() < 1e-12, "{out:?}");
        }
    }

    #[test]
    fn an_empty_cursor_plays_zero() {
        let mut player = TrackPlayer::default();
        player.advance();
        assert_eq!(player.value(), [0.0; 4]);
        assert_eq!(
            player.seek(f64::INFINITY),
            Err(PlayerError::NonFiniteFrame {
                frame: f64::INFINITY
            })
        );
    }
}
