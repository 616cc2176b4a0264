//! Storing a piece in its precision and replaying it exactly as the player will, frame by frame, against the exact values.
//!
//! The replay is the player's forward path: the piece is entered at its origin (offset 0, so the
//! stored numbers are the state) and advanced by additions — in f64 for `F64` and `F32` (f32
//! numbers widened), in integers for `Fixed`. For fixed pieces the integer trajectory is also run
//! from offset −n so that backward play (whose state holds `Δ^k p(m − k)`) is proven to fit i64.

// Index loops over small fixed arrays read like the formulas they implement.
#![allow(clippy::needless_range_loop)]

use alloc::vec::Vec;

use crate::stream::layout::{FIXED_EXPONENT_RANGE, MAX_COMPONENTS, MAX_TERMS};
use crate::stream::{PieceNumbers, Precision};

/// A piece before storage: per component, the exact (f64) differences at the origin.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// First frame.
    pub start: f64,
    /// End frame (excluded).
    pub end: f64,
    /// Origin of the differences.
    pub origin: f64,
    /// Degree.
    pub degree: usize,
    /// `differences[c][k]` = Δ^k of component c at the origin.
    pub differences: [[f64; MAX_TERMS]; MAX_COMPONENTS],
}

/// A stored piece and how well it plays.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// Fixed exponent (0 for floats).
    pub exponent: i8,
    /// The stored numbers.
    pub numbers: PieceNumbers,
    /// Largest |played − exact| over components and checked frames.
    pub max_error: f64,
    /// Frame of that error (the origin when no frame was checked).
    pub max_error_frame: f64,
    /// Largest |played − exact| at the fractional frames checked.
    pub between_error: f64,
    /// |played − exact| at the piece's start, if it was among the frames checked (the value a
    /// clamped track holds before its first frame, and where backward play leaves the piece).
    pub start_error: f64,
}

/// Why a piece cannot be stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StoreFailure {
    /// A number does not fit the precision (f32 overflow, i64 overflow at any exponent).
    OutOfRange,
}

/// The origin of a piece: its first integer frame, or its start when it holds none.
#[must_use]
pub fn origin_of(start: f64, end: f64) -> f64 {
    // The origin a version-3 stream implies, so that no compiled piece stores one.
    crate::stream::compact::implied_origin(start, end)
}

/// The exact values a piece is checked against.
#[derive(Clone, Copy)]
pub struct Truth<'t> {
    /// `exact[m]` = exact value at frame `origin + m`, one entry per integer frame of the piece.
    pub exact: &'t [[f64; MAX_COMPONENTS]],
    /// `halves[m]` = exact value at frame `origin + m + ½`, for the half frames before the end.
    pub halves: &'t [[f64; MAX_COMPONENTS]],
    /// Other fractional frames and their exact values.
    pub between: &'t [(f64, [f64; MAX_COMPONENTS])],
}

/// Stores `candidate` in `precision` and replays it at its integer frames (`truth.exact`) as
/// the player does, then (if within `limit.integer` there) at its fractional frames as the player plays a fractional position
/// (the stored numbers widened to f64 and shifted with the Newton form): the half frames by
/// shifting once to `origin + ½` and adding on from there, as the player plays from a
/// half-frame seek at step 1, the others one by one.
///
/// # Errors
/// `OutOfRange` when a number does not fit the precision.
pub fn store_and_check(
    candidate: &Candidate,
    components: usize,
    precision: Precision,
    truth: &Truth<'_>,
    limit: Limit,
) -> Result<Checked, StoreFailure> {
    let stop_above = if limit.stop_early {
        limit.integer
    } else {
        f64::INFINITY
    };
    let mut checked = store_and_replay(candidate, components, precision, truth.exact, stop_above)?;
    if checked.max_error <= limit.integer {
        checked.check_halves(candidate, components, truth.halves);
        checked.check_between(candidate, components, truth.between);
    }
    Ok(checked)
}

/// The acceptance limit at integer frames, and what a candidate beyond it needs.
#[derive(Clone, Copy)]
pub struct Limit {
    /// Largest error allowed at integer frames.
    pub integer: f64,
    /// Whether a candidate beyond it may stop replaying at its first error above it (when
    /// only whether it fails matters, not its largest error). Either way a candidate beyond it
    /// is not checked between frames (it is neither accepted nor a fallback).
    pub stop_early: bool,
}

impl Checked {
    /// The stored numbers as the player's float path reads them, per component.
    fn widened_all(&self, components: usize, terms: usize) -> [[f64; MAX_TERMS]; MAX_COMPONENTS] {
        let mut widened = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
        for (c, row) in widened.iter_mut().enumerate().take(components) {
            for (k, w) in row.iter_mut().enumerate().take(terms) {
                *w = self.widened(c * terms + k);
            }
        }
        widened
    }

    /// Raises `between_error` to the largest |played − exact| at the half frames
    /// `origin + m + ½` (`halves[m]`): the state shifted once to `origin + ½`
    /// (`player::shift_differences`), then advanced by the player's additions.
    fn check_halves(
        &mut self,
        candidate: &Candidate,
        components: usize,
        halves: &[[f64; MAX_COMPONENTS]],
    ) {
        if halves.is_empty() {
            return;
        }
        let n = candidate.degree;
        let widened = self.widened_all(components, n + 1);
        for c in 0..components {
            let mut state = [0.0; MAX_TERMS];
            crate::player::shift_differences(&widened[c][..=n], 0.5, &mut state[..=n]);
            for truth in halves {
                let e = crate::math::abs(state[0] - truth[c]);
                self.between_error =
                    self.between_error
                        .max(if e.is_nan() { f64::INFINITY } else { e });
                for i in 0..n {
                    state[i] += state[i + 1];
                }
            }
        }
    }

    /// Raises `between_error` (and `start_error`, at the piece's start) to the largest
    /// |played − exact| at the fractional frames of `between`. The played value is the
    /// player's `W_0` after `shift_differences` — `Σ_j C(t, j) D_j`, highest order first, with
    /// the player's own recurrence for the binomials `C(t, k)` — computed once per frame for all
    /// components: the same arithmetic in O(n) instead of the O(n²) of the whole shifted state.
    pub fn check_between(
        &mut self,
        candidate: &Candidate,
        components: usize,
        between: &[(f64, [f64; MAX_COMPONENTS])],
    ) {
        if between.is_empty() {
            return;
        }
        let terms = candidate.degree + 1;
        let widened = self.widened_all(components, terms);
        for (frame, truth) in between {
            let t = frame - candidate.origin;
            // Every binomial up to C(t, 8) (unrolled, cheaper than stopping at the degree).
            let b = crate::player::binomials(t);
            for c in 0..components {
                let played = if t == 0.0 {
                    widened[c][0]
                } else {
                    let mut sum = 0.0;
                    for j in (0..terms).rev() {
                        sum += b[j] * widened[c][j];
                    }
                    sum
                };
                let e = crate::math::abs(played - truth[c]);
                let e = if e.is_nan() { f64::INFINITY } else { e };
                self.between_error = self.between_error.max(e);
                if *frame == candidate.start {
                    self.start_error = self.start_error.max(e);
                }
            }
        }
    }

    /// Stored number `index` as the player's float path reads it.
    fn widened(&self, index: usize) -> f64 {
        match &self.numbers {
            PieceNumbers::F32(v) => v.get(index).map_or(0.0, |x| f64::from(*x)),
            PieceNumbers::F64(v) => v.get(index).copied().unwrap_or(0.0),
            PieceNumbers::Fixed(v) => v.get(index).map_or(0.0, |x| {
                (*x as f64) * crate::math::powi(2.0, -i32::from(self.exponent))
            }),
        }
    }
}

/// Stores the candidate and replays its integer frames, stopping at the first error above
/// `stop_above` (then `max_error` is that error, not the largest).
fn store_and_replay(
    candidate: &Candidate,
    components: usize,
    precision: Precision,
    exact: &[[f64; MAX_COMPONENTS]],
    stop_above: f64,
) -> Result<Checked, StoreFailure> {
    let mut error = ErrorAt {
        exact,
        origin: candidate.origin,
        stop_above,
        worst: (0.0, candidate.origin),
    };
    let (exponent, numbers) = match precision {
        Precision::F64 | Precision::F32 => (
            0,
            replay_float(candidate, components, precision, &mut error)?,
        ),
        Precision::Fixed => replay_fixed(candidate, components, &mut error)?,
    };
    Ok(Checked {
        exponent,
        numbers,
        max_error: error.worst.0,
        max_error_frame: error.worst.1,
        between_error: 0.0,
        start_error: 0.0,
    })
}

/// The largest |played − exact| at the integer frames replayed so far, and its frame.
struct ErrorAt<'e> {
    /// `exact[m]`: the exact value at frame `origin + m`.
    exact: &'e [[f64; MAX_COMPONENTS]],
    origin: f64,
    stop_above: f64,
    worst: (f64, f64),
}

impl ErrorAt<'_> {
    /// Notes the value played for component `c` at frame `origin + m` (a NaN error counts as
    /// infinite); true once the largest error is above `stop_above`.
    fn note(&mut self, m: usize, c: usize, played: f64) -> bool {
        let truth = self.exact.get(m).map_or(played, |v| v[c]);
        let e = crate::math::abs(played - truth);
        if e > self.worst.0 || e.is_nan() {
            let e = if e.is_nan() { f64::INFINITY } else { e };
            self.worst = (e, self.origin + m as f64);
        }
        self.worst.0 > self.stop_above
    }
}

/// Stores an `F32` or `F64` candidate and replays it in f64 (f32 numbers widened), as the
/// player's forward path does.
fn replay_float(
    candidate: &Candidate,
    components: usize,
    precision: Precision,
    error: &mut ErrorAt<'_>,
) -> Result<PieceNumbers, StoreFailure> {
    let n = candidate.degree;
    let terms = n + 1;
    let narrow = precision == Precision::F32;
    let mut widened = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
    let (mut numbers32, mut numbers64) = (Vec::new(), Vec::new());
    if narrow {
        numbers32.reserve_exact(components * terms);
    } else {
        numbers64.reserve_exact(components * terms);
    }
    for c in 0..components {
        for k in 0..terms {
            let d = candidate.differences[c][k];
            if narrow {
                numbers32.push(d as f32);
                widened[c][k] = f64::from(d as f32);
            } else {
                numbers64.push(d);
                widened[c][k] = d;
            }
            if !widened[c][k].is_finite() {
                return Err(StoreFailure::OutOfRange);
            }
        }
    }
    for c in 0..components {
        let mut state = widened[c];
        for m in 0..error.exact.len() {
            if error.note(m, c, state[0]) {
                break;
            }
            for i in 0..n {
                state[i] += state[i + 1];
            }
        }
    }
    Ok(if narrow {
        PieceNumbers::F32(numbers32)
    } else {
        PieceNumbers::F64(numbers64)
    })
}

/// Stores a `Fixed` candidate (exponent from [`fixed_exponent`]) and replays its integers in
/// i128 from offset −n (where backward play starts), proving every state fits i64.
fn replay_fixed(
    candidate: &Candidate,
    components: usize,
    error: &mut ErrorAt<'_>,
) -> Result<(i8, PieceNumbers), StoreFailure> {
    let n = candidate.degree;
    let terms = n + 1;
    let steps = error.exact.len();
    let exponent = fixed_exponent(candidate, components, steps)?;
    let unit = crate::math::powi(2.0, i32::from(exponent));
    let inverse = crate::math::powi(2.0, -i32::from(exponent));
    let mut ints = Vec::with_capacity(components * terms);
    for c in 0..components {
        for k in 0..terms {
            let scaled = crate::math::round(candidate.differences[c][k] * unit);
            if !(scaled.is_finite() && crate::math::abs(scaled) < 9.2e18) {
                return Err(StoreFailure::OutOfRange);
            }
            ints.push(scaled as i64);
        }
    }
    let fits = |s: &[i128; MAX_TERMS]| {
        s.iter()
            .take(terms)
            .all(|x| *x >= i128::from(i64::MIN) && *x <= i128::from(i64::MAX))
    };
    for c in 0..components {
        let stored = &ints[c * terms..(c + 1) * terms];
        // State at offset −n: I_k(−n) = Σ_j C(−n, j−k) I_j, C(−n, i) = (−1)^i C(n+i−1, i).
        let mut state = [0i128; MAX_TERMS];
        for k in 0..terms {
            for j in k..terms {
                state[k] += negative_binomial(n, j - k) * i128::from(stored[j]);
            }
        }
        for step in 0..(n + steps) {
            if !fits(&state) {
                return Err(StoreFailure::OutOfRange);
            }
            if step >= n && error.note(step - n, c, state[0] as f64 * inverse) {
                break;
            }
            for i in 0..n {
                state[i] += state[i + 1];
            }
        }
        if !fits(&state) {
            return Err(StoreFailure::OutOfRange);
        }
    }
    Ok((exponent, PieceNumbers::Fixed(ints)))
}

/// `C(−n, i) = (−1)^i C(n + i − 1, i)`.
fn negative_binomial(n: usize, i: usize) -> i128 {
    let mut c: i128 = 1;
    for r in 0..i {
        // C(n+r, r+1) = C(n+r-1, r) · (n + r) / (r + 1), exact at each step.
        c = c * (n + r) as i128 / (r + 1) as i128;
    }
    if i % 2 == 1 {
        -c
    } else {
        c
    }
}

/// The largest exponent e with `max |state| · 2^e ≤ 2^61` over the trajectory from offset −n
/// through the last checked frame (computed in f64 from the exact differences), clamped to the
/// format's range. The i128 replay then proves the bound.
fn fixed_exponent(
    candidate: &Candidate,
    components: usize,
    steps: usize,
) -> Result<i8, StoreFailure> {
    let n = candidate.degree;
    let mut largest: f64 = 0.0;
    for c in 0..components {
        let mut state = [0.0; MAX_TERMS];
        crate::player::shift_differences(
            &candidate.differences[c][..=n],
            -(n as f64),
            &mut state[..=n],
        );
        for _ in 0..(n + steps.max(1)) {
            for s in state.iter().take(n + 1) {
                largest = largest.max(crate::math::abs(*s));
            }
            for i in 0..n {
                state[i] += state[i + 1];
            }
        }
        for s in state.iter().take(n + 1) {
            largest = largest.max(crate::math::abs(*s));
        }
    }
    if !largest.is_finite() {
        return Err(StoreFailure::OutOfRange);
    }
    if largest == 0.0 {
        return Ok(60);
    }
    // Smallest p with 2^p ≥ largest (p in a bounded range).
    let mut p: i32 = 0;
    while crate::math::powi(2.0, p) < largest && p < 1100 {
        p += 1;
    }
    while p > -1100 && crate::math::powi(2.0, p - 1) >= largest {
        p -= 1;
    }
    let e = (61 - p).clamp(
        i32::from(FIXED_EXPONENT_RANGE.0),
        i32::from(FIXED_EXPONENT_RANGE.1),
    );
    i8::try_from(e).map_err(|_| StoreFailure::OutOfRange)
}
