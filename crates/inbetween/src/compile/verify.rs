//! Storing a piece in its precision and replaying it exactly as the player will, frame by frame, against the exact values.
//!
//! The replay is the player's forward path: the piece is entered at its origin (offset 0, so the
//! stored numbers are the state) and advanced by additions — in f64 for `F64` and `F32` (f32
//! numbers widened), in integers for `Fixed`. For fixed pieces the integer trajectory is also run
//! from offset −n so that backward play (whose state holds `Δ^k p(m − k)`) is proven to fit i64.

// Index loops over small fixed arrays read like the formulas they implement.
#![allow(clippy::needless_range_loop)]

use alloc::vec::Vec;
use core::cmp::Ordering;

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
    // Filled by a float piece's replay with its numbers as the player reads them.
    let mut widened = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
    let mut checked = store_and_replay(
        candidate,
        components,
        precision,
        (truth.exact, stop_above),
        &mut widened,
    )?;
    if checked.max_error <= limit.integer && (!truth.halves.is_empty() || !truth.between.is_empty())
    {
        // The stored numbers as the player reads them, once for both (a float piece's are
        // those its replay read: `widened_float`, which `float_numbers` stores exactly).
        if precision == Precision::Fixed {
            widened = checked.widened_all(components, candidate.degree + 1);
        }
        checked.check_halves(&widened, candidate, components, truth.halves);
        checked.between_with(&widened, candidate, components, truth.between);
    }
    Ok(checked)
}

/// Calls `$f::<N>(args)` with `N` the degree `$n` (at most 8, `MAX_TERMS − 1`): the loops over
/// a piece's terms then have a fixed length (unrolled), with the same operations in the same
/// order as a loop to `$n`, so the same bits.
macro_rules! by_degree {
    ($n:expr, $f:ident($($arg:expr),*)) => {
        match $n {
            0 => $f::<0>($($arg),*),
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            4 => $f::<4>($($arg),*),
            5 => $f::<5>($($arg),*),
            6 => $f::<6>($($arg),*),
            7 => $f::<7>($($arg),*),
            _ => $f::<8>($($arg),*),
        }
    };
}
pub(super) use by_degree;

/// `player::binomials(t)` up to `C(t, N)` (the same recurrence, so the same bits; the entries
/// past `N` are 0).
#[inline(always)]
pub(super) fn binomials_to<const N: usize>(t: f64) -> [f64; MAX_TERMS] {
    let mut out = [0.0; MAX_TERMS];
    let mut b = 1.0;
    out[0] = b;
    for k in 0..N {
        b *= (t - k as f64) / (k as f64 + 1.0);
        out[k + 1] = b;
    }
    out
}

/// `player::shift_differences(&d[..=N], t, ..)` for a `t ≠ 0` whose binomials are `b`
/// (`binomials_to::<N>(t)`): `Σ_{j≥k} C(t, j−k) d_j`, highest order first.
#[inline(always)]
pub(super) fn shifted<const N: usize>(
    d: &[f64; MAX_TERMS],
    b: &[f64; MAX_TERMS],
) -> [f64; MAX_TERMS] {
    let mut out = [0.0; MAX_TERMS];
    for k in 0..N + 1 {
        let mut sum = 0.0;
        for j in (k..N + 1).rev() {
            sum += b[j - k] * d[j];
        }
        out[k] = sum;
    }
    out
}

/// `C(½, k)`, as `player::binomials(0.5)` computes them.
pub(super) const HALF_BINOMIALS: [f64; MAX_TERMS] = crate::player::binomials(0.5);

/// A piece's numbers as the player's float path reads them, `[component][term]`.
type Widened = [[f64; MAX_TERMS]; MAX_COMPONENTS];

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
    pub(super) fn widened_all(
        &self,
        components: usize,
        terms: usize,
    ) -> [[f64; MAX_TERMS]; MAX_COMPONENTS] {
        // Each number as the player's float path reads it (an integer times `2^-exponent`),
        // its precision and scale found once.
        fn fill(
            components: usize,
            terms: usize,
            number: impl Fn(usize) -> f64,
        ) -> [[f64; MAX_TERMS]; MAX_COMPONENTS] {
            let mut widened = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
            for (c, row) in widened.iter_mut().enumerate().take(components) {
                for (k, w) in row.iter_mut().enumerate().take(terms) {
                    *w = number(c * terms + k);
                }
            }
            widened
        }
        match &self.numbers {
            PieceNumbers::F32(v) => fill(components, terms, |i| {
                v.get(i).map_or(0.0, |x| f64::from(*x))
            }),
            PieceNumbers::F64(v) => fill(components, terms, |i| v.get(i).copied().unwrap_or(0.0)),
            PieceNumbers::Fixed(v) => {
                let scale = crate::math::powi(2.0, -i32::from(self.exponent));
                fill(components, terms, |i| {
                    v.get(i).map_or(0.0, |x| (*x as f64) * scale)
                })
            }
        }
    }

    /// Raises `between_error` to the largest |played − exact| at the half frames
    /// `origin + m + ½` (`halves[m]`): the state shifted once to `origin + ½`
    /// (`player::shift_differences`), then advanced by the player's additions.
    /// `widened` the stored numbers as the player reads them (`widened_all`).
    fn check_halves(
        &mut self,
        widened: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
        candidate: &Candidate,
        components: usize,
        halves: &[[f64; MAX_COMPONENTS]],
    ) {
        let error = by_degree!(candidate.degree, halves_error(widened, components, halves));
        self.between_error = self.between_error.max(error);
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
        let widened = self.widened_all(components, candidate.degree + 1);
        self.between_with(&widened, candidate, components, between);
    }

    /// [`Self::check_between`] with the stored numbers already `widened` (`widened_all`).
    fn between_with(
        &mut self,
        widened: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
        candidate: &Candidate,
        components: usize,
        between: &[(f64, [f64; MAX_COMPONENTS])],
    ) {
        let at = (candidate.origin, candidate.start);
        let (between_error, start_error) = by_degree!(
            candidate.degree,
            between_errors(widened, components, at, between)
        );
        self.between_error = self.between_error.max(between_error);
        self.start_error = self.start_error.max(start_error);
    }
}

/// Stores the candidate and replays its integer frames, stopping at the first error above
/// `stop_above` (then `max_error` is that error, not the largest); with a float precision
/// also the numbers as the player reads them, into `widened` (`widened_float`; zeros).
fn store_and_replay(
    candidate: &Candidate,
    components: usize,
    precision: Precision,
    (exact, stop_above): (&[[f64; MAX_COMPONENTS]], f64),
    widened: &mut Widened,
) -> Result<Checked, StoreFailure> {
    let mut error = ErrorAt {
        exact,
        origin: candidate.origin,
        stop_above,
        worst: (0.0, candidate.origin),
        measure: true,
    };
    let (exponent, numbers) = match precision {
        Precision::F64 | Precision::F32 => (
            0,
            replay_float(candidate, components, precision, &mut error, widened)?,
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

/// Stores a `Fixed` candidate as [`store_and_check`] does with no limit (the same exponent
/// and integers, and `OutOfRange` exactly when it gives it: the same integer replay over the
/// frames of `exact`), without measuring the errors there, which a caller that measures its
/// own (a normalized track's) would throw away: `max_error` 0
/// (`tests::fixed_store_only_is_the_unlimited_check`).
///
/// # Errors
/// `OutOfRange` when a number does not fit the precision.
pub(super) fn store_fixed(
    candidate: &Candidate,
    components: usize,
    exact: &[[f64; MAX_COMPONENTS]],
) -> Result<Checked, StoreFailure> {
    let mut error = ErrorAt {
        exact,
        origin: candidate.origin,
        stop_above: f64::INFINITY,
        worst: (0.0, candidate.origin),
        measure: false,
    };
    let (exponent, numbers) = replay_fixed(candidate, components, &mut error)?;
    Ok(Checked {
        exponent,
        numbers,
        max_error: 0.0,
        max_error_frame: candidate.origin,
        between_error: 0.0,
        start_error: 0.0,
    })
}

/// The largest |played − exact| at the integer frames replayed so far, and its frame.
struct ErrorAt<'e> {
    /// `exact[m]`: the exact value at frame `origin + m`.
    exact: &'e [[f64; MAX_COMPONENTS]],
    /// False for a replay that only proves the integers fit ([`store_fixed`]): no errors noted.
    measure: bool,
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
        self.stopped()
    }

    /// Whether the largest error so far is above `stop_above`.
    fn stopped(&self) -> bool {
        self.worst.0 > self.stop_above
    }
}

/// Stores an `F32` or `F64` candidate and replays it in f64 (f32 numbers widened), as the
/// player's forward path does. The replay reads the widened numbers, not the stored vector, so
/// it runs first: a candidate it stops (above `stop_above`, refused whatever its other frames)
/// gets no vector (its numbers empty — never read, as a refused candidate is neither kept nor
/// checked further); the others the same numbers as ever.
fn replay_float(
    candidate: &Candidate,
    components: usize,
    precision: Precision,
    error: &mut ErrorAt<'_>,
    widened: &mut Widened,
) -> Result<PieceNumbers, StoreFailure> {
    let n = candidate.degree;
    let terms = n + 1;
    let narrow = precision == Precision::F32;
    widened_float(candidate, components, narrow, widened)?;
    by_degree!(n, replay_rows(widened, components, error));
    if error.stopped() {
        return Ok(float_numbers(widened, 0, 0, narrow));
    }
    Ok(float_numbers(widened, components, terms, narrow))
}

/// The integer-frame replay of [`replay_float`] at degree `N`: per component in order, the
/// player's additions from the origin, each frame's error noted as [`ErrorAt::note`] notes it
/// (the largest, its first frame, a NaN as infinite), the component's replay stopped once the
/// largest is above `stop_above` — the same decisions, with the frame computed only when the
/// largest error moves.
///
/// The errors are first taken as finite (one comparison a frame, their finiteness summed as
/// `e · 0.0`, which is 0 for every finite `e`); if one is not, the replay is done again by
/// [`replay_rows_plain`], whose result it then is. With finite errors `!(e ≤ worst)` is
/// `e > worst`, so both make the same decisions
/// (`tests::unrolled_checks_are_the_loops_bit_for_bit`).
fn replay_rows<const N: usize>(
    widened: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
    components: usize,
    error: &mut ErrorAt<'_>,
) {
    let (mut worst, mut at) = (error.worst.0, None);
    let mut poison = 0.0f64;
    for (c, row) in widened.iter().enumerate().take(components) {
        let mut state = *row;
        for (m, truth) in error.exact.iter().enumerate() {
            let e = crate::math::abs(state[0] - truth[c]);
            poison += e * 0.0;
            if e > worst {
                worst = e;
                at = Some(m);
            }
            if worst > error.stop_above {
                break;
            }
            for i in 0..N {
                state[i] += state[i + 1];
            }
        }
    }
    if poison != 0.0 {
        return replay_rows_plain::<N>(widened, components, error);
    }
    if let Some(m) = at {
        error.worst = (worst, error.origin + m as f64);
    }
}

/// [`replay_rows`] frame by frame with a NaN error taken as infinite where it occurs.
fn replay_rows_plain<const N: usize>(
    widened: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
    components: usize,
    error: &mut ErrorAt<'_>,
) {
    let (mut worst, mut at) = (error.worst.0, None);
    for (c, row) in widened.iter().enumerate().take(components) {
        let mut state = *row;
        for (m, truth) in error.exact.iter().enumerate() {
            let e = crate::math::abs(state[0] - truth[c]);
            // `e > worst || e.is_nan()` in one comparison (`worst` is never NaN).
            if !matches!(
                e.partial_cmp(&worst),
                Some(Ordering::Less | Ordering::Equal)
            ) {
                worst = if e.is_nan() { f64::INFINITY } else { e };
                at = Some(m);
            }
            if worst > error.stop_above {
                break;
            }
            for i in 0..N {
                state[i] += state[i + 1];
            }
        }
    }
    if let Some(m) = at {
        error.worst = (worst, error.origin + m as f64);
    }
}

/// `*largest = largest.max(e)` with a NaN `e` as infinite, for an `e ≥ 0` (an absolute value)
/// and a `largest` that is never NaN: one comparison a value, the NaN test only when it moves
/// (equal values have equal bits: no −0 among absolute values).
#[inline(always)]
fn raise_largest(largest: &mut f64, e: f64) {
    if !matches!(
        e.partial_cmp(largest),
        Some(Ordering::Less | Ordering::Equal)
    ) {
        *largest = if e.is_nan() { f64::INFINITY } else { e };
    }
}

/// The largest |played − exact| at the half frames `origin + m + ½` (`halves[m]`) at degree
/// `N`, a NaN as infinite: each component's `widened` numbers shifted once to `½`
/// (`player::shift_differences`), then the player's additions.
fn halves_error<const N: usize>(
    widened: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
    components: usize,
    halves: &[[f64; MAX_COMPONENTS]],
) -> f64 {
    // The largest as if every error were finite, and their finiteness summed (`e · 0.0` is
    // 0 for a finite `e`, NaN for a NaN or infinite one): if one is not, the largest is
    // infinite, as [`raise_largest`] makes it (a NaN counts as infinite, nothing exceeds an
    // infinite one); else it is the largest (`tests::unrolled_checks_are_the_loops_bit_for_bit`).
    let (mut largest, mut poison) = (0.0f64, 0.0f64);
    for (c, row) in widened.iter().enumerate().take(components) {
        let mut state = shifted::<N>(row, &HALF_BINOMIALS);
        for truth in halves {
            let e = crate::math::abs(state[0] - truth[c]);
            poison += e * 0.0;
            largest = if e > largest { e } else { largest };
            for i in 0..N {
                state[i] += state[i + 1];
            }
        }
    }
    if poison == 0.0 {
        largest
    } else {
        f64::INFINITY
    }
}

/// The largest |played − exact| at the frames of `between` at degree `N`, and the largest at
/// the piece's start (`at = (origin, start)`), a NaN as infinite: the player's `W_0` after
/// `shift_differences` there, `Σ_j C(t, j) D_j` highest order first (the stored number itself
/// at `t = 0`).
fn between_errors<const N: usize>(
    widened: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
    components: usize,
    (origin, start): (f64, f64),
    between: &[(f64, [f64; MAX_COMPONENTS])],
) -> (f64, f64) {
    let (mut largest, mut at_start) = (0.0f64, 0.0f64);
    for (frame, truth) in between {
        let t = frame - origin;
        let b = binomials_to::<N>(t);
        for (c, row) in widened.iter().enumerate().take(components) {
            let played = if t == 0.0 {
                row[0]
            } else {
                let mut sum = 0.0;
                for j in (0..N + 1).rev() {
                    sum += b[j] * row[j];
                }
                sum
            };
            let e = crate::math::abs(played - truth[c]);
            raise_largest(&mut largest, e);
            if *frame == start {
                at_start = at_start.max(if e.is_nan() { f64::INFINITY } else { e });
            }
        }
    }
    (largest, at_start)
}

/// The stored numbers of a float piece from its `widened` numbers (`widened_float`): `terms`
/// a component for `components` components, in f32 (`narrow`) or f64. Each widened f32 number
/// is an f32's value, so narrowing it back is exact.
pub(super) fn float_numbers(
    widened: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
    components: usize,
    terms: usize,
    narrow: bool,
) -> PieceNumbers {
    if narrow {
        let mut numbers = Vec::with_capacity(components * terms);
        for row in widened.iter().take(components) {
            numbers.extend(row[..terms].iter().map(|w| *w as f32));
        }
        PieceNumbers::F32(numbers)
    } else {
        let mut numbers = Vec::with_capacity(components * terms);
        for row in widened.iter().take(components) {
            numbers.extend_from_slice(&row[..terms]);
        }
        PieceNumbers::F64(numbers)
    }
}

/// The numbers of an `F32` (`narrow`) or `F64` candidate as the player reads them, into
/// `widened` (zeros): `widened[c][k]` = `differences[c][k]` rounded to f32 and widened back,
/// or unchanged, for `c < components`, `k ≤ degree`.
///
/// # Errors
/// `OutOfRange` when one is not finite (f32 overflow).
#[inline]
pub(super) fn widened_float(
    candidate: &Candidate,
    components: usize,
    narrow: bool,
    widened: &mut [[f64; MAX_TERMS]; MAX_COMPONENTS],
) -> Result<(), StoreFailure> {
    let terms = candidate.degree + 1;
    for c in 0..components {
        for k in 0..terms {
            let d = candidate.differences[c][k];
            widened[c][k] = if narrow { f64::from(d as f32) } else { d };
            if !widened[c][k].is_finite() {
                return Err(StoreFailure::OutOfRange);
            }
        }
    }
    Ok(())
}

/// A `Fixed` candidate stored at an exponent: its integers (`ints[c * terms + k]`), and each
/// component's integer state at offset −n (where backward play starts; made in i128, proven to
/// fit i64), from which a replay proves the trajectory.
pub(super) struct FixedStart {
    /// The stored integers, `terms` a component.
    pub ints: Vec<i64>,
    /// `starts[c][k]` = `I_k(−n)` of component c.
    pub starts: [[i64; MAX_TERMS]; MAX_COMPONENTS],
}

/// Stores a `Fixed` candidate at `exponent`: its integers and states at offset −n
/// ([`FixedStart`]).
///
/// # Errors
/// `OutOfRange` when an integer does not fit i64, or a state at −n does not.
pub(super) fn fixed_start(
    candidate: &Candidate,
    components: usize,
    exponent: i8,
) -> Result<FixedStart, StoreFailure> {
    by_degree!(
        candidate.degree,
        fixed_start_at(candidate, components, exponent)
    )
}

/// [`fixed_start`] at degree `N`: a state at −n, `Σ_j C(−n, j−k) I_j`, summed in i128, fits
/// i64 or the candidate is refused.
fn fixed_start_at<const N: usize>(
    candidate: &Candidate,
    components: usize,
    exponent: i8,
) -> Result<FixedStart, StoreFailure> {
    let unit = crate::math::powi(2.0, i32::from(exponent));
    let mut ints = Vec::with_capacity(components * (N + 1));
    let mut starts = [[0i64; MAX_TERMS]; MAX_COMPONENTS];
    let negative = &NEGATIVE_BINOMIALS[N];
    for (start, d) in starts
        .iter_mut()
        .zip(&candidate.differences)
        .take(components)
    {
        let mut stored = [0i64; MAX_TERMS];
        for k in 0..N + 1 {
            stored[k] = rounded(d[k] * unit).ok_or(StoreFailure::OutOfRange)?;
        }
        ints.extend_from_slice(&stored[..N + 1]);
        // State at offset −n: I_k(−n) = Σ_j C(−n, j−k) I_j, C(−n, i) = (−1)^i C(n+i−1, i).
        for k in 0..N + 1 {
            let mut wide = 0i128;
            for j in k..N + 1 {
                wide += i128::from(negative[j - k]) * i128::from(stored[j]);
            }
            start[k] = i64::try_from(wide).map_err(|_| StoreFailure::OutOfRange)?;
        }
    }
    Ok(FixedStart { ints, starts })
}

/// `round(x)` (half away from zero) as an i64 when it is finite and below `9.2·10^18` in
/// magnitude, as [`fixed_start`] stores a number (`round`, then that test): below it, `x`
/// truncated is exact in i64 and in f64, `x − trunc(x)` is exact, and the half-way test on it
/// moves the truncation away from zero as `round` does; at or above it (or NaN), `x` is an
/// integer already (or not finite), so `round(x)` fails the test exactly when `x` does
/// (`tests::rounded_is_round`).
#[inline(always)]
fn rounded(x: f64) -> Option<i64> {
    let magnitude = crate::math::abs(x);
    if magnitude.is_nan() || magnitude >= 9.2e18 {
        return None;
    }
    let whole = x as i64;
    let part = x - whole as f64;
    Some(whole + i64::from(part >= 0.5) - i64::from(part <= -0.5))
}

/// Stores a `Fixed` candidate at the exponent of [`fixed_exponent`] and replays its integers
/// in i64 checked additions from offset −n, proving every state fits i64 ([`replay_int_row`]).
///
/// The exponent is first taken from a replay at a guessed exponent ([`Probe`]): when that
/// replay fits i64 and its largest value pins the exponent to the guess, it is the replay at
/// that exponent; when it pins another, the replay is made again there; else the exponent is
/// walked. Either way the same exponent, integers, errors and verdict
/// (`tests::probed_replay_is_the_walked_replay`).
fn replay_fixed(
    candidate: &Candidate,
    components: usize,
    error: &mut ErrorAt<'_>,
) -> Result<(i8, PieceNumbers), StoreFailure> {
    let n = candidate.degree;
    let steps = error.exact.len();
    let before = error.worst;
    let probe = Probe::new(candidate, components, steps);
    if let Some(probe) = &probe {
        if let Ok(start) = fixed_start(candidate, components, probe.guess) {
            let inverse = crate::math::powi(2.0, -i32::from(probe.guess));
            let mut largest = Some(0u64);
            let mut starts = start.starts;
            let fits = probe.fits(probe.guess);
            for (c, state) in starts.iter_mut().enumerate().take(components) {
                let row = if fits {
                    by_degree!(n, probe_int_row_fitting(state, c, steps, inverse, error))
                } else {
                    by_degree!(n, probe_int_row(state, c, steps, inverse, error))
                };
                largest = largest.zip(row).map(|(a, b)| a.max(b));
            }
            let pinned = largest.and_then(|m| probe.confirm(m, probe.guess));
            if pinned == Some(probe.guess) {
                return Ok((probe.guess, PieceNumbers::Fixed(start.ints)));
            }
            error.worst = before;
            if let Some(exponent) = pinned {
                return replay_fixed_at(candidate, components, exponent, error);
            }
        }
    }
    let exponent = fixed_exponent(candidate, components, steps)?;
    replay_fixed_at(candidate, components, exponent, error)
}

/// [`replay_fixed`] at a known `exponent`: the integers, each component replayed by
/// [`replay_int_row`].
fn replay_fixed_at(
    candidate: &Candidate,
    components: usize,
    exponent: i8,
    error: &mut ErrorAt<'_>,
) -> Result<(i8, PieceNumbers), StoreFailure> {
    let n = candidate.degree;
    let steps = error.exact.len();
    let mut start = fixed_start(candidate, components, exponent)?;
    let inverse = crate::math::powi(2.0, -i32::from(exponent));
    for (c, state) in start.starts.iter_mut().enumerate().take(components) {
        by_degree!(n, replay_int_row(state, c, steps, inverse, error))?;
    }
    Ok((exponent, PieceNumbers::Fixed(start.ints)))
}

/// One component's integer replay of [`replay_fixed`] at degree `N` from its state at offset
/// −n (which fits i64): `n + steps` advances `state[i] += state[i + 1]` (i ascending), each
/// frame from offset 0 on noted before its advance, the replay stopped once [`ErrorAt::note`]
/// says so. The additions are i64 `checked_add`s: with every operand in i64 an addition
/// overflows exactly when its exact (i128) sum leaves i64, so `OutOfRange` exactly when the
/// exact trajectory leaves i64 (the states played before a stop, the final one included); and
/// `i64 as f64` rounds the same integer as `i128 as f64`
/// (`tests::integer_replay_is_the_i128_replay`).
fn replay_int_row<const N: usize>(
    state: &mut [i64; MAX_TERMS],
    c: usize,
    steps: usize,
    inverse: f64,
    error: &mut ErrorAt<'_>,
) -> Result<(), StoreFailure> {
    for step in 0..(N + steps) {
        if step >= N && error.measure && error.note(step - N, c, state[0] as f64 * inverse) {
            break;
        }
        for i in 0..N {
            state[i] = state[i]
                .checked_add(state[i + 1])
                .ok_or(StoreFailure::OutOfRange)?;
        }
    }
    Ok(())
}

/// [`replay_int_row`] for a [`Probe`]: the same notes (the same errors and stop), but the
/// whole trajectory advanced whatever the stop, and the largest `|I_0|` over its states
/// (offsets −n to `steps`, the last included) returned; `None` when an addition leaves i64
/// anywhere (the caller then replays as [`replay_int_row`] does).
fn probe_int_row<const N: usize>(
    state: &mut [i64; MAX_TERMS],
    c: usize,
    steps: usize,
    inverse: f64,
    error: &mut ErrorAt<'_>,
) -> Option<u64> {
    let mut measuring = error.measure;
    let (mut low, mut high) = (state[0], state[0]);
    let mut overflow = false;
    for step in 0..(N + steps) {
        let value = state[0];
        low = low.min(value);
        high = high.max(value);
        if step >= N && measuring && error.note(step - N, c, value as f64 * inverse) {
            measuring = false;
        }
        for i in 0..N {
            let (sum, over) = state[i].overflowing_add(state[i + 1]);
            state[i] = sum;
            overflow |= over;
        }
    }
    low = low.min(state[0]);
    high = high.max(state[0]);
    (!overflow).then(|| low.unsigned_abs().max(high.unsigned_abs()))
}

/// [`probe_int_row`] for a trajectory proven to fit i64 ([`Probe::fits`]): wrapping
/// additions, which then are exact.
fn probe_int_row_fitting<const N: usize>(
    state: &mut [i64; MAX_TERMS],
    c: usize,
    steps: usize,
    inverse: f64,
    error: &mut ErrorAt<'_>,
) -> Option<u64> {
    let mut measuring = error.measure;
    let (mut low, mut high) = (state[0], state[0]);
    for step in 0..(N + steps) {
        let value = state[0];
        low = low.min(value);
        high = high.max(value);
        if step >= N && measuring && error.note(step - N, c, value as f64 * inverse) {
            measuring = false;
        }
        for i in 0..N {
            state[i] = state[i].wrapping_add(state[i + 1]);
        }
    }
    low = low.min(state[0]);
    high = high.max(state[0]);
    Some(low.unsigned_abs().max(high.unsigned_abs()))
}

/// `C(2n, n)` for `n ≤ 8`: `Σ_{i ≤ n} |C(−n, i)|`.
const CENTRAL_BINOMIALS: [f64; MAX_TERMS] =
    [1.0, 2.0, 6.0, 20.0, 70.0, 252.0, 924.0, 3432.0, 12870.0];

/// What fixes a fixed candidate's exponent without walking its f64 trajectory: two bounds
/// of the walk's largest `W` ([`fixed_exponent`]), one from the first state and one from a
/// replay's integers.
///
/// Notation: `x = ŝ(0)` the walk's first states (`shift_differences(d, −n)`), `A` its advances
/// (`n + steps`), `u = 2^-53`, `y = 2^-e I(−n)` the integer states at −n at exponent e.
///
/// - Below, `W ≥ L = max |x_k|` (the walk takes its first state).
/// - The states `k ≥ 1`: each walk addition is `fl(a + b) = (a + b)(1 + δ)`, `|δ| ≤ u` (exact
///   in the subnormal range), so `|ŝ_k(t)| ≤ (1 + u)^t Σ_{j≥k} C(t, j−k) |x_j|`, which grows
///   with t; at `t = A ≤ 10^6`, `(1 + u)^A < 1 + 2.3·10^-10`, so the f64 sum (relative error
///   below 30u) times `1 + 10^-9`, plus the smallest normal number (what an underflowing
///   product loses), bounds them all: `U1`.
/// - The values `k = 0`: the integer replay is exact, `2^-e I_0(t) = Σ_j C(t, j) y_j`, and
///   `ŝ_0(t) = Σ_j C(t, j) x_j` up to `((1 + u)^t − 1) Σ_j C(t, j) |x_j| ≤ 2.2 A u CS·X`
///   (`CS = Σ_{j≤n} C(A, j)`, `X = max |x|`). `|x_j − y_j| ≤ ε_j + NB·2^-e`: `I_i` is
///   `round(2^e d_i)` (within `1/2`, `2^e d_i` exact or within 2^-1074) and
///   `NB = Σ_i |C(−n, i)| = C(2n, n)`; `ε_j ≤ 30u·NB·D` (`D = max |d|`) the error of
///   `shift_differences` (binomials by a recurrence of ≤ 2n roundings, then ≤ n + 1 products
///   and sums: ≤ 3n + 1 ≤ 25 roundings). So with `M = max_t |I_0(t)|`,
///   `|W_0 − 2^-e M| ≤ δ = CS·NB·(30u·D + 2^-e) + 2.2 A u CS·X`, computed with a margin.
///
/// `W` lies in `[max(L, 2^-e M − δ), max(U1, 2^-e M + δ)]`; when both ends give the same
/// exponent ([`exponent_for`] is monotone), that is [`fixed_exponent`]'s.
pub(super) struct Probe {
    /// `L`.
    low: f64,
    /// `U1` (0 at degree 0).
    rest: f64,
    /// `CS·NB·30u·D + 2.2 A u CS·X`, and `CS·NB` (times `2^-e`).
    delta: (f64, f64),
    /// `max_k Σ_{j≥k} C(A, j−k) |x_j| + CS·NB·30u·D` (times `2^e`), and `CS·NB`: what bounds
    /// the integer states ([`Probe::fits`]).
    reach: (f64, f64),
    /// The exponent the replay is first made at: of the largest of `L`, `D`, and the values
    /// at the last offset.
    pub guess: i8,
}

impl Probe {
    /// The probe of `candidate` replayed over `steps` frames; `None` for none (no frame, a
    /// number not finite, more than 10^6 advances).
    pub(super) fn new(candidate: &Candidate, components: usize, steps: usize) -> Option<Self> {
        by_degree!(candidate.degree, probe_new(candidate, components, steps))
    }

    /// The exponent, if the replay at `exponent` whose largest `|I_0|` is `largest` (or one
    /// less) pins it.
    pub(super) fn confirm(&self, largest: u64, exponent: i8) -> Option<i8> {
        const U: f64 = 1.0 / 9_007_199_254_740_992.0;
        let inverse = crate::math::powi(2.0, -i32::from(exponent));
        // δ, and one integer unit for a `largest` one above the largest.
        let delta = (self.delta.0 + (self.delta.1 + 1.0) * inverse) * (1.0 + 1e-6);
        // `u64 as f64` within a relative u; times a power of two, exact.
        let value = largest as f64 * inverse;
        let below = self.low.max(value * (1.0 - 2.0 * U) - delta);
        let above = self.rest.max(value * (1.0 + 2.0 * U) + delta);
        if !(below > 0.0 && above.is_finite()) {
            return None;
        }
        let e = exponent_for(below);
        (e == exponent_for(above)).then_some(e)
    }

    /// Whether no state of the integer trajectories at `exponent` (from the states at −n of
    /// [`fixed_start`]) over the `A` advances can leave i64. `|I_k(t)| ≤ Σ_{j≥k} C(t, j−k)
    /// |I_j(−n)|`, which grows with t, and `|I_j(−n)| ≤ 2^e |x_j| + 2^e ε_j + NB` (see
    /// [`Probe`]: `|x_j − y_j| ≤ ε_j + NB·2^-e`, `ε_j ≤ 30u·NB·D`), so with `Σ_{j≥k} C(A, j−k) ≤
    /// CS` every state is at most `2^e (max_k Σ_{j≥k} C(A, j−k)|x_j| + CS·NB·30u·D) + CS·NB`;
    /// that, computed in f64 (relative error below 50u) times `1 + 10^-9`, below
    /// `9.2·10^18 < 2^63` proves it. Then every addition of the replay is exact
    /// (`tests::fitting_trajectories_stay_in_i64`).
    pub(super) fn fits(&self, exponent: i8) -> bool {
        let unit = crate::math::powi(2.0, i32::from(exponent));
        (unit * self.reach.0 + self.reach.1) * (1.0 + 1e-9) < 9.2e18
    }
}

/// [`Probe::new`] at degree `N`. The first states are `shift_differences(d, −N)` (for
/// `N ≥ 1` `shifted` with `binomials_to`: the same recurrence and sums, so the same bits).
fn probe_new<const N: usize>(
    candidate: &Candidate,
    components: usize,
    steps: usize,
) -> Option<Probe> {
    const U: f64 = 1.0 / 9_007_199_254_740_992.0;
    let advances = N + steps;
    if steps == 0 || advances > 1_000_000 {
        return None;
    }
    let t = advances as f64;
    // C(A, i) for i ≤ N, and C(steps, i) for the values at the last offset.
    let (mut whole, mut last) = ([0.0f64; MAX_TERMS], [0.0f64; MAX_TERMS]);
    (whole[0], last[0]) = (1.0, 1.0);
    for i in 0..N {
        let i_f = i as f64;
        whole[i + 1] = (whole[i] * (t - i_f) / (i_f + 1.0)).max(0.0);
        last[i + 1] = (last[i] * (steps as f64 - i_f) / (i_f + 1.0)).max(0.0);
    }
    let back = binomials_to::<N>(-(N as f64));
    let (mut low, mut rest, mut most, mut end) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    // `max_c Σ_j C(A, j) |x_j|`, the states k = 0 (`rest` is k ≥ 1).
    let mut value = 0.0f64;
    // `x · 0.0` is 0 for a finite x, NaN for any other.
    let mut poison = 0.0f64;
    for d in candidate.differences.iter().take(components) {
        let start = if N == 0 { *d } else { shifted::<N>(d, &back) };
        let size = start.map(crate::math::abs);
        let mut at_end = 0.0;
        for k in 0..N + 1 {
            poison += d[k] * 0.0 + start[k] * 0.0;
            low = if size[k] > low { size[k] } else { low };
            let dk = crate::math::abs(d[k]);
            most = if dk > most { dk } else { most };
            at_end += last[k] * d[k];
        }
        for k in 1..N + 1 {
            let mut sum = 0.0;
            for j in k..N + 1 {
                sum += whole[j - k] * size[j];
            }
            rest = if sum > rest { sum } else { rest };
        }
        let mut sum = 0.0;
        for j in 0..N + 1 {
            sum += whole[j] * size[j];
        }
        value = if sum > value { sum } else { value };
        let at_end = crate::math::abs(at_end);
        end = if at_end > end { at_end } else { end };
    }
    if poison != 0.0 {
        return None;
    }
    let cs: f64 = whole[..=N].iter().sum();
    let nb = CENTRAL_BINOMIALS[N];
    let delta = (cs * nb * 30.0 * U * most + 2.2 * t * U * cs * low, cs * nb);
    let reach = (value.max(rest) + cs * nb * 30.0 * U * most, cs * nb);
    let rest = if N == 0 {
        0.0
    } else {
        rest * (1.0 + 1e-9) + f64::MIN_POSITIVE
    };
    let seen = low.max(most).max(end);
    let finite = [rest, delta.0, delta.1, seen, reach.0, reach.1];
    if !finite.iter().all(|x| x.is_finite()) {
        return None;
    }
    let guess = if seen == 0.0 { 60 } else { exponent_for(seen) };
    Some(Probe {
        low,
        rest,
        delta,
        reach,
        guess,
    })
}

/// `C(−n, i) = (−1)^i C(n + i − 1, i)` for `i ≤ n ≤ 8` (`NEGATIVE_BINOMIALS[n][i]`; at most
/// `C(15, 8) = 6435` in magnitude).
const NEGATIVE_BINOMIALS: [[i64; MAX_TERMS]; MAX_TERMS] = {
    let mut table = [[0i64; MAX_TERMS]; MAX_TERMS];
    let mut n = 0;
    while n < MAX_TERMS {
        let mut i = 0;
        while i <= n {
            table[n][i] = negative_binomial(n, i);
            i += 1;
        }
        n += 1;
    }
    table
};

/// `C(−n, i) = (−1)^i C(n + i − 1, i)`.
const fn negative_binomial(n: usize, i: usize) -> i64 {
    let mut c: i64 = 1;
    let mut r = 0;
    while r < i {
        // C(n+r, r+1) = C(n+r-1, r) · (n + r) / (r + 1), exact at each step.
        c = c * (n + r) as i64 / (r + 1) as i64;
        r += 1;
    }
    if i % 2 == 1 {
        -c
    } else {
        c
    }
}

/// The largest exponent e with `max |state| · 2^e ≤ 2^61` over the trajectory from offset −n
/// through the last checked frame (computed in f64 from the exact differences), clamped to the
/// format's range. The integer replay then proves the bound.
fn fixed_exponent(
    candidate: &Candidate,
    components: usize,
    steps: usize,
) -> Result<i8, StoreFailure> {
    let n = candidate.degree;
    let mut starts = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
    for (c, start) in starts.iter_mut().enumerate().take(components) {
        crate::player::shift_differences(
            &candidate.differences[c][..=n],
            -(n as f64),
            &mut start[..=n],
        );
    }
    walked_exponent(&starts, components, n, n + steps.max(1))
}

/// [`fixed_exponent`] by the walk: the largest over the trajectories of `starts` (each
/// component's state at offset −n, `advances` advances), then its exponent.
fn walked_exponent(
    starts: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
    components: usize,
    n: usize,
    advances: usize,
) -> Result<i8, StoreFailure> {
    let mut largest: f64 = 0.0;
    for start in starts.iter().take(components) {
        largest = largest.max(by_degree!(n, trajectory_largest(*start, advances)));
    }
    if !largest.is_finite() {
        return Err(StoreFailure::OutOfRange);
    }
    if largest == 0.0 {
        return Ok(60);
    }
    Ok(exponent_for(largest))
}

/// The exponent for a finite, nonzero trajectory largest: `61 − p` with p the smallest with
/// `2^p ≥ largest`, clamped to the format's range. Nonincreasing in `largest`. Read from the
/// number's bits: `2^E ≤ largest < 2^(E+1)` for a normal number of exponent field `E + 1023`,
/// p is E for a power of two and E + 1 otherwise; a subnormal one (or 0) is below 2^-1022,
/// where the clamp gives the largest exponent (`tests::exponent_for_is_the_search`).
fn exponent_for(largest: f64) -> i8 {
    let bits = largest.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    let p = if field == 0 {
        -1100
    } else {
        field - 1023 + i32::from(bits & ((1 << 52) - 1) != 0)
    };
    let e = (61 - p).clamp(
        i32::from(FIXED_EXPONENT_RANGE.0),
        i32::from(FIXED_EXPONENT_RANGE.1),
    );
    // Within the format's range, which is within i8.
    e as i8
}

/// The largest `|state[k]|` (`k ≤ N`, NaNs passed over as `f64::max` passes them) over the
/// states of [`fixed_exponent`]'s trajectory: `state` and the `advances` states after it, each
/// made by `state[i] += state[i + 1]` (i ascending). A largest term a term, joined at the end:
/// `f64::max` of non-NaN absolute values picks one of them whatever the order (no −0 among
/// them), so the same number as one running largest (`tests::trajectory_largest_is_the_loop`).
fn trajectory_largest<const N: usize>(mut state: [f64; MAX_TERMS], advances: usize) -> f64 {
    // `if a > m { a } else { m }` is `m.max(a)` for a never-NaN `m` (a NaN `a` leaves `m`),
    // in a form the vector units take (`maxpd`).
    let mut largest = [0.0f64; MAX_TERMS];
    for _ in 0..advances {
        for k in 0..N + 1 {
            let a = crate::math::abs(state[k]);
            largest[k] = if a > largest[k] { a } else { largest[k] };
        }
        for i in 0..N {
            state[i] += state[i + 1];
        }
    }
    let mut all = 0.0f64;
    for k in 0..N + 1 {
        all = all.max(largest[k].max(crate::math::abs(state[k])));
    }
    all
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*) for the random candidates.
    pub(in crate::compile) struct Random(pub u64);

    impl Random {
        /// A uniform number in [0, 1).
        pub fn unit(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
        }
        /// A uniform number in [-x, x).
        pub fn symmetric(&mut self, x: f64) -> f64 {
            (2.0 * self.unit() - 1.0) * x
        }
    }

    /// A random candidate of `components` components and degree 0–8 with an origin inside it,
    /// its differences shrinking with their order (as a fit's do), one in 64 beyond f32's range;
    /// and the exact values of its `frames` integer frames: its own values (played in f64)
    /// moved by random amounts around `limit`, so that some candidates hold and some fail at
    /// a random frame.
    pub(in crate::compile) fn random_case(
        random: &mut Random,
        components: usize,
        limit: f64,
    ) -> (Candidate, Vec<[f64; MAX_COMPONENTS]>) {
        let degree = (random.unit() * 9.0) as usize;
        let frames = 1 + (random.unit() * 12.0) as usize;
        let mut differences = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
        for row in differences.iter_mut().take(components) {
            for (k, d) in row.iter_mut().enumerate().take(degree + 1) {
                *d = random.symmetric(1.0) * crate::math::powi(0.3, k as i32);
            }
        }
        if random.unit() < 1.0 / 64.0 {
            differences[0][degree] = 1e39;
        }
        let start = random.symmetric(100.0);
        let origin = crate::math::ceil(start);
        let candidate = Candidate {
            start,
            end: origin + frames as f64,
            origin,
            degree,
            differences,
        };
        let spread = if random.unit() < 0.5 { 0.5 } else { 4.0 } * limit;
        let mut state = differences;
        let exact = (0..frames)
            .map(|_| {
                let mut value = [0.0; MAX_COMPONENTS];
                for c in 0..components {
                    value[c] = state[c][0] + random.symmetric(spread);
                    for i in 0..degree {
                        state[c][i] += state[c][i + 1];
                    }
                }
                value
            })
            .collect();
        (candidate, exact)
    }

    /// The checks unrolled by degree (`replay_rows`, `halves_error`, `between_errors`,
    /// `binomials_to`, `shifted`) give the bits of the loops to the degree they replace —
    /// `ErrorAt::note` frame by frame, `player::shift_differences` and `player::binomials` —
    /// on 20 000 random candidates (1–4 components, degrees 0–8, exact values moved around the
    /// limit, one in 16 with a NaN or an infinity, one in 64 with a number beyond f32's range), stopping early
    /// or not: the same largest errors and frames. Changing the order of an unrolled sum (or
    /// noting a frame's error after its additions) makes it fail.
    #[test]
    fn unrolled_checks_are_the_loops_bit_for_bit() {
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        for i in 0..20_000 {
            let components = 1 + i % 4;
            let limit = 1e-4;
            let (candidate, mut exact) = random_case(&mut random, components, limit);
            if random.unit() < 1.0 / 16.0 {
                let last = exact.len() - 1;
                let m = ((random.unit() * exact.len() as f64) as usize).min(last);
                // A NaN, or an infinite error (the checks take errors as finite first).
                exact[m][components - 1] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY]
                    [((random.unit() * 3.0) as usize).min(2)];
            }
            let n = candidate.degree;
            let widened = candidate.differences;
            let stop_above = if i % 3 == 0 { f64::INFINITY } else { limit };
            // Integer frames: the loop with `ErrorAt::note` as it was.
            let fresh = || ErrorAt {
                exact: &exact,
                origin: candidate.origin,
                stop_above,
                worst: (0.0, candidate.origin),
                measure: true,
            };
            let mut reference = fresh();
            for c in 0..components {
                let mut state = widened[c];
                for m in 0..exact.len() {
                    if reference.note(m, c, state[0]) {
                        break;
                    }
                    for k in 0..n {
                        state[k] += state[k + 1];
                    }
                }
            }
            let mut unrolled = fresh();
            by_degree!(n, replay_rows(&widened, components, &mut unrolled));
            assert_eq!(
                (unrolled.worst.0.to_bits(), unrolled.worst.1.to_bits()),
                (reference.worst.0.to_bits(), reference.worst.1.to_bits()),
                "case {i}"
            );
            // Half frames: shifted once by `shift_differences`, then added.
            let mut largest = 0.0f64;
            for c in 0..components {
                let mut state = [0.0; MAX_TERMS];
                crate::player::shift_differences(&widened[c][..=n], 0.5, &mut state[..=n]);
                for truth in &exact {
                    let e = crate::math::abs(state[0] - truth[c]);
                    largest = largest.max(if e.is_nan() { f64::INFINITY } else { e });
                    for k in 0..n {
                        state[k] += state[k + 1];
                    }
                }
            }
            let halves = by_degree!(n, halves_error(&widened, components, &exact));
            assert_eq!(halves.to_bits(), largest.to_bits(), "case {i}");
            // Between frames (the start, the origin and random offsets): `binomials`' sums.
            let mut between: Vec<(f64, [f64; MAX_COMPONENTS])> =
                alloc::vec![(candidate.start, exact[0]), (candidate.origin, exact[0])];
            for truth in &exact {
                let t = random.symmetric(8.0);
                between.push((candidate.origin + t, *truth));
                let b = crate::player::binomials(t);
                let to = by_degree!(n, binomials_to(t));
                assert_eq!(b[..=n], to[..=n], "case {i}: C({t}, k)");
                if t != 0.0 {
                    let mut state = [0.0; MAX_TERMS];
                    crate::player::shift_differences(&widened[0][..=n], t, &mut state[..=n]);
                    let unrolled = by_degree!(n, shifted(&widened[0], &to));
                    assert_eq!(unrolled[..=n], state[..=n], "case {i}: shifted by {t}");
                }
            }
            let (mut largest, mut at_start) = (0.0f64, 0.0f64);
            for (frame, truth) in &between {
                let t = frame - candidate.origin;
                let b = crate::player::binomials(t);
                for c in 0..components {
                    let played = if t == 0.0 {
                        widened[c][0]
                    } else {
                        (0..=n).rev().fold(0.0, |sum, j| sum + b[j] * widened[c][j])
                    };
                    let e = crate::math::abs(played - truth[c]);
                    let e = if e.is_nan() { f64::INFINITY } else { e };
                    largest = largest.max(e);
                    if *frame == candidate.start {
                        at_start = at_start.max(e);
                    }
                }
            }
            let at = (candidate.origin, candidate.start);
            let (unrolled, start) =
                by_degree!(n, between_errors(&widened, components, at, &between));
            assert_eq!(
                (unrolled.to_bits(), start.to_bits()),
                (largest.to_bits(), at_start.to_bits()),
                "case {i}"
            );
        }
        assert_eq!(HALF_BINOMIALS, crate::player::binomials(0.5));
    }

    /// The exact values of integer frames only (no fractional frames).
    pub(in crate::compile) fn integer_frames_only(exact: &[[f64; MAX_COMPONENTS]]) -> Truth<'_> {
        Truth {
            exact,
            halves: &[],
            between: &[],
        }
    }

    /// How many numbers `numbers` holds.
    pub(in crate::compile) fn stored_count(numbers: &PieceNumbers) -> usize {
        match numbers {
            PieceNumbers::F32(v) => v.len(),
            PieceNumbers::F64(v) => v.len(),
            PieceNumbers::Fixed(v) => v.len(),
        }
    }

    /// Asserts that `check` stopping early and the whole check of case `i` agree: the same
    /// failure to store, or the same verdict at `limit`, and then either no numbers (refused)
    /// or the same result; counts the refused and held in `counts`. The whole check's result,
    /// if stored.
    pub(in crate::compile) fn agree(
        check: impl Fn(Limit) -> Result<Checked, StoreFailure>,
        limit: f64,
        i: usize,
        counts: &mut (usize, usize),
    ) -> Option<Checked> {
        let at = |stop_early| Limit {
            integer: limit,
            stop_early,
        };
        let (early, whole) = match (check(at(true)), check(at(false))) {
            (Ok(early), Ok(whole)) => (early, whole),
            (early, whole) => {
                assert_eq!(early.err(), whole.err(), "case {i}");
                return None;
            }
        };
        assert_eq!(early.max_error > limit, whole.max_error > limit, "case {i}");
        if whole.max_error > limit {
            counts.0 += 1;
            assert_eq!(stored_count(&early.numbers), 0, "case {i}");
        } else {
            counts.1 += 1;
            assert_eq!(early, whole, "case {i}");
        }
        Some(whole)
    }

    /// The rule that refused candidates are not stored: on 20 000 random candidates in f32
    /// and f64, the check that may stop early refuses exactly those the whole replay finds
    /// above the limit, and gives every other one the whole check's result (numbers, errors
    /// and frames); the stored numbers are the differences rounded to the precision, component
    /// after component.
    #[test]
    fn refused_candidates_are_the_ones_the_whole_replay_refuses() {
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        let mut counts = (0, 0);
        for i in 0..20_000 {
            let components = 1 + i % MAX_COMPONENTS;
            let precision = if i % 2 == 0 {
                Precision::F32
            } else {
                Precision::F64
            };
            let limit = 1e-4;
            let (candidate, exact) = random_case(&mut random, components, limit);
            let truth = integer_frames_only(&exact);
            let check = |limit| store_and_check(&candidate, components, precision, &truth, limit);
            let Some(whole) = agree(check, limit, i, &mut counts) else {
                continue;
            };
            let terms = candidate.degree + 1;
            for c in 0..components {
                for k in 0..terms {
                    let d = candidate.differences[c][k];
                    let stored = match &whole.numbers {
                        PieceNumbers::F32(v) => f64::from(v[c * terms + k]),
                        PieceNumbers::F64(v) => v[c * terms + k],
                        PieceNumbers::Fixed(_) => f64::NAN,
                    };
                    let expected = if precision == Precision::F32 {
                        f64::from(d as f32)
                    } else {
                        d
                    };
                    assert_eq!(stored.to_bits(), expected.to_bits(), "case {i}");
                }
            }
        }
        assert!(
            counts.0 > 2_000 && counts.1 > 2_000,
            "refused, held: {counts:?}"
        );
    }

    /// The integer replay as it was before `replay_int_row`: the state in i128 from offset −n,
    /// every state checked to fit i64 before its frame and once after the last advance.
    fn replay_row_i128(
        mut state: [i128; MAX_TERMS],
        n: usize,
        c: usize,
        steps: usize,
        inverse: f64,
        error: &mut ErrorAt<'_>,
    ) -> Result<(), StoreFailure> {
        let fits = |s: &[i128; MAX_TERMS]| {
            s.iter()
                .take(n + 1)
                .all(|x| *x >= i128::from(i64::MIN) && *x <= i128::from(i64::MAX))
        };
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
        if fits(&state) {
            Ok(())
        } else {
            Err(StoreFailure::OutOfRange)
        }
    }

    /// `replay_int_row` (i64 `checked_add`s, unrolled by degree) against the i128 replay it
    /// replaced, on 20 000 random states: half of them near i64's ends (magnitudes up to 2^62
    /// to 2^63, so that many trajectories leave i64 at some frame), degrees 0–8, 1–13 frames,
    /// stopping early or not, exact values with a NaN now and then: the same result
    /// (`OutOfRange` or not) and the same largest error and frame. Letting an overflow wrap, or
    /// checking before the stop instead of at the next state, makes it fail.
    /// [`store_fixed`] stores what the unlimited [`store_and_check`] stores (exponent and
    /// integers), and fails with `OutOfRange` exactly when it does, on random candidates of 1
    /// and 4 components (some beyond any exponent's range).
    #[test]
    fn fixed_store_only_is_the_unlimited_check() {
        let mut random = Random(0x5eed_f1c5);
        let whole = Limit {
            integer: f64::INFINITY,
            stop_early: false,
        };
        let (mut stored, mut refused) = (0, 0);
        for i in 0..4000 {
            let components = if i % 2 == 0 { 4 } else { 1 };
            let (mut candidate, exact) = random_case(&mut random, components, 1e-6);
            if i % 5 == 0 {
                // Large high-order differences: the exponent from their trajectory.
                candidate.differences[0][candidate.degree] *= 1e6;
            }
            if i % 7 == 0 {
                // Beyond the range of every exponent, or not finite.
                candidate.differences[components - 1][0] = [1e200, f64::INFINITY][(i / 7) % 2];
            }
            let truth = Truth {
                exact: &exact,
                halves: &[],
                between: &[],
            };
            let want = store_and_check(&candidate, components, Precision::Fixed, &truth, whole);
            let got = store_fixed(&candidate, components, &exact);
            match (got, want) {
                (Ok(got), Ok(want)) => {
                    assert_eq!(got.exponent, want.exponent, "case {i}");
                    assert_eq!(got.numbers, want.numbers, "case {i}");
                    stored += 1;
                }
                (Err(got), Err(want)) => {
                    assert_eq!(got, want, "case {i}");
                    refused += 1;
                }
                (got, want) => panic!("case {i}: {:?} vs {:?}", got.is_ok(), want.is_ok()),
            }
        }
        assert!(
            stored > 1000 && refused > 10,
            "{stored} stored, {refused} refused"
        );
    }

    #[test]
    fn integer_replay_is_the_i128_replay() {
        let mut random = Random(0x2545_f491_4f6c_dd1d);
        let mut outcomes = (0, 0);
        for i in 0..20_000 {
            let n = (random.unit() * 9.0) as usize;
            let steps = 1 + (random.unit() * 13.0) as usize;
            let scale = if i % 2 == 0 {
                crate::math::powi(2.0, 62) * (1.0 + random.unit())
            } else {
                1e6
            };
            let mut state = [0i64; MAX_TERMS];
            for s in state.iter_mut().take(n + 1) {
                // Below 2^63 in magnitude, and clamped into i64 (`as` saturates).
                *s = random.symmetric(scale) as i64;
            }
            let inverse = crate::math::powi(2.0, -20);
            let mut exact: Vec<[f64; MAX_COMPONENTS]> = (0..steps)
                .map(|_| [random.symmetric(scale) * inverse; MAX_COMPONENTS])
                .collect();
            if random.unit() < 1.0 / 16.0 {
                exact[steps - 1][0] = f64::NAN;
            }
            let stop_above = if i % 3 == 0 {
                f64::INFINITY
            } else {
                scale * inverse
            };
            let fresh = || ErrorAt {
                exact: &exact,
                origin: 7.0,
                stop_above,
                worst: (0.0, 7.0),
                measure: true,
            };
            let mut reference = fresh();
            let wide = state.map(i128::from);
            let want = replay_row_i128(wide, n, 0, steps, inverse, &mut reference);
            let mut fast = fresh();
            let mut narrow = state;
            let got = by_degree!(n, replay_int_row(&mut narrow, 0, steps, inverse, &mut fast));
            assert_eq!(got, want, "case {i}");
            if want.is_ok() {
                outcomes.1 += 1;
                assert_eq!(
                    (fast.worst.0.to_bits(), fast.worst.1.to_bits()),
                    (reference.worst.0.to_bits(), reference.worst.1.to_bits()),
                    "case {i}"
                );
            } else {
                outcomes.0 += 1;
            }
        }
        assert!(
            outcomes.0 > 2_000 && outcomes.1 > 2_000,
            "out of range, fitting: {outcomes:?}"
        );
    }

    /// `trajectory_largest` is the running largest it replaced (`largest.max(|s|)` state after
    /// state, then the last) to the bit, on 20 000 random trajectories: degrees 0–8, 1–20
    /// advances, numbers of every size (some overflowing to infinity, so that NaNs appear
    /// downstream), one in 16 with a NaN or an infinity given.
    #[test]
    fn trajectory_largest_is_the_loop() {
        let mut random = Random(0xd1b5_4a32_d192_ed03);
        for i in 0..20_000 {
            let n = (random.unit() * 9.0) as usize;
            let advances = 1 + (random.unit() * 20.0) as usize;
            let mut state = [0.0; MAX_TERMS];
            for s in state.iter_mut().take(n + 1) {
                let size = crate::math::powi(10.0, (random.unit() * 620.0) as i32 - 310);
                *s = random.symmetric(size);
            }
            if random.unit() < 1.0 / 16.0 {
                state[((random.unit() * (n + 1) as f64) as usize).min(n)] =
                    [f64::NAN, f64::INFINITY][i % 2];
            }
            let mut reference = state;
            let mut want: f64 = 0.0;
            for _ in 0..advances {
                for s in reference.iter().take(n + 1) {
                    want = want.max(crate::math::abs(*s));
                }
                for k in 0..n {
                    reference[k] += reference[k + 1];
                }
            }
            for s in reference.iter().take(n + 1) {
                want = want.max(crate::math::abs(*s));
            }
            let got = by_degree!(n, trajectory_largest(state, advances));
            assert_eq!(got.to_bits(), want.to_bits(), "case {i}: {state:?}");
        }
    }

    /// `exponent_for` (read from the bits) is the search it replaced (p up from 0 while
    /// `2^p < x`, then down while `2^(p−1) ≥ x`, clamped) on powers of two, their neighbours and
    /// random numbers of every size, subnormal ones included.
    #[test]
    fn exponent_for_is_the_search() {
        let search = |x: f64| {
            let mut p: i32 = 0;
            while crate::math::powi(2.0, p) < x && p < 1100 {
                p += 1;
            }
            while p > -1100 && crate::math::powi(2.0, p - 1) >= x {
                p -= 1;
            }
            (61 - p).clamp(
                i32::from(FIXED_EXPONENT_RANGE.0),
                i32::from(FIXED_EXPONENT_RANGE.1),
            ) as i8
        };
        let mut random = Random(0x0123_4567_89ab_cdef);
        let mut cases = vec![f64::MIN_POSITIVE, 5e-324, f64::MAX, 1.0];
        for p in -1074..1024 {
            let x = crate::math::powi(2.0, p);
            cases.extend([
                x,
                f64::from_bits(x.to_bits() + 1),
                f64::from_bits(x.to_bits() - 1),
            ]);
        }
        for _ in 0..20_000 {
            let size = crate::math::powi(2.0, (random.unit() * 2098.0) as i32 - 1074);
            cases.push(random.unit() * size);
        }
        for x in cases {
            if x > 0.0 && x.is_finite() {
                assert_eq!(exponent_for(x), search(x), "{x:e}");
            }
        }
    }

    /// Integer states at −n from `NEGATIVE_BINOMIALS`, advanced n times in i128, give back the
    /// stored integers (the backward shift is the forward one's inverse), for every degree.
    #[test]
    fn negative_binomials_invert_the_shift() {
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        for i in 0..2000 {
            let n = i % MAX_TERMS;
            let stored: Vec<i64> = (0..=n).map(|_| random.symmetric(1e12) as i64).collect();
            let mut state = [0i128; MAX_TERMS];
            for k in 0..=n {
                for j in k..=n {
                    state[k] += i128::from(NEGATIVE_BINOMIALS[n][j - k]) * i128::from(stored[j]);
                }
            }
            for _ in 0..n {
                for k in 0..n {
                    state[k] += state[k + 1];
                }
            }
            for k in 0..=n {
                assert_eq!(state[k], i128::from(stored[k]), "n {n}");
            }
        }
    }

    /// `Probe::fits` is sound: on 20 000 random candidates (1–4 components, degrees 0–8,
    /// 1–60 frames, differences shrinking or not with their order) stored at the probe's
    /// guess or one or two above it (values up to 2^63), whenever it passes the exponent, the
    /// exact (i128) trajectories from `fixed_start`'s states stay in i64 at every state; it
    /// passes thousands and refuses thousands, some of which do leave i64.
    #[test]
    fn fitting_trajectories_stay_in_i64() {
        let mut random = Random(0x6a09_e667_f3bc_c908);
        let (mut passed, mut refused, mut left) = (0, 0, 0);
        for i in 0..20_000 {
            let components = 1 + i % 4;
            let n = (random.unit() * 9.0) as usize;
            let steps = 1 + (random.unit() * 60.0) as usize;
            let fall = [1.0, 0.3, 0.05][i % 3];
            let mut candidate = Candidate {
                start: 0.0,
                end: steps as f64,
                origin: 0.0,
                degree: n,
                differences: [[0.0; MAX_TERMS]; MAX_COMPONENTS],
            };
            for row in candidate.differences.iter_mut().take(components) {
                for (k, d) in row.iter_mut().enumerate().take(n + 1) {
                    *d = random.symmetric(1.0) * crate::math::powi(fall, k as i32);
                }
            }
            let probe = Probe::new(&candidate, components, steps).expect("a probe");
            let exponent = probe.guess.saturating_add((i % 3) as i8);
            let Ok(start) = fixed_start(&candidate, components, exponent) else {
                continue;
            };
            let mut inside = true;
            for row in start.starts.iter().take(components) {
                let mut exact = row.map(i128::from);
                for _ in 0..n + steps {
                    for k in 0..n {
                        exact[k] += exact[k + 1];
                        inside &= i64::try_from(exact[k]).is_ok();
                    }
                }
            }
            if probe.fits(exponent) {
                assert!(inside, "case {i}: {candidate:?} at {exponent}");
                passed += 1;
            } else {
                refused += 1;
                left += usize::from(!inside);
            }
        }
        assert!(
            passed > 2_000 && refused > 2_000 && left > 50,
            "{passed} passed, {refused} refused, {left} left i64"
        );
    }

    /// The probed `replay_fixed` is the walked one: on 6 000 random candidates of 1 and 4
    /// components (degrees 0–8, 1–13 frames or up to 200), some scaled so that the walk's
    /// largest sits within a few units in the last place of a power of two (where only exact
    /// bounds decide), some with huge or infinite numbers, stopping early or not: the same
    /// exponent, integers, largest error and frame, or the same error, as the exponent from
    /// `fixed_exponent`'s walk then `replay_fixed_at`. Counts that the probe pins the guess,
    /// pins another exponent, and leaves it to the walk, each many times.
    #[test]
    fn probed_replay_is_the_walked_replay() {
        let mut random = Random(0xbb67_ae85_84ca_a73b);
        let (mut same, mut other, mut walked) = (0, 0, 0);
        for i in 0..6000 {
            let components = if i % 2 == 0 { 4 } else { 1 };
            let (mut candidate, mut exact) = random_case(&mut random, components, 1e-6);
            let n = candidate.degree;
            if i % 3 == 0 {
                // Longer pieces: exact values continued from the last.
                let more = (random.unit() * 200.0) as usize;
                let last = *exact.last().expect("a frame");
                exact.extend((0..more).map(|_| last));
                candidate.end = candidate.origin + exact.len() as f64;
            }
            let steps = exact.len();
            if i % 4 == 1 {
                // The walk's largest moved to within a few ulps of a power of two.
                let largest = fixed_exponent(&candidate, components, steps).ok().map(|_| {
                    let mut w = 0.0f64;
                    for d in candidate.differences.iter().take(components) {
                        let mut start = [0.0; MAX_TERMS];
                        crate::player::shift_differences(&d[..=n], -(n as f64), &mut start[..=n]);
                        w = w.max(by_degree!(n, trajectory_largest(start, n + steps)));
                    }
                    w
                });
                if let Some(w) = largest.filter(|w| *w > 0.0) {
                    let target = crate::math::powi(2.0, (random.unit() * 40.0) as i32 - 20);
                    let ulps = (random.unit() * 8.0) as i64 - 4;
                    let scale = f64::from_bits((target / w).to_bits().wrapping_add_signed(ulps));
                    for row in candidate.differences.iter_mut().take(components) {
                        for d in row.iter_mut().take(n + 1) {
                            *d *= scale;
                        }
                    }
                    for value in exact.iter_mut() {
                        for v in value.iter_mut() {
                            *v *= scale;
                        }
                    }
                }
            }
            if i % 11 == 0 {
                candidate.differences[components - 1][0] =
                    [1e200, f64::INFINITY, 3e18][(i / 11) % 3];
            }
            let stop_above = if i % 2 == 0 { f64::INFINITY } else { 1e-6 };
            let fresh = |measure| ErrorAt {
                exact: &exact,
                origin: candidate.origin,
                stop_above,
                worst: (0.0, candidate.origin),
                measure,
            };
            let measure = i % 5 != 0;
            let mut reference = fresh(measure);
            let want = fixed_exponent(&candidate, components, steps)
                .and_then(|e| replay_fixed_at(&candidate, components, e, &mut reference));
            let mut probed = fresh(measure);
            let got = replay_fixed(&candidate, components, &mut probed);
            assert_eq!(got, want, "case {i}");
            assert_eq!(
                (probed.worst.0.to_bits(), probed.worst.1.to_bits()),
                (reference.worst.0.to_bits(), reference.worst.1.to_bits()),
                "case {i}"
            );
            // Which way the probe went.
            let Some(probe) = Probe::new(&candidate, components, steps) else {
                continue;
            };
            let Ok(start) = fixed_start(&candidate, components, probe.guess) else {
                continue;
            };
            let inverse = crate::math::powi(2.0, -i32::from(probe.guess));
            let mut largest = Some(0u64);
            let mut starts = start.starts;
            let mut quiet = fresh(false);
            for (c, state) in starts.iter_mut().enumerate().take(components) {
                let row = by_degree!(n, probe_int_row(state, c, steps, inverse, &mut quiet));
                largest = largest.zip(row).map(|(a, b)| a.max(b));
            }
            match largest.and_then(|m| probe.confirm(m, probe.guess)) {
                Some(e) if e == probe.guess => same += 1,
                Some(_) => other += 1,
                None => walked += 1,
            }
        }
        assert!(
            same > 1000 && other >= 10 && walked > 50,
            "pinned the guess {same}, another {other}, walked {walked}"
        );
    }

    /// `fixed_start` (by degree, `rounded`, the `NEGATIVE_BINOMIALS` table) is the loop it
    /// replaced (`round`, `negative_binomial`, i128 sums), on 20 000 random candidates, many
    /// with integers near 2^62 whose products with `C(−n, i)` overflow i64: the same integers
    /// and states, or `OutOfRange` for the same ones.
    #[test]
    fn fixed_start_is_the_i128_sums() {
        let mut random = Random(0xa54f_f53a_5f1d_36f1);
        let (mut fit, mut refused, mut wide) = (0, 0, 0);
        for i in 0..20_000 {
            let components = 1 + i % 4;
            let n = (random.unit() * 9.0) as usize;
            let exponent = 60;
            let size = crate::math::powi(2.0, (random.unit() * 4.0) as i32 - 3);
            let mut candidate = Candidate {
                start: 0.0,
                end: 1.0,
                origin: 0.0,
                degree: n,
                differences: [[0.0; MAX_TERMS]; MAX_COMPONENTS],
            };
            for row in candidate.differences.iter_mut().take(components) {
                for d in row.iter_mut().take(n + 1) {
                    *d = random.symmetric(size)
                        / crate::math::powi(8.0, (random.unit() * 3.0) as i32);
                }
            }
            let unit = crate::math::powi(2.0, exponent);
            let want: Result<(Vec<i64>, Vec<i64>), StoreFailure> = (|| {
                let mut ints = Vec::new();
                let mut starts = Vec::new();
                for c in 0..components {
                    let row: Vec<i64> = (0..=n)
                        .map(|k| {
                            let s = crate::math::round(candidate.differences[c][k] * unit);
                            if s.is_finite() && crate::math::abs(s) < 9.2e18 {
                                Ok(s as i64)
                            } else {
                                Err(StoreFailure::OutOfRange)
                            }
                        })
                        .collect::<Result<_, _>>()?;
                    for k in 0..=n {
                        let mut sum = 0i128;
                        for j in k..=n {
                            sum += i128::from(negative_binomial(n, j - k)) * i128::from(row[j]);
                        }
                        if i64::try_from(sum).is_ok()
                            && (k..=n)
                                .any(|j| negative_binomial(n, j - k).checked_mul(row[j]).is_none())
                        {
                            wide += 1;
                        }
                        starts.push(i64::try_from(sum).map_err(|_| StoreFailure::OutOfRange)?);
                    }
                    ints.extend(row);
                }
                Ok((ints, starts))
            })();
            let got = fixed_start(&candidate, components, exponent as i8).map(|s| {
                let starts = (0..components)
                    .flat_map(|c| s.starts[c][..=n].to_vec())
                    .collect();
                (s.ints, starts)
            });
            assert_eq!(got, want, "case {i}");
            if got.is_ok() {
                fit += 1;
            } else {
                refused += 1;
            }
        }
        assert!(
            fit > 2_000 && refused > 2_000 && wide > 100,
            "{fit} fit, {refused} refused, {wide} fitting only in i128 sums"
        );
    }

    /// `rounded` is `round` then the store's test (finite, below 9.2e18) on halves, their
    /// neighbours, integers near 2^52, 2^53 and 9.2e18, NaN, infinities and random numbers of
    /// every size.
    #[test]
    fn rounded_is_round() {
        let reference = |x: f64| {
            let r = crate::math::round(x);
            (r.is_finite() && crate::math::abs(r) < 9.2e18).then_some(r as i64)
        };
        let mut random = Random(0x1f83_d9ab_fb41_bd6b);
        let mut cases = vec![
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            9.2e18,
        ];
        for base in [
            0.5f64,
            1.5,
            2.5,
            4503599627370495.5,
            4503599627370496.0,
            9007199254740992.0,
            9007199254740994.0,
        ] {
            for x in [base, -base] {
                cases.extend([
                    x,
                    f64::from_bits(x.to_bits() + 1),
                    f64::from_bits(x.to_bits() - 1),
                ]);
            }
        }
        let top = 9.2e18f64;
        cases.extend([
            top,
            -top,
            f64::from_bits(top.to_bits() - 1),
            f64::from_bits(top.to_bits() + 1),
        ]);
        for _ in 0..100_000 {
            let size = crate::math::powi(2.0, (random.unit() * 70.0) as i32 - 5);
            let x = random.symmetric(size);
            cases.extend([x, crate::math::floor(x) + 0.5]);
        }
        for x in cases {
            assert_eq!(rounded(x), reference(x), "{x:e}");
        }
    }
}
