//! The compiler's proofs for the play modes it does not replay frame by frame: rounding bounds of the player's f64 arithmetic after any seek and at any step, and on polynomial spans the stored piece's distance from the span's polynomial between integer frames.
//!
//! # What is proven, and how
//!
//! `TrackPlayer` plays every float piece (`F32`, `F64`, and `Fixed` off integer frames) in f64:
//! entering a piece at offset `t = w − origin` (any real) it computes the differences there,
//! `s_k = Σ_{j≥k} C(t, j−k) · D_j` (`player::shift_differences`, `binomials`), converts them to
//! step `h` with `step_matrix(h)` unless `h = 1`, and then adds, `d_k ← d_k + d_{k+1}`. In exact
//! arithmetic every entry point and step gives the values of one polynomial `P(x) = Σ_j
//! C(x − origin, j) · D_j` of the stored numbers `D_j`. Rounding is bounded by the standard
//! model (Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, §2–3: every
//! operation `fl(a ∘ b) = (a ∘ b)(1 + δ)`, `|δ| ≤ u = 2^-53`, `γ_m = m u / (1 − m u)`):
//!
//! - entry: `|ŝ_k − s_k| ≤ γ_{4n+3} · A_k` with `A_k = Σ_{j≥k} C(T + j − k − 1, j − k) |D_j|`,
//!   because `|C(t, i)| ≤ C(T + i − 1, i)` (the rising factorial) for `|t| ≤ T`;
//! - step conversion: `|C(h, i)| ≤ |h|` for `|h| ≤ 1` and `≤ C(H + i − 1, i)` for `|h| ≤ H`, so
//!   row `k` of `step_matrix` is bounded by the coefficients of `(Σ_{i≥1} β_i x^i)^k`;
//! - `m` additions: an error `e` made in `d_k` reaches the value `C(r, k) · e` after `r` more
//!   steps, so the value's error is at most `Σ_k C(m, k) e_k + u Σ_{k<n} G_k C(m, k + 1)`, `G_k`
//!   bounding `|d_k|` over the piece; positions still inside a piece of `L` frames have
//!   `m |h| < L`.
//!
//! Two classes of step are bounded: `1/64 ≤ |h| ≤ 1` (every `C(m, i) |h|^i ≤ L^i / i!` for the
//! `m ≤ L/|h|` steps a piece of `L` frames can hold, so the bound grows only as `1/|h|` and is
//! taken at `|h| = 1/64`) and `1 ≤ |h| ≤ 16`. The bound's own arithmetic is a few hundred
//! operations on positive numbers, covered by a relative margin of `1e-9`; it is valid while
//! every state's error bound stays below `1e-6` of its magnitude bound (checked; else the
//! piece is not proven).
//!
//! **Integer seeks** (either direction): forward play from the piece's start and backward play
//! from its end were measured by the compiler (`measure.rs`), within `max_error` of the exact
//! values; a seek's trajectory and the measured one are both within the bound `R` of `P`, so a
//! seek's error is at most `max_error + 2R` — checked `≤ tolerance` per piece. Normalized
//! (quaternion) tracks: `|a/|a| − b/|b|| ≤ 2|a − b| / |b|` with `|b|` bounded below from the
//! piece's values at its integer frames. Where the bound does not hold, the compiler plays
//! every integer seek of the piece with the real `TrackPlayer`, forward to the piece's end and
//! backward to its start, and measures it.
//!
//! **Between integer frames** (fractional seeks, other rates): on a `Polynomial` span the
//! source `S` is a polynomial too; its Newton coefficients at the piece's origin are computed
//! with their own rounding bound, and `|P − S| ≤ Σ_j |D_j − Δ^j S| · C(T + j − 1, j)` over the
//! piece. A piece is proven when that plus the rounding bound for both step classes is within
//! the tolerance. Smooth spans (eases, slerps, expressions) have no such bound: without bounds
//! on their derivatives nothing between the checked points can be proven, and they stay
//! sampled (docs/stream-format.md) — but not their rounding: a fit is accepted between frames
//! only with twice the entry bound of its values added to the error sampled (`entry_rounding`,
//! or where that does not fit `entry_rounding_sharp`, whose bound of `|P'|` keeps the
//! cancellation between the differences of a fit much shorter than a frame), so the player's
//! rounding between the samples is bounded.

use super::source::{SourceSpan, SpanShape, MAX_COMPONENTS};
use super::verify::{binomials_to, by_degree};
use crate::player::TrackPlayer;
use crate::stream::layout::MAX_TERMS;
use crate::stream::{PieceData, PieceNumbers, StreamTrack, TrackData};

/// The smallest |step| (frames per `advance`) the between-frames proof covers.
pub const MIN_PROVEN_STEP: f64 = 1.0 / 64.0;
/// The largest |step| the between-frames proof covers.
pub const MAX_PROVEN_STEP: f64 = 16.0;

/// Unit roundoff of f64.
const U: f64 = f64::EPSILON / 2.0;
/// Relative margin covering the rounding of the bound's own arithmetic.
const MARGIN: f64 = 1.0 + 1e-9;
/// A bound is used only while each state's error bound is below this fraction of its
/// magnitude bound (so the computed states are within `1 + VALID` of the exact ones).
const VALID: f64 = 1e-6;

/// What the compiler proved or measured for a track beyond forward and backward play from the
/// start and the end (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TrackProof {
    /// Pieces whose integer seeks (any integer frame, then step ±1) are within the tolerance
    /// by the rounding bound.
    pub seeks_by_bound: usize,
    /// Pieces whose integer seeks were each played by `TrackPlayer` and measured, the bound
    /// being too loose (fixed-point pieces, bit-identical to forward play, are not counted).
    pub seeks_played: usize,
    /// Pieces proven within the tolerance at every real frame for steps `1/64 ≤ |h| ≤ 16`.
    pub between_proven: usize,
    /// Pieces only sampled between integer frames (smooth spans, normalized tracks, or a
    /// bound beyond the tolerance).
    pub between_sampled: usize,
}

/// `γ_m = m u / (1 − m u)`.
fn gamma(m: usize) -> f64 {
    let x = m as f64 * U;
    x / (1.0 - x)
}

/// `C(T + k − 1, k) ≥ |C(t, k)|` for every `|t| ≤ T`.
#[cfg(test)]
fn rising_binomial(t_max: f64, k: usize) -> f64 {
    (0..k).fold(1.0, |b, i| b * (t_max + i as f64) / (i as f64 + 1.0))
}

/// `C(m, k)` for a real `m ≥ 0` bound of a step count (`m (m−1) … / k!`, 0 past `m`).
#[cfg(test)]
fn choose(m: f64, k: usize) -> f64 {
    (0..k).fold(1.0, |b, i| b * (m - i as f64).max(0.0) / (i as f64 + 1.0))
}

/// The piece's entry magnitudes `A_k` and entry errors `e_k` for offsets `|t| ≤ t_max`.
fn entry_bounds(d: &[f64], rising: &[f64; MAX_TERMS]) -> ([f64; MAX_TERMS], [f64; MAX_TERMS]) {
    let n = d.len() - 1;
    let (mut a, mut e) = ([0.0; MAX_TERMS], [0.0; MAX_TERMS]);
    let entry = gamma(4 * n + 3);
    for k in 0..n + 1 {
        a[k] = (k..n + 1)
            .map(|j| rising[j - k] * crate::math::abs(d[j]))
            .sum();
        e[k] = entry * a[k];
    }
    (a, e)
}

/// What the bounds of a piece's components share: `C(T + i − 1, i)` for its entry offsets
/// `|t| ≤ T`, and the step-count factors `c_i` of both step classes for its length `L`
/// (positions `x + s h` still inside the piece have `s |h| < L`: `C(s, i) |h|^i ≤ L^i / i!`,
/// and for `|h| ≥ 1`, `s ≤ L` so `C(s, i) ≤ C(L, i)`).
struct PieceScales {
    rising: [f64; MAX_TERMS],
    slow_c: [f64; MAX_TERMS + 1],
    fast_c: [f64; MAX_TERMS + 1],
}

impl PieceScales {
    /// The scales of a piece of degree `n` (entries up to `n`, the ones its bounds read; each
    /// entry is made from the ones below it, so they are those of any higher degree).
    fn new(t_max: f64, length: f64, n: usize) -> Self {
        let (mut rising, mut slow_c, mut fast_c) =
            ([1.0; MAX_TERMS], [1.0; MAX_TERMS + 1], [1.0; MAX_TERMS + 1]);
        for i in 1..n.min(MAX_TERMS - 1) + 1 {
            if i < MAX_TERMS {
                rising[i] = rising[i - 1] * (t_max + (i - 1) as f64) / i as f64;
            }
            slow_c[i] = slow_c[i - 1] * length / i as f64;
            fast_c[i] = fast_c[i - 1] * (length - (i - 1) as f64).max(0.0) / i as f64;
        }
        Self {
            rising,
            slow_c,
            fast_c,
        }
    }
}

/// Upper bounds of `|step_matrix(h)|` for every `|C(h, i)| ≤ beta[i]`: row `k` holds the
/// coefficients of `(Σ_{i≥1} beta[i] x^i)^k` up to `x^8` (a piece of degree `n` uses the
/// first `n + 1` rows and columns).
#[cfg(test)]
fn matrix_bound(beta: &[f64; MAX_TERMS]) -> [[f64; MAX_TERMS]; MAX_TERMS] {
    let mut m = [[0.0; MAX_TERMS]; MAX_TERMS];
    m[0][0] = 1.0;
    for k in 1..MAX_TERMS {
        for j in k..MAX_TERMS {
            m[k][j] = (1..=j + 1 - k).map(|i| beta[i] * m[k - 1][j - i]).sum();
        }
    }
    m
}

/// The two step-matrix bounds, made once per track: `slow` for `|h| ≤ 1` (`|C(h, i)| ≤ |h|`,
/// written divided by `|h|^k`: `C(j − 1, k − 1)`), `fast` for `1 ≤ |h| ≤ MAX_PROVEN_STEP`.
struct StepBounds {
    slow: [[f64; MAX_TERMS]; MAX_TERMS],
    fast: [[f64; MAX_TERMS]; MAX_TERMS],
}

impl StepBounds {
    /// The bounds as [`matrix_bound`] and [`rising_binomial`] make them, computed at compile
    /// time ([`STEP_BOUNDS`]).
    #[cfg(test)]
    fn new() -> Self {
        let mut beta = [0.0; MAX_TERMS];
        for (i, slot) in beta.iter_mut().enumerate() {
            *slot = rising_binomial(MAX_PROVEN_STEP, i);
        }
        Self {
            slow: matrix_bound(&[1.0; MAX_TERMS]),
            fast: matrix_bound(&beta),
        }
    }
}

/// [`StepBounds::new`] made once, at compile time, by the same operations in the same order
/// (`matrix_bound`'s sums of non-negative terms from 0.0, `rising_binomial`'s product):
/// `tests::step_bounds_are_computed_as_at_run_time` compares their bits.
const STEP_BOUNDS: StepBounds = {
    let mut beta = [0.0; MAX_TERMS];
    let mut i = 0;
    while i < MAX_TERMS {
        // `rising_binomial(MAX_PROVEN_STEP, i)`.
        let mut b = 1.0;
        let mut k = 0;
        while k < i {
            b = b * (MAX_PROVEN_STEP + k as f64) / (k as f64 + 1.0);
            k += 1;
        }
        beta[i] = b;
        i += 1;
    }
    StepBounds {
        slow: const_matrix_bound(&[1.0; MAX_TERMS]),
        fast: const_matrix_bound(&beta),
    }
};

/// `matrix_bound` as a `const fn` (the same sums in the same order).
const fn const_matrix_bound(beta: &[f64; MAX_TERMS]) -> [[f64; MAX_TERMS]; MAX_TERMS] {
    let mut m = [[0.0; MAX_TERMS]; MAX_TERMS];
    m[0][0] = 1.0;
    let mut k = 1;
    while k < MAX_TERMS {
        let mut j = k;
        while j < MAX_TERMS {
            let mut sum = 0.0;
            let mut i = 1;
            while i <= j + 1 - k {
                sum += beta[i] * m[k - 1][j - i];
                i += 1;
            }
            m[k][j] = sum;
            j += 1;
        }
        k += 1;
    }
    m
}

/// The rounding bound of one class of steps for one component, at each of `scales`: `m`
/// bounds the step matrix, `scale` is `|h|` for the slow class (whose magnitudes are written
/// divided by `|h|^k`, `c_i = L^i / i!` standing for `C(m, i) |h|^i`) and 1 for the fast one
/// (`c_i = C(L, i)`). Infinity where the bound is not valid (module docs). Each degree `n` is
/// its own copy ([`class_bound_of`], loops of fixed length: the same operations in the same
/// order, so the same bits).
fn class_bound(
    (a, e, n): (&[f64; MAX_TERMS], &[f64; MAX_TERMS], usize),
    m: &[[f64; MAX_TERMS]; MAX_TERMS],
    c: &[f64; MAX_TERMS + 1],
    scales: [f64; 2],
) -> [f64; 2] {
    match n {
        0 => class_bound_of::<0>((a, e), m, c, scales),
        1 => class_bound_of::<1>((a, e), m, c, scales),
        2 => class_bound_of::<2>((a, e), m, c, scales),
        3 => class_bound_of::<3>((a, e), m, c, scales),
        4 => class_bound_of::<4>((a, e), m, c, scales),
        5 => class_bound_of::<5>((a, e), m, c, scales),
        6 => class_bound_of::<6>((a, e), m, c, scales),
        7 => class_bound_of::<7>((a, e), m, c, scales),
        _ => class_bound_of::<8>((a, e), m, c, scales),
    }
}

/// [`class_bound`] at degree `N` (at most 8: `MAX_TERMS − 1`).
fn class_bound_of<const N: usize>(
    (a, e): (&[f64; MAX_TERMS], &[f64; MAX_TERMS]),
    m: &[[f64; MAX_TERMS]; MAX_TERMS],
    c: &[f64; MAX_TERMS + 1],
    scales: [f64; 2],
) -> [f64; 2] {
    // Exclusive ranges to `N + 1` (`RangeInclusive` kept the loops from unrolling): the
    // same terms in the same order.
    let (n, end) = (N, N + 1);
    let converted = gamma(5 * (n + 1) * (n + 1) + n + 2);
    let (mut b, mut err, mut g) = ([0.0; MAX_TERMS], [0.0; MAX_TERMS], [0.0; MAX_TERMS]);
    for k in 0..end {
        b[k] = (k..end).map(|j| m[k][j] * a[j]).sum::<f64>();
        err[k] = (k..end).map(|j| m[k][j] * e[j]).sum::<f64>() + converted * b[k];
    }
    for k in 0..end {
        g[k] = (k..end).map(|j| c[j - k] * b[j]).sum();
    }
    let mut value_bound = [0.0; 2];
    for k in (0..end).rev() {
        let carried: f64 = (k..end).map(|j| c[j - k] * err[j]).sum();
        let added: f64 = (k..n).map(|i| g[i] * c[i - k + 1]).sum::<f64>() * U * (1.0 + VALID);
        for (slot, scale) in value_bound.iter_mut().zip(scales) {
            let bound = (carried + added / scale) * MARGIN;
            if bound > VALID * g[k] && bound > 0.0 {
                *slot = f64::INFINITY;
            } else if k == 0 && slot.is_finite() {
                *slot = bound;
            }
        }
    }
    value_bound
}

/// Rounding bounds of one component of a piece (`scales`): `(integer, between)` — steps ±1 (integer seeks), and every step with
/// `MIN_PROVEN_STEP ≤ |h| ≤ MAX_PROVEN_STEP` (infinity unless `between` is asked for).
fn rounding_bounds(
    d: &[f64],
    scales: &PieceScales,
    steps: &StepBounds,
    between: bool,
) -> (f64, f64) {
    let n = d.len() - 1;
    let (a, e) = entry_bounds(d, &scales.rising);
    let [integer, slow] = class_bound(
        (&a, &e, n),
        &steps.slow,
        &scales.slow_c,
        [1.0, MIN_PROVEN_STEP],
    );
    if !between {
        return (integer, f64::INFINITY);
    }
    let [fast, _] = class_bound((&a, &e, n), &steps.fast, &scales.fast_c, [1.0, 1.0]);
    (integer, slow.max(fast))
}

/// The value's change when the player's position arithmetic rounds a fractional frame
/// (`base + steps · step`, then `w − origin`: at most `4u` of the frame's magnitude
/// `frame_scale`): that times a bound of `|P'|` over the piece, `Σ_j |D_j| · j (T + j − 1)^(j−1) / j!`.
fn position_rounding(d: &[f64], t_max: f64, frame_scale: f64) -> f64 {
    let mut slope = 0.0;
    let mut factorial = 1.0;
    for (j, dj) in d.iter().enumerate().skip(1) {
        factorial *= j as f64;
        slope += crate::math::abs(*dj)
            * j as f64
            * crate::math::powi(t_max + j as f64 - 1.0, j as i32 - 1)
            / factorial;
    }
    slope * 4.0 * U * frame_scale * MARGIN
}

/// A bound of how far the player's f64 value at a position inside a piece, entered there
/// (a seek, or the first value at any step), can be from the polynomial `P` of its numbers:
/// the entry rounding `γ_{4n+3} · Σ_j β_j |D_j|` (module docs) with `β_j ≥ |C(t, j)|` over the
/// offsets `t = x − origin` of `[start, end)`, plus the position rounding; the largest over
/// the first `components` components of `widened` (the piece's numbers as the player reads
/// them, degree `n`, differences at `origin`). `β_j` is the smaller of the rising factorial
/// `C(T + j − 1, j)` (`|t| ≤ T`) and, the offsets being above −1 (the origin is the first
/// integer frame at or after the start), `max(1, C(t_max, j))`: `|C(t, j)| ≤ 1` for
/// `−1 ≤ t ≤ j` (`|t (t − 1) ⋯ (t − j + 1)| ≤ (m + 1)! (j − 1 − m)! ≤ j!` for `m ≤ t ≤ m + 1`),
/// and `C(t, j)` grows with `t ≥ j − 1`. The compiler adds it (twice; 16 times on a
/// normalized track) to the error it samples between frames on every fit
/// (`span.rs`, `TrackCompiler::rounding_margin`): a sample is a played value, within
/// this bound of `P`, and so is a value anywhere between the samples. Where that margin does
/// not fit, [`entry_rounding_sharp`] is the tighter bound tried.
pub(super) fn entry_rounding(
    widened: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
    (components, n): (usize, usize),
    at: (f64, f64, f64),
) -> f64 {
    let n = n.min(MAX_TERMS - 1);
    let weights = EntryWeights::new(n, at);
    let mut largest = 0.0f64;
    for d in widened.iter().take(components.min(MAX_COMPONENTS)) {
        let sum: f64 = (0..=n)
            .map(|j| (weights.entry[j] + weights.position[j]) * crate::math::abs(d[j]))
            .sum();
        largest = largest.max(sum * MARGIN);
    }
    largest
}

/// [`entry_rounding`] with the position rounding bounded by the smaller of its bound and
/// `4u · frame_scale · ` [`slope_bound`]: the same entry rounding, and a bound of `|P'|` that
/// keeps the cancellation between the differences. On a fit much shorter than a frame the
/// unit-step differences are many orders of magnitude above its values and its slope (a
/// degree-7 fit of 0.055 frame under an `in_out_elastic` ease: values near 50, `|D_5|` 2e13),
/// and `Σ_j |D_j| · max |C'(t, j)|` is as far above `|P'|`: there the position term of
/// [`entry_rounding`] was some 300 × its entry term, and beyond any tolerance at any length.
pub(super) fn entry_rounding_sharp(
    widened: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
    (components, n): (usize, usize),
    at: (f64, f64, f64),
) -> f64 {
    let n = n.min(MAX_TERMS - 1);
    let weights = EntryWeights::new(n, at);
    let per_slope = 4.0 * U * weights.frame_scale;
    let mut largest = 0.0f64;
    for d in widened.iter().take(components.min(MAX_COMPONENTS)) {
        let entry: f64 = (0..=n)
            .map(|j| weights.entry[j] * crate::math::abs(d[j]))
            .sum();
        let position: f64 = (0..=n)
            .map(|j| weights.position[j] * crate::math::abs(d[j]))
            .sum();
        let sharp = per_slope * slope_bound(&d[..=n], weights.t_max);
        largest = largest.max((entry + position.min(sharp)) * MARGIN);
    }
    largest
}

/// The weights of `|D_j|` in [`entry_rounding`] for a piece of degree `n` at
/// `(start, end, origin)`: `γ_{4n+3} β_j` (entry) and `4u · frame_scale · j (T + j − 1)^(j−1) / j!`
/// (`position_rounding`'s), made once for all the components.
struct EntryWeights {
    entry: [f64; MAX_TERMS],
    position: [f64; MAX_TERMS],
    /// `T`, the largest |offset| from the origin.
    t_max: f64,
    /// The largest |frame| of the piece plus `T`.
    frame_scale: f64,
}

impl EntryWeights {
    #[inline]
    fn new(n: usize, (start, end, origin): (f64, f64, f64)) -> Self {
        let t_max = crate::math::abs(start - origin).max(crate::math::abs(end - origin));
        let frame_scale = crate::math::abs(start).max(crate::math::abs(end)) + t_max;
        let above = end - origin;
        let entry = gamma(4 * n + 3);
        let position = 4.0 * U * frame_scale;
        let mut weights = Self {
            entry: [entry; MAX_TERMS],
            position: [0.0; MAX_TERMS],
            t_max,
            frame_scale,
        };
        let (mut rising, mut choose_above, mut factorial) = (1.0, 1.0, 1.0);
        for j in 1..=n {
            rising *= (t_max + (j - 1) as f64) / j as f64;
            choose_above *= (above - (j - 1) as f64).max(0.0) / j as f64;
            factorial *= j as f64;
            let beta = if start - origin >= -1.0 {
                rising.min(choose_above.max(1.0))
            } else {
                rising
            };
            let power = (1..j).fold(1.0, |p, _| p * (t_max + j as f64 - 1.0));
            weights.entry[j] = entry * beta;
            weights.position[j] = position * j as f64 * power / factorial;
        }
        weights
    }
}

/// Signed Stirling numbers of the first kind `s(j, k)` for `j, k ≤ 8`:
/// `t (t − 1) ⋯ (t − j + 1) = j! C(t, j) = Σ_k s(j, k) t^k` (row `j`; OEIS A048994).
const STIRLING_FIRST: [[f64; MAX_TERMS]; MAX_TERMS] = [
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, -1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 2.0, -3.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, -6.0, 11.0, -6.0, 1.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 24.0, -50.0, 35.0, -10.0, 1.0, 0.0, 0.0, 0.0],
    [0.0, -120.0, 274.0, -225.0, 85.0, -15.0, 1.0, 0.0, 0.0],
    [0.0, 720.0, -1764.0, 1624.0, -735.0, 175.0, -21.0, 1.0, 0.0],
    [
        0.0, -5040.0, 13068.0, -13132.0, 6769.0, -1960.0, 322.0, -28.0, 1.0,
    ],
];

/// `j!` for `j ≤ 8`.
const FACTORIAL: [f64; MAX_TERMS] = [1.0, 1.0, 2.0, 6.0, 24.0, 120.0, 720.0, 5040.0, 40320.0];

/// A bound of `|P'(t)|` over `|t| ≤ t_max` for `P(t) = Σ_j C(t, j) d_j` (degree
/// `n = d.len() − 1 ≤ 8`): `P`'s power coefficients `p_k = Σ_j d_j s(j, k) / j!`
/// ([`STIRLING_FIRST`]) computed in f64, each within `γ_{n+3} Σ_j |d_j s(j, k) / j!|` of the
/// exact one (two roundings a term, `n` additions), then `Σ_{k≥1} k (|p̂_k| + that) t_max^(k−1)`
/// (a sum of positive terms, its own rounding within the caller's `MARGIN`). Never above
/// `Σ_j |d_j| · j (t_max + j − 1)^(j−1) / j!` by more than that rounding (the unsigned `s(j, k)`
/// sum to the rising factorial), and where the differences cancel — a fit much shorter than
/// a frame — orders of magnitude below it.
fn slope_bound(d: &[f64], t_max: f64) -> f64 {
    let n = d.len().clamp(1, MAX_TERMS) - 1;
    let error = gamma(n + 3);
    let (mut slope, mut power) = (0.0, 1.0);
    for k in 1..=n {
        let (mut p, mut p_abs) = (0.0, 0.0);
        for j in k..=n {
            let term = d[j] * STIRLING_FIRST[j][k] / FACTORIAL[j];
            p += term;
            p_abs += crate::math::abs(term);
        }
        slope += k as f64 * (crate::math::abs(p) + error * p_abs) * power;
        power *= t_max;
    }
    slope
}

/// Component `c`'s stored numbers of `piece` as the player reads them (f64).
fn piece_numbers(piece: &PieceData, c: usize) -> ([f64; MAX_TERMS], usize) {
    let n = usize::from(piece.degree).min(MAX_TERMS - 1);
    let mut d = [0.0; MAX_TERMS];
    let at = c * (n + 1);
    for k in 0..=n {
        d[k] = match &piece.numbers {
            PieceNumbers::F32(v) => v.get(at + k).map_or(0.0, |x| f64::from(*x)),
            PieceNumbers::F64(v) => v.get(at + k).copied().unwrap_or(0.0),
            PieceNumbers::Fixed(v) => v.get(at + k).map_or(0.0, |x| {
                *x as f64 * crate::math::powi(2.0, -i32::from(piece.exponent))
            }),
        };
    }
    (d, n)
}

/// Stirling numbers of the second kind times `j!`, `S(m, j) · j!` for `m, j ≤ 8`:
/// `τ^m = Σ_j S(m, j) j! C(τ, j)` (row `m`; OEIS A019538).
const STIRLING_FACTORIAL: [[f64; MAX_TERMS]; MAX_TERMS] = [
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 6.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 14.0, 36.0, 24.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 30.0, 150.0, 240.0, 120.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 62.0, 540.0, 1560.0, 1800.0, 720.0, 0.0, 0.0],
    [
        0.0, 1.0, 126.0, 1806.0, 8400.0, 16800.0, 15120.0, 5040.0, 0.0,
    ],
    [
        0.0, 1.0, 254.0, 5796.0, 40824.0, 126000.0, 191520.0, 141120.0, 40320.0,
    ],
];

/// `C(k, m)` for `m ≤ k ≤ 8` (Pascal's triangle; 0 above the diagonal): the bits
/// `choose(k as f64, m)` computes, every step of its product an exact small integer
/// (`tests::binomial_table_is_choose_bit_for_bit`).
const BINOMIAL: [[f64; MAX_TERMS]; MAX_TERMS] = [
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1.0, 2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1.0, 3.0, 3.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1.0, 4.0, 6.0, 4.0, 1.0, 0.0, 0.0, 0.0, 0.0],
    [1.0, 5.0, 10.0, 10.0, 5.0, 1.0, 0.0, 0.0, 0.0],
    [1.0, 6.0, 15.0, 20.0, 15.0, 6.0, 1.0, 0.0, 0.0],
    [1.0, 7.0, 21.0, 35.0, 35.0, 21.0, 7.0, 1.0, 0.0],
    [1.0, 8.0, 28.0, 56.0, 70.0, 56.0, 28.0, 8.0, 1.0],
];

/// A bound of `|P − S|` over `[start, end]` for component `c` of a piece lying in a
/// polynomial span (module docs), or `None` for a smooth span.
fn polynomial_gap(span: &SourceSpan, d: &[f64], origin: f64, t_max: f64, c: usize) -> Option<f64> {
    let SpanShape::Polynomial { coeffs } = &span.shape else {
        return None;
    };
    let degree = coeffs.len().checked_sub(1)?;
    if degree >= MAX_TERMS {
        return None;
    }
    let w = 1.0 / (span.end - span.start);
    let v0 = (origin - span.start) * w;
    // Power coefficients in τ = x − origin, and their absolute versions for the error bound.
    let (mut p, mut p_abs) = ([0.0; MAX_TERMS], [0.0; MAX_TERMS]);
    let mut w_power = 1.0;
    for m in 0..degree + 1 {
        // Σ_{k≥m} c_k C(k, m) v0^(k−m) w^m
        let mut v_power = 1.0;
        for k in m..degree + 1 {
            let term = BINOMIAL[k][m] * v_power * w_power;
            let ck = coeffs[k][c];
            p[m] += ck * term;
            p_abs[m] += crate::math::abs(ck * term);
            v_power *= v0;
        }
        w_power *= w;
    }
    let top = degree.max(d.len() - 1);
    let error = gamma(12 * (top + 2));
    let mut gap = 0.0;
    // `rising_binomial(t_max, j)`, one factor of its product a step (the same operations).
    let mut rising = 1.0;
    for j in 0..top + 1 {
        let (mut s, mut s_abs) = (0.0, 0.0);
        for m in j..degree + 1 {
            let f = STIRLING_FACTORIAL[m][j];
            s += p[m] * f;
            s_abs += p_abs[m] * f;
        }
        let stored = d.get(j).copied().unwrap_or(0.0);
        let q = crate::math::abs(stored - s) + crate::math::abs(stored - s) * U;
        gap += (q + error * s_abs) * rising;
        rising = rising * (t_max + j as f64) / (j as f64 + 1.0);
    }
    Some(gap * MARGIN)
}

/// The lower bound of |P| (Euclidean, all components) at the piece's integer frames, less
/// `slack` (for normalized tracks).
fn smallest_norm(piece: &PieceData, end: f64, components: usize, slack: f64) -> f64 {
    // Every component's numbers, read once for all the frames.
    let numbers: [([f64; MAX_TERMS], usize); MAX_COMPONENTS] =
        core::array::from_fn(|c| piece_numbers(piece, c));
    let rows: [[f64; MAX_TERMS]; MAX_COMPONENTS] = core::array::from_fn(|c| numbers[c].0);
    let at = (piece.origin, crate::math::ceil(piece.start), end);
    let smallest = by_degree!(numbers[0].1, smallest_norm_of(&rows, components, at));
    // The f64 evaluation above is itself within 1e-12 relative of |P| here.
    smallest * (1.0 - 1e-12) - slack
}

/// The smallest |P| of [`smallest_norm`] at the integer frames `first, first + 1, …` before
/// `end` for a piece of degree `N` (every component's degree) and origin `origin`: the
/// operations of [`smallest_norm_loop`] in the same order, the degree fixed (the same bits;
/// `tests::unrolled_smallest_norm_is_the_loops_bit_for_bit`).
fn smallest_norm_of<const N: usize>(
    rows: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
    components: usize,
    (origin, first, end): (f64, f64, f64),
) -> f64 {
    let mut smallest = f64::INFINITY;
    let mut frame = first;
    while frame < end {
        // `C(t, k)` as `player::binomials` makes them, up to the degree (the ones read).
        let b = binomials_to::<N>(frame - origin);
        let mut sum = 0.0;
        for d in rows.iter().take(components) {
            let value: f64 = (0..N + 1).map(|k| b[k] * d[k]).sum();
            sum += value * value;
        }
        smallest = smallest.min(crate::math::sqrt(sum));
        frame += 1.0;
    }
    smallest
}

/// [`smallest_norm`] as it was written before [`smallest_norm_of`], the degree a run-time
/// loop bound: the reference its test compares with.
#[cfg(test)]
fn smallest_norm_loop(piece: &PieceData, end: f64, components: usize, slack: f64) -> f64 {
    let mut smallest = f64::INFINITY;
    let mut frame = crate::math::ceil(piece.start);
    let numbers: [([f64; MAX_TERMS], usize); MAX_COMPONENTS] =
        core::array::from_fn(|c| piece_numbers(piece, c));
    let degree = numbers[0].1;
    while frame < end {
        // `C(t, k)` as `player::binomials` makes them, up to the degree (the ones read).
        let t = frame - piece.origin;
        let b = by_degree!(degree, binomials_to(t));
        let mut sum = 0.0;
        for (d, n) in numbers.iter().take(components) {
            let value: f64 = (0..=*n).map(|k| b[k] * d[k]).sum();
            sum += value * value;
        }
        smallest = smallest.min(crate::math::sqrt(sum));
        frame += 1.0;
    }
    // The f64 evaluation above is itself within 1e-12 relative of |P| here.
    smallest * (1.0 - 1e-12) - slack
}

/// Proves (or measures) integer seeks and frames between integer frames for a compiled and
/// measured track: `max_error` is what the forward and backward passes measured. Plays the
/// seeks of a piece with `track` where the bound is too loose.
///
/// Returns the proof and the largest error with its frame: `max_error` and its frame, or a
/// played seek's larger one (the caller compares it with the tolerance).
pub(super) fn prove_track(
    data: &TrackData,
    spans: &[SourceSpan],
    track: StreamTrack<'_>,
    exact_inside: &[[f64; MAX_COMPONENTS]],
) -> (TrackProof, f64, f64) {
    let mut proof = TrackProof::default();
    let (mut worst, mut worst_frame) = (data.max_error, data.max_error_frame);
    let fixed = matches!(data.precision, crate::stream::Precision::Fixed);
    let steps = &STEP_BOUNDS;
    let mut span_index = 0;
    for (index, piece) in data.pieces.iter().enumerate() {
        let end = data
            .pieces
            .get(index + 1)
            .map_or(data.last_frame, |next| next.start);
        // Pieces and spans are both in frame order.
        while spans.get(span_index).is_some_and(|s| s.end <= piece.start) {
            span_index += 1;
        }
        let span = spans
            .get(span_index)
            .filter(|s| s.start <= piece.start && end <= s.end && !data.normalize);
        let bounds = piece_bounds(data, piece, end, span, steps);
        if !fixed {
            if data.max_error + bounds.seek_error <= data.tolerance {
                proof.seeks_by_bound += 1;
            } else {
                let (e, f) = play_piece_seeks(track, exact_inside, (piece.start, end));
                proof.seeks_played += 1;
                if e > worst {
                    (worst, worst_frame) = (e, f);
                }
            }
        }
        if bounds.between <= data.tolerance {
            proof.between_proven += 1;
        } else {
            proof.between_sampled += 1;
        }
    }
    (proof, worst, worst_frame)
}

/// A piece's proven bounds over its components.
struct PieceBounds {
    /// How far a seek's played value can be from the measured one's (after normalization on a
    /// normalized track).
    seek_error: f64,
    /// The bound of |played − source| between integer frames (infinity off polynomial spans).
    between: f64,
}

/// The bounds of `piece` ending at `end`, `span` its polynomial span if any.
fn piece_bounds(
    data: &TrackData,
    piece: &PieceData,
    end: f64,
    span: Option<&SourceSpan>,
    steps: &StepBounds,
) -> PieceBounds {
    let components = data.value_type.components().min(MAX_COMPONENTS);
    let t_max =
        crate::math::abs(piece.start - piece.origin).max(crate::math::abs(end - piece.origin));
    let frame_scale = crate::math::abs(piece.start).max(crate::math::abs(end)) + t_max;
    let scales = PieceScales::new(t_max, end - piece.start, usize::from(piece.degree));
    let (mut integer, mut between) = (0.0f64, 0.0f64);
    for c in 0..components {
        let (d, n) = piece_numbers(piece, c);
        let gap = span.and_then(|s| polynomial_gap(s, &d[..=n], piece.origin, t_max, c));
        let (i, b) = rounding_bounds(&d[..=n], &scales, steps, gap.is_some());
        integer = integer.max(i);
        between = match gap {
            Some(g) => between.max(g + b + position_rounding(&d[..=n], t_max, frame_scale)),
            None => f64::INFINITY,
        };
    }
    let seek_error = if data.normalize {
        // Per component |a/|a| − b/|b|| ≤ 2 |a − b| / |b|, |a − b| ≤ 2 · 2R (four components).
        let norm = smallest_norm(piece, end, components, 2.0 * 2.0 * integer);
        if norm > 0.0 {
            2.0 * (2.0 * 2.0 * integer) / norm + 2.0 * gamma(12)
        } else {
            f64::INFINITY
        }
    } else {
        2.0 * integer
    };
    PieceBounds {
        seek_error,
        between,
    }
}

/// Plays every integer seek inside `[start, end)` with `TrackPlayer`: from each, forward to
/// the last integer frame before `end` and backward to the first at or after `start`.
/// Returns the largest error against `exact_inside` and its frame.
fn play_piece_seeks(
    track: StreamTrack<'_>,
    exact_inside: &[[f64; MAX_COMPONENTS]],
    (start, end): (f64, f64),
) -> (f64, f64) {
    let first_integer = crate::math::ceil(track.first_frame());
    let components = track.components().min(MAX_COMPONENTS);
    let (from, to) = (crate::math::ceil(start), crate::math::ceil(end) - 1.0);
    let mut worst = (0.0f64, from);
    let mut player = TrackPlayer::new(track);
    let mut k = from;
    while k <= to {
        for (step, count) in [(1.0, to - k), (-1.0, k - from)] {
            // Finite frames and steps ±1: neither call can fail.
            let _ = player.seek(k);
            let _ = player.set_step(step);
            for m in 0..=(count as u64) {
                let frame = k + step * m as f64;
                let Some(truth) = exact_inside.get((frame - first_integer) as usize) else {
                    debug_assert!(false, "frame {frame} inside the keys has an exact value");
                    continue;
                };
                let value = player.value();
                for c in 0..components {
                    let e = crate::math::abs(value[c] - truth[c]);
                    let e = if e.is_nan() { f64::INFINITY } else { e };
                    if e > worst.0 {
                        worst = (e, frame);
                    }
                }
                player.advance();
            }
        }
        k += 1.0;
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::{write_stream, Precision, Stream, StreamValueType, StreamWrap};
    use alloc::string::String;
    use alloc::vec;
    use alloc::vec::Vec;

    /// Denominators of the exact arithmetic: numbers are `d / 2^10`, positions `p / 64`.
    const NUMBER_DENOMINATOR: i128 = 1024;
    const POSITION_DENOMINATOR: i128 = 64;

    /// `P(p / 64) = Σ_j (d_j / 1024) C(p / 64, j)` exactly, as a fraction over
    /// `1024 · 64^n · n!`, rounded once to f64.
    fn exact_value(d: &[i128], p: i128) -> f64 {
        exact_value_over(d, p, POSITION_DENOMINATOR)
    }

    /// `P(p / q) = Σ_j (d_j / 1024) C(p / q, j)` exactly, as a fraction over
    /// `1024 · q^n · n!`, rounded once to f64 (the caller keeps it within i128).
    fn exact_value_over(d: &[i128], p: i128, q: i128) -> f64 {
        let n = d.len() - 1;
        let factorial: i128 = (1..=n as i128).product();
        let mut numerator = 0i128;
        let mut falling = 1i128; // Π_{i<j} (p − i q)
        let mut j_factorial = 1i128;
        for (j, dj) in d.iter().enumerate() {
            if j > 0 {
                falling *= p - (j as i128 - 1) * q;
                j_factorial *= j as i128;
            }
            // C(p/q, j) = falling / (q^j j!) = falling · q^(n−j) · (n!/j!) / (q^n n!)
            numerator += dj * falling * q.pow((n - j) as u32) * (factorial / j_factorial);
        }
        numerator as f64 / (NUMBER_DENOMINATOR * q.pow(n as u32) * factorial) as f64
    }

    /// A small xorshift generator (reproducible pieces).
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    fn one_piece_stream(d: &[i128], length: f64) -> Vec<u8> {
        one_piece_stream_at(d, 0.0, length)
    }

    /// One piece of `length` frames from `start` (its origin), numbers `d / 1024` in f64.
    fn one_piece_stream_at(d: &[i128], start: f64, length: f64) -> Vec<u8> {
        let numbers: Vec<f64> = d
            .iter()
            .map(|x| *x as f64 / NUMBER_DENOMINATOR as f64)
            .collect();
        let data = TrackData {
            name: String::from("p"),
            value_type: StreamValueType::Scalar,
            wrap: StreamWrap::Clamp,
            precision: Precision::F64,
            first_frame: start,
            last_frame: start + length,
            tolerance: 1.0,
            max_error: 0.0,
            max_error_frame: 0.0,
            end_value: [0.0; MAX_COMPONENTS],
            pieces: vec![PieceData {
                start,
                origin: start,
                degree: (d.len() - 1) as u8,
                exponent: 0,
                numbers: PieceNumbers::F64(numbers),
            }],
            outside: None,
            normalize: false,
        };
        write_stream(60.0, &[data]).unwrap()
    }

    /// Plays the piece from `from / 64` at step `step / 64` to its end and returns the largest
    /// |played − exact| over the positions inside it.
    fn played_error(bytes: &[u8], d: &[i128], from: i128, step: i128, length: i128) -> f64 {
        let stream = Stream::from_bytes(bytes).unwrap();
        let mut player = TrackPlayer::new(stream.track(0).unwrap());
        let q = POSITION_DENOMINATOR;
        player.seek(from as f64 / q as f64).unwrap();
        player.set_step(step as f64 / q as f64).unwrap();
        let (mut p, mut worst) = (from, 0.0f64);
        while p >= 0 && p < length * q {
            let exact = exact_value(d, p);
            // The exact value's one rounding to f64 is not the player's.
            let e = crate::math::abs(player.component(0) - exact) - U * crate::math::abs(exact);
            worst = worst.max(e);
            player.advance();
            p += step;
        }
        worst
    }

    /// `smallest_norm` (one copy per degree) gives the bits of the loop it replaced on 20 000
    /// random pieces: 1–4 components, degrees 0–8, f32, f64 and fixed numbers of mixed sizes
    /// (some zero rows, some huge), starts whole and fractional, origins anywhere in the piece,
    /// 0–40 integer frames, any slack. Summing a value's terms in another order makes it fail.
    #[test]
    fn unrolled_smallest_norm_is_the_loops_bit_for_bit() {
        use crate::compile::verify::tests::Random;
        let mut random = Random(0x0dd_ba11_5eed_f00d);
        for case in 0..20_000 {
            let components = 1 + case % 4;
            let degree = (random.unit() * 9.0) as usize;
            let terms = (degree + 1) * components;
            let size = crate::math::powi(10.0, (random.unit() * 24.0) as i32 - 12);
            let mut value = |k: usize| {
                if random.unit() < 0.05 {
                    0.0
                } else {
                    random.symmetric(size) * crate::math::powi(0.4, (k % (degree + 1)) as i32)
                }
            };
            let numbers = match case % 3 {
                0 => PieceNumbers::F32((0..terms).map(|k| value(k) as f32).collect()),
                1 => PieceNumbers::F64((0..terms).map(&mut value).collect()),
                _ => PieceNumbers::Fixed((0..terms).map(|k| (value(k) * 1e6) as i64).collect()),
            };
            let start = if case % 2 == 0 {
                crate::math::round(random.symmetric(500.0))
            } else {
                random.symmetric(500.0)
            };
            let end = start + random.unit() * 40.0 + 0.01;
            let piece = PieceData {
                start,
                origin: start + random.unit() * (end - start),
                degree: degree as u8,
                exponent: (random.unit() * 40.0) as i8 - 10,
                numbers,
            };
            let slack = if case % 5 == 0 {
                0.0
            } else {
                random.unit() * size
            };
            let got = smallest_norm(&piece, end, components, slack);
            let want = smallest_norm_loop(&piece, end, components, slack);
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "case {case}: {got} against {want}"
            );
        }
    }

    /// The compile-time step bounds are the run-time ones, bit for bit.
    #[test]
    fn step_bounds_are_computed_as_at_run_time() {
        let run_time = StepBounds::new();
        for (table, constant) in [
            (run_time.slow, STEP_BOUNDS.slow),
            (run_time.fast, STEP_BOUNDS.fast),
        ] {
            for k in 0..MAX_TERMS {
                for j in 0..MAX_TERMS {
                    assert_eq!(
                        table[k][j].to_bits(),
                        constant[k][j].to_bits(),
                        "[{k}][{j}]"
                    );
                }
            }
        }
    }

    /// `BINOMIAL` holds `choose`'s bits for every `m ≤ k ≤ 8`, and the running product of
    /// `polynomial_gap` holds `rising_binomial`'s at every order, on 20 000 random offsets
    /// (whole, fractional, tiny, huge); an entry one ulp off or a factor taken in another order
    /// fails.
    #[test]
    fn binomial_table_is_choose_bit_for_bit() {
        for k in 0..MAX_TERMS {
            for m in 0..=k {
                assert_eq!(
                    BINOMIAL[k][m].to_bits(),
                    choose(k as f64, m).to_bits(),
                    "C({k}, {m})"
                );
            }
        }
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for case in 0..20_000 {
            let unit = (next(&mut state) >> 11) as f64 / (1u64 << 53) as f64;
            let t_max = match case % 4 {
                0 => (next(&mut state) % 200) as f64,
                1 => unit * 100.0,
                2 => unit * 1e-6,
                _ => unit * 1e12,
            };
            let mut rising = 1.0f64;
            for j in 0..MAX_TERMS {
                let expected = rising_binomial(t_max, j);
                assert_eq!(
                    rising.to_bits(),
                    expected.to_bits(),
                    "t_max {t_max}, order {j}"
                );
                rising = rising * (t_max + j as f64) / (j as f64 + 1.0);
            }
        }
    }

    #[test]
    fn rounding_bounds_cover_the_players_error_against_exact_rational_arithmetic() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut tightest = f64::INFINITY;
        for _ in 0..60 {
            let n = 1 + (next(&mut state) % 4) as usize;
            let length = 20 + (next(&mut state) % 180) as i128;
            // Values up to ~1e6 whose higher differences shrink as a smooth curve's do.
            let d: Vec<i128> = (0..=n)
                .map(|j| {
                    let size = 1i128 << (30 - 6 * j as u32);
                    (next(&mut state) as i128 % size) - size / 2
                })
                .collect();
            let numbers: Vec<f64> = d
                .iter()
                .map(|x| *x as f64 / NUMBER_DENOMINATOR as f64)
                .collect();
            let (steps, scales) = (
                StepBounds::new(),
                PieceScales::new(length as f64, length as f64, n),
            );
            let (integer, between) = rounding_bounds(&numbers, &scales, &steps, true);
            let bytes = one_piece_stream(&d, length as f64);
            let q = POSITION_DENOMINATOR;
            let mut worst_integer = 0.0f64;
            for k in [0, 1, length / 2, length - 1] {
                worst_integer = worst_integer.max(played_error(&bytes, &d, k * q, q, length));
                worst_integer = worst_integer.max(played_error(&bytes, &d, k * q, -q, length));
            }
            assert!(
                worst_integer <= integer,
                "n {n} L {length}: {worst_integer:e} > {integer:e}"
            );
            let mut worst_between = 0.0f64;
            for (from, step) in [
                (1, 1),
                (q * length - 1, -1),
                (5, 16 * q),
                (7, -q - 3),
                (3, 37),
            ] {
                worst_between = worst_between.max(played_error(&bytes, &d, from, step, length));
            }
            assert!(
                worst_between <= between,
                "n {n} L {length}: {worst_between:e} > {between:e}"
            );
            if worst_between > 0.0 {
                tightest = tightest.min(between / worst_between);
            }
        }
        // The bound is a worst case; on these pieces it is within a few orders of magnitude of
        // what rounding does (a bound off by far more would prove too little to be useful).
        assert!(tightest < 1e6, "bound / error at least {tightest:e}");
    }

    /// `entry_rounding` bounds what a seek plays: pieces of degree 1–8, 1/8 to 2 frames long,
    /// whose differences grow with their order (up to 2^20 × the value, as a short fit's under
    /// a fast oscillation do), seeked to every 1/64 frame inside them by `TrackPlayer` and
    /// compared with exact rational arithmetic. The bound holds at every position and is
    /// within a few hundred times the worst error seen (a worst case, not an estimate).
    #[test]
    fn entry_rounding_covers_every_seek_against_exact_rational_arithmetic() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let q = POSITION_DENOMINATOR;
        let (mut tightest, mut seeks) = (f64::INFINITY, 0);
        for _ in 0..200 {
            let n = 1 + (next(&mut state) % 8) as usize;
            let length = q / 8 + (next(&mut state) % (q as u64 * 15 / 8 + 1)) as i128;
            let d: Vec<i128> = (0..=n)
                .map(|j| {
                    let size = 1i128 << (10 + 5 * j as u32 / 2);
                    (next(&mut state) as i128 % size) - size / 2
                })
                .collect();
            let mut widened = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
            for (w, x) in widened[0].iter_mut().zip(&d) {
                *w = *x as f64 / NUMBER_DENOMINATOR as f64;
            }
            let frames = length as f64 / q as f64;
            let bound = entry_rounding(&widened, (1, n), (0.0, frames, 0.0));
            let bytes = one_piece_stream(&d, frames);
            let stream = Stream::from_bytes(&bytes).unwrap();
            let mut player = TrackPlayer::new(stream.track(0).unwrap());
            let mut worst = 0.0f64;
            for p in 0..length {
                player.seek(p as f64 / q as f64).unwrap();
                let exact = exact_value(&d, p);
                // The exact value's one rounding to f64 is not the player's.
                let e = crate::math::abs(player.component(0) - exact) - U * crate::math::abs(exact);
                assert!(e <= bound, "n {n} L {frames} at {p}/64: {e:e} > {bound:e}");
                worst = worst.max(e);
                seeks += 1;
            }
            if worst > 0.0 {
                tightest = tightest.min(bound / worst);
            }
        }
        assert!(seeks > 10_000, "{seeks} seeks");
        assert!(tightest < 1e3, "bound / error at least {tightest:e}");
    }

    /// `entry_rounding_sharp` bounds what a seek plays on pieces shorter than 1/16 frame, where
    /// the compiler now adds it too: degrees 1–8, 4 to 64 thousandths (1/1024) of a frame from
    /// frame 1000, half with random differences growing with their order (each order up to
    /// 2^3 × the last), half the differences of a short fit — the Taylor polynomial of
    /// `sin(ω t + φ)`, ω up to 8 radians a frame, whose unit-step differences are up to 10^7 ×
    /// its values — each seeked to every 1/1024 frame inside it by `TrackPlayer` and compared
    /// with exact rational arithmetic. The bound holds at every position, is never above
    /// `entry_rounding`, and on every short fit of degree 5 or more is at least 100 × below it
    /// (its position term keeps the cancellation between the differences: 250 to 10^6 × below
    /// at degree 8, where the position term of `entry_rounding` dominates).
    #[test]
    fn entry_rounding_sharp_covers_every_seek_on_short_pieces_against_exact_rational_arithmetic() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let q = 1024i128;
        let start = 1000.0;
        let (mut seeks, mut fits, mut sharper) = (0, 0, 0);
        for case in 0..300 {
            let n = 1 + (next(&mut state) % 8) as usize;
            let length = 4 + (next(&mut state) % 61) as i128;
            let unit = |state: &mut u64| (next(state) % 1_000_000) as f64 / 1e6;
            // Numerators below 2^35 over 1024: the exact sums stay within i128.
            let d: Vec<i128> = if case % 2 == 0 {
                (0..=n)
                    .map(|j| {
                        let size = 1i128 << (13 + 3 * j as u32);
                        (next(&mut state) as i128 % size) - size / 2
                    })
                    .collect()
            } else {
                // Δ^j of Σ_k c_k t^k is Σ_k c_k j! S(k, j); c_k = ω^k sin^(k)(φ) / k!.
                let (omega, phi) = (1.0 + 7.0 * unit(&mut state), 6.0 * unit(&mut state));
                let c: Vec<f64> = (0..=n)
                    .map(|k| {
                        let shifted = phi + k as f64 * core::f64::consts::FRAC_PI_2;
                        crate::math::powi(omega, k as i32) * crate::math::sin(shifted)
                            / FACTORIAL[k]
                    })
                    .collect();
                (0..=n)
                    .map(|j| {
                        let dj: f64 = (j..=n).map(|k| c[k] * STIRLING_FACTORIAL[k][j]).sum();
                        crate::math::round(dj * NUMBER_DENOMINATOR as f64) as i128
                    })
                    .collect()
            };
            let mut widened = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
            for (w, x) in widened[0].iter_mut().zip(&d) {
                *w = *x as f64 / NUMBER_DENOMINATOR as f64;
            }
            let frames = length as f64 / q as f64;
            let at = (start, start + frames, start);
            let bound = entry_rounding_sharp(&widened, (1, n), at);
            let loose = entry_rounding(&widened, (1, n), at);
            // The two sum the same terms in another order.
            assert!(
                bound <= loose * (1.0 + 1e-12),
                "case {case}: {bound:e} > {loose:e}"
            );
            if case % 2 == 1 && n >= 5 {
                fits += 1;
                sharper += usize::from(100.0 * bound < loose);
            }
            let bytes = one_piece_stream_at(&d, start, frames);
            let stream = Stream::from_bytes(&bytes).unwrap();
            let mut player = TrackPlayer::new(stream.track(0).unwrap());
            for p in 0..length {
                player.seek(start + p as f64 / q as f64).unwrap();
                let exact = exact_value_over(&d, p, q);
                let e = crate::math::abs(player.component(0) - exact) - U * crate::math::abs(exact);
                assert!(
                    e <= bound,
                    "case {case}: n {n} L {frames} at {p}/1024: {e:e} > {bound:e}"
                );
                seeks += 1;
            }
        }
        assert!(seeks > 5_000, "{seeks} seeks");
        assert!(fits > 50, "{fits} short fits of degree 5 or more");
        assert_eq!(sharper, fits, "short fits at least 100 × sharper");
    }

    /// `slope_bound` is at least `|P'(t)|` at every `t = p / 1024` with `|t| ≤ t_max`, the
    /// derivative computed exactly in rational arithmetic (`Σ_j d_j Σ_i Π_{m≠i} (t − m) / j!`),
    /// on 2 000 random pieces of degree 1–8 and `t_max` from 1/1024 to 2 frames; and it is
    /// never above the bound it sharpens, `Σ_j |d_j| · j (t_max + j − 1)^(j−1) / j!`, beyond
    /// its rounding term.
    #[test]
    fn slope_bound_covers_the_derivative_against_exact_rational_arithmetic() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let q = 1024i128;
        let mut compared = 0;
        for case in 0..2_000 {
            let n = 1 + (next(&mut state) % 8) as usize;
            let reach = 1 + (next(&mut state) % 2048) as i128;
            let d: Vec<i128> = (0..=n)
                .map(|j| {
                    let size = 1i128 << (8 + 2 * j as u32);
                    (next(&mut state) as i128 % size) - size / 2
                })
                .collect();
            let numbers: Vec<f64> = d.iter().map(|x| *x as f64 / 1024.0).collect();
            let t_max = reach as f64 / q as f64;
            let sharp = slope_bound(&numbers, t_max);
            let loose = position_rounding(&numbers, t_max, 1.0) / (4.0 * U * MARGIN);
            // Above it only by `γ_{n+3}` of the sums of |terms| (degree 1: p̂_1 = d_1 exactly).
            assert!(
                sharp <= loose * (1.0 + 1e-14),
                "case {case}: {sharp:e} > {loose:e}"
            );
            let bound = sharp * MARGIN;
            let factorial: i128 = (1..=n as i128).product();
            let step = 1 + reach / 64;
            let mut p = -reach;
            while p <= reach {
                // P'(p/q) = Σ_j d_j Σ_i Π_{m<j, m≠i} (p − m q) / (q^(j−1) j!), over
                // 1024 · q^(n−1) · n!.
                let mut numerator = 0i128;
                for (j, dj) in d.iter().enumerate().skip(1) {
                    let mut sum = 0i128;
                    for i in 0..j {
                        let product: i128 = (0..j as i128)
                            .filter(|m| *m != i as i128)
                            .map(|m| p - m * q)
                            .product();
                        sum += product;
                    }
                    let j_factorial: i128 = (1..=j as i128).product();
                    numerator += dj * sum * q.pow((n - j) as u32) * (factorial / j_factorial);
                }
                let exact = numerator as f64 / (1024 * q.pow(n as u32 - 1) * factorial) as f64;
                assert!(
                    crate::math::abs(exact) * (1.0 - 1e-15) <= bound,
                    "case {case}: n {n} at {p}/1024: |P'| {exact:e} > {bound:e}"
                );
                compared += 1;
                p += step;
            }
        }
        assert!(compared > 100_000, "{compared} slopes compared");
    }

    /// `STIRLING_FIRST` row `j` is the expansion of `t (t − 1) ⋯ (t − j + 1)`.
    #[test]
    fn stirling_first_kind_expands_the_falling_factorial() {
        let mut falling = [0i64; MAX_TERMS];
        falling[0] = 1;
        for j in 0..MAX_TERMS {
            for k in 0..MAX_TERMS {
                assert_eq!(STIRLING_FIRST[j][k], falling[k] as f64, "s({j}, {k})");
            }
            // Multiply by (t − j).
            let mut next = [0i64; MAX_TERMS];
            for k in 0..MAX_TERMS {
                next[k] = -(j as i64) * falling[k] + if k > 0 { falling[k - 1] } else { 0 };
            }
            falling = next;
        }
        for (j, f) in FACTORIAL.iter().enumerate() {
            assert_eq!(*f, (1..=j as i64).product::<i64>() as f64);
        }
    }

    #[test]
    fn stirling_table_matches_the_alternating_sum() {
        // S(m, j) j! = Σ_i (−1)^(j−i) C(j, i) i^m.
        for m in 0..MAX_TERMS {
            for j in 0..MAX_TERMS {
                let mut sum = 0i64;
                for i in 0..=j {
                    let c = (0..i).fold(1i64, |b, k| b * (j - k) as i64 / (k + 1) as i64);
                    let sign = if (j - i) % 2 == 0 { 1 } else { -1 };
                    sum += sign * c * (i as i64).pow(m as u32);
                }
                assert_eq!(STIRLING_FACTORIAL[m][j], sum as f64, "S({m}, {j}) {j}!");
            }
        }
    }

    #[test]
    fn a_polynomial_gap_is_zero_for_exactly_stored_differences_and_grows_with_a_perturbation() {
        // S(v) = 3 + 2v − v² on [10, 20): in τ = x − 10, v = τ/10, S = 3 + 0.2τ − 0.01τ²;
        // Newton: Δ^0 = 3, Δ^1 = 0.2 − 0.01 = 0.19, Δ^2 = −0.02.
        let span = SourceSpan {
            start: 10.0,
            end: 20.0,
            key: 0,
            shape: SpanShape::Polynomial {
                coeffs: vec![
                    [3.0, 0.0, 0.0, 0.0],
                    [2.0, 0.0, 0.0, 0.0],
                    [-1.0, 0.0, 0.0, 0.0],
                ]
                .into(),
            },
        };
        let exact = [3.0, 0.19, -0.02];
        let gap = polynomial_gap(&span, &exact, 10.0, 10.0, 0).unwrap();
        assert!(gap < 1e-13, "{gap:e}");
        let perturbed = [3.0, 0.19, -0.02 + 1e-6];
        let gap = polynomial_gap(&span, &perturbed, 10.0, 10.0, 0).unwrap();
        // |Q(τ)| = 1e-6 · C(τ, 2) reaches 45e-6 at τ = 10; the bound uses C(T + 1, 2) = 55.
        assert!((45e-6..=56e-6).contains(&gap), "{gap:e}");
        let smooth = SourceSpan {
            shape: SpanShape::Smooth,
            ..span
        };
        assert_eq!(polynomial_gap(&smooth, &exact, 10.0, 10.0, 0), None);
    }
}
