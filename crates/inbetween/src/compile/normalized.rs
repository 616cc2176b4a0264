//! Quaternion tracks compiled for normalized playback: pieces checked by their value after the player's normalization, accepted at half the tolerance, fitted at low degree.
//!
//! A quat track compiled with `CompileOptions::normalize` carries the stream's normalize flag:
//! the player divides the played four components by their norm (`math::normalize4`). The
//! compiler fits the source's components as for any track (Chebyshev–Lobatto interpolation of
//! the exact, unit quaternion) but measures a candidate by `max_c |normalize(played)_c −
//! exact_c|`, with `played` replayed exactly as `TrackPlayer` plays it (the stored numbers, its
//! additions, in f64 — fixed tracks in wrapping i64 integers at integer frames — then
//! normalized in f64). Normalization removes the radial part of a fit's error: for a rotation at
//! constant speed through an angle `Φ` (4-D angle, half the rotation angle) the leading error of
//! an odd-degree interpolant is radial, so within 1e-6 a cubic holds up to `Φ ≈ 0.4`
//! normalized against `Φ ≈ 0.2` raw, a quintic `Φ ≈ 1.2` against `0.97`
//! (`normalized_cubics_hold_twice_the_angle` in the tests).
//!
//! Degrees are tried from 1 up, as for any track, and the lowest that holds is kept. Pieces
//! holding more than one integer frame are accepted at [`ACCEPT`] of the usual limit: the
//! other half of the tolerance is left to the batch player, which plays f32 Horner lanes and
//! normalizes in f32 (checked frame by frame in `Bank::new`).

use alloc::vec::Vec;

use super::source::MAX_COMPONENTS;
use super::verify::{
    binomials_to, by_degree, fixed_start, float_numbers, shifted, store_fixed, widened_float,
    Candidate, Checked, Limit, Probe, StoreFailure, Truth, HALF_BINOMIALS,
};
use super::{CompileOptions, TrackInput};
use crate::math::Pair;
use crate::stream::layout::MAX_TERMS;
use crate::stream::{PieceNumbers, Precision, StreamValueType};

/// Normalized pieces holding more than one integer frame are accepted at this fraction of the
/// usual limit (at integer frames and, times `BETWEEN_FRACTION`, between them): half the
/// tolerance is left to players that normalize in f32. Pieces of one integer frame or none
/// keep the usual limit, so a track compiles wherever it did without the flag.
pub const ACCEPT: f64 = 0.5;

/// Whether `input` is compiled for normalized playback: a quat track with
/// `options.normalize`.
pub(super) fn normalizes(input: &TrackInput<'_>, options: &CompileOptions) -> bool {
    options.normalize && input.value_type == StreamValueType::Quat
}

/// `verify::store_and_check` for normalized playback: the candidate stored in `precision`
/// (fixed: its exponent proven over the integer frames, as for any piece), then replayed as
/// the player plays it at the integer frames of `truth.exact` and, if within `limit.integer`
/// there, at its half frames and other fractional frames, each value normalized before it is
/// compared with the exact unit quaternion. A float candidate is replayed from its widened
/// numbers before they are stored: one refused at integer frames (`limit.stop_early`, its
/// error above the limit) comes back without numbers.
///
/// Kept out of line: inlined into `TrackCompiler::check`, it made the scalar path's `Checked`
/// move once more per candidate (a `memcpy`).
///
/// # Errors
/// `OutOfRange` when a number does not fit the precision.
#[inline(never)]
pub(super) fn store_and_check(
    candidate: &Candidate,
    precision: Precision,
    truth: &Truth<'_>,
    limit: Limit,
) -> Result<Checked, StoreFailure> {
    let stop_above = if limit.stop_early {
        limit.integer
    } else {
        f64::INFINITY
    };
    let (mut checked, widened) = if precision == Precision::Fixed {
        let checked = fixed_checked(candidate, truth.exact, stop_above)?;
        if checked.max_error > stop_above {
            return Ok(checked);
        }
        let widened = widened(&checked, candidate.degree + 1);
        (checked, widened)
    } else {
        // Floats: replayed from their widened numbers before they are stored; one the replay
        // refuses keeps no numbers (never read: it is neither kept nor checked further).
        let narrow = precision == Precision::F32;
        let mut widened = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
        widened_float(candidate, 4, narrow, &mut widened)?;
        let checked = Checked {
            exponent: 0,
            numbers: float_numbers(&widened, 0, 0, narrow),
            max_error: 0.0,
            max_error_frame: candidate.origin,
            between_error: 0.0,
            start_error: 0.0,
        };
        (checked, widened)
    };
    if precision != Precision::Fixed {
        replay(
            &mut checked,
            &widened,
            (candidate.degree, candidate.origin),
            truth.exact,
            stop_above,
        );
        if checked.max_error > stop_above {
            return Ok(checked);
        }
        let narrow = precision == Precision::F32;
        checked.numbers = float_numbers(&widened, 4, candidate.degree + 1, narrow);
    }
    if checked.max_error <= limit.integer {
        check_halves(&mut checked, &widened, candidate, truth.halves);
        between_with(&mut checked, &widened, candidate, truth.between);
    }
    Ok(checked)
}

/// A fixed candidate stored (its exponent proven over the integer frames `exact`, as for any
/// piece) and its normalized error measured there ([`replay`], stopped above `stop_above`):
/// [`fixed_stored_then_replayed`]'s result, in one replay when it can.
///
/// That one replay is made at the exponent the [`Probe`] guesses, the four components side by
/// side ([`fixed_lanes`]): it measures the normalized error as [`replay`] does (the same
/// integers, the same values and decisions) and carries on past a stop to the end of the
/// trajectory for its largest value, which pins the exponent. Its wrapping additions are exact
/// where `Probe::fits` proves the trajectory within i64. When the probe does not pin its guess
/// or cannot prove the fit, the candidate is stored and replayed as before
/// (`tests::fused_fixed_check_is_store_then_replay`).
fn fixed_checked(
    candidate: &Candidate,
    exact: &[[f64; MAX_COMPONENTS]],
    stop_above: f64,
) -> Result<Checked, StoreFailure> {
    match fixed_fused(candidate, exact, stop_above) {
        Some(checked) => Ok(checked),
        None => fixed_stored_then_replayed(candidate, exact, stop_above),
    }
}

/// [`fixed_checked`]'s one replay, or `None` when the probe does not pin its guess or cannot
/// prove the fit.
fn fixed_fused(
    candidate: &Candidate,
    exact: &[[f64; MAX_COMPONENTS]],
    stop_above: f64,
) -> Option<Checked> {
    let n = candidate.degree;
    let probe = Probe::new(candidate, 4, exact.len())?;
    let start = fixed_start(candidate, 4, probe.guess).ok()?;
    if !probe.fits(probe.guess) {
        return None;
    }
    let mut checked = Checked {
        exponent: probe.guess,
        numbers: PieceNumbers::Fixed(Vec::new()),
        max_error: 0.0,
        max_error_frame: candidate.origin,
        between_error: 0.0,
        start_error: 0.0,
    };
    let by_term: [[i64; 4]; MAX_TERMS] =
        core::array::from_fn(|k| core::array::from_fn(|c| start.starts[c][k]));
    let at = (candidate.origin, stop_above);
    let largest = by_degree!(n, fixed_lanes(&mut checked, by_term, exact, at));
    if probe.confirm(largest, probe.guess) != Some(probe.guess) {
        return None;
    }
    checked.numbers = PieceNumbers::Fixed(start.ints);
    Some(checked)
}

/// A fixed candidate stored (`verify::store_fixed`), then its normalized error measured at
/// the integer frames `exact` ([`replay`]).
fn fixed_stored_then_replayed(
    candidate: &Candidate,
    exact: &[[f64; MAX_COMPONENTS]],
    stop_above: f64,
) -> Result<Checked, StoreFailure> {
    let mut checked = store_fixed(candidate, 4, exact)?;
    let widened = widened(&checked, candidate.degree + 1);
    let at = (candidate.degree, candidate.origin);
    replay(&mut checked, &widened, at, exact, stop_above);
    Ok(checked)
}

/// The replay of [`fixed_checked`] at degree `N` from the integer states at offset −n,
/// by term (`state[k][c]`), at `checked.exponent`: `n + exact.len()` wrapping advances of
/// the four components, the error at frame `origin + m` measured (as [`replay`]: the
/// integers scaled by `2^-exponent`, normalized, the largest and its first frame) until it
/// is above `stop_above`; returns the largest `|I_0|` over all the states, or one more.
fn fixed_lanes<const N: usize>(
    checked: &mut Checked,
    mut state: [[i64; 4]; MAX_TERMS],
    exact: &[[f64; MAX_COMPONENTS]],
    (origin, stop_above): (f64, f64),
) -> u64 {
    let scale = crate::math::powi(2.0, -i32::from(checked.exponent));
    let (mut worst, mut at) = (checked.max_error, None);
    // The largest `|x|` or `|x| − 1` over the values (`x ^ (x >> 63)`: one register).
    let mut folded = 0i64;
    let mut measuring = true;
    for step in 0..N + exact.len() {
        let value = state[0];
        for x in value {
            folded = folded.max(x ^ (x >> 63));
        }
        if step >= N && measuring {
            let m = step - N;
            let e = error(value.map(|x| x as f64 * scale), &exact[m]);
            if e > worst {
                worst = e;
                at = Some(m);
            }
            measuring = worst <= stop_above;
        }
        for i in 0..N {
            for c in 0..4 {
                state[i][c] = state[i][c].wrapping_add(state[i + 1][c]);
            }
        }
    }
    if let Some(m) = at {
        checked.max_error = worst;
        checked.max_error_frame = origin + m as f64;
    }
    for x in state[0] {
        folded = folded.max(x ^ (x >> 63));
    }
    folded as u64 + 1
}

/// `max_c |normalize(played)_c − exact_c|` (a NaN counts as infinite).
fn error(played: [f64; 4], exact: &[f64; MAX_COMPONENTS]) -> f64 {
    let n = crate::math::normalize4(played);
    let e = n
        .iter()
        .zip(exact)
        .fold(0.0f64, |m, (p, x)| m.max(crate::math::abs(p - x)));
    if e.is_nan() {
        f64::INFINITY
    } else {
        e
    }
}

/// The stored numbers as the player's float path reads them: `widened[c][k]`.
fn widened(checked: &Checked, terms: usize) -> [[f64; MAX_TERMS]; 4] {
    checked.widened_all(4, terms)
}

/// Sets `max_error` and its frame from the integer frames `origin + m` (`exact[m]`), played
/// forward from the origin as `TrackPlayer` plays them: f64 additions of the `widened`
/// numbers, or wrapping i64 additions of a fixed piece's integers scaled by `2^-exponent`.
/// Stops at the first error above `stop_above`.
fn replay(
    checked: &mut Checked,
    widened: &[[f64; MAX_TERMS]; 4],
    (degree, origin): (usize, f64),
    exact: &[[f64; MAX_COMPONENTS]],
    stop_above: f64,
) {
    let terms = degree + 1;
    // The states by term, the four components side by side: each component's additions in
    // the player's order (`W_i += W_{i+1}`, i ascending), four at a time.
    let mut floats: [[f64; 4]; MAX_TERMS] = core::array::from_fn(|j| widened.map(|row| row[j]));
    let mut ints = [[0i64; 4]; MAX_TERMS];
    let fixed = matches!(checked.numbers, PieceNumbers::Fixed(_));
    if let PieceNumbers::Fixed(v) = &checked.numbers {
        for (i, x) in v.iter().enumerate().take(4 * terms) {
            ints[i % terms][i / terms] = *x;
        }
    }
    if !fixed {
        return by_degree!(
            degree,
            replay_floats(checked, floats, origin, exact, stop_above)
        );
    }
    let scale = crate::math::powi(2.0, -i32::from(checked.exponent));
    for (m, truth) in exact.iter().enumerate() {
        let played = if fixed {
            ints[0].map(|x| x as f64 * scale)
        } else {
            floats[0]
        };
        let e = error(played, truth);
        if e > checked.max_error {
            checked.max_error = e;
            checked.max_error_frame = origin + m as f64;
        }
        if checked.max_error > stop_above {
            return;
        }
        // Only the state that is played moves (the other is never read).
        for i in 0..degree {
            for c in 0..4 {
                if fixed {
                    ints[i][c] = ints[i][c].wrapping_add(ints[i + 1][c]);
                } else {
                    floats[i][c] += floats[i + 1][c];
                }
            }
        }
    }
}

/// [`replay`] of a float piece at degree `N`, its numbers by term (`floats[j][c]`): the same
/// values, errors and decisions, the frame computed only when the largest error moves.
fn replay_floats<const N: usize>(
    checked: &mut Checked,
    floats: [[f64; 4]; MAX_TERMS],
    origin: f64,
    exact: &[[f64; MAX_COMPONENTS]],
    stop_above: f64,
) {
    let (mut worst, mut at) = (checked.max_error, None);
    let mut lanes = Lanes::by_term(&floats);
    for (m, truth) in exact.iter().enumerate() {
        let e = error(lanes.value(), truth);
        if e > worst {
            worst = e;
            at = Some(m);
        }
        if worst > stop_above {
            break;
        }
        lanes.advance::<N>();
    }
    if let Some(m) = at {
        checked.max_error = worst;
        checked.max_error_frame = origin + m as f64;
    }
}

/// Raises `between_error` to the largest normalized error at the half frames
/// `origin + m + ½` (`halves[m]`), played as after a half-frame seek: the widened numbers
/// shifted once (`player::shift_differences`), then f64 additions.
fn check_halves(
    checked: &mut Checked,
    widened: &[[f64; MAX_TERMS]; 4],
    candidate: &Candidate,
    halves: &[[f64; MAX_COMPONENTS]],
) {
    if halves.is_empty() {
        return;
    }
    let error = by_degree!(candidate.degree, halves_error(widened, halves));
    checked.between_error = checked.between_error.max(error);
}

/// The largest normalized error at the half frames of [`check_halves`] at degree `N`.
fn halves_error<const N: usize>(
    widened: &[[f64; MAX_TERMS]; 4],
    halves: &[[f64; MAX_COMPONENTS]],
) -> f64 {
    let state = widened.map(|w| shifted::<N>(&w, &HALF_BINOMIALS));
    // By term, the components side by side (as in `replay`).
    let state: [[f64; 4]; MAX_TERMS] = core::array::from_fn(|j| state.map(|row| row[j]));
    let mut lanes = Lanes::by_term(&state);
    let mut largest = 0.0f64;
    for truth in halves {
        largest = largest.max(error(lanes.value(), truth));
        lanes.advance::<N>();
    }
    largest
}

/// A four-component state by term, components 0 and 1 side by side in one `math::Pair` and
/// 2 and 3 in another: [`Lanes::advance`] adds `W_i += W_{i+1}` (i ascending) in each lane
/// as the component's own additions do, so the same bits
/// (`tests::unrolled_normalized_checks_are_the_loops_bit_for_bit`).
#[derive(Clone, Copy)]
struct Lanes {
    low: [Pair; MAX_TERMS],
    high: [Pair; MAX_TERMS],
}

impl Lanes {
    /// `state[term][component]` in lanes.
    #[inline(always)]
    fn by_term(state: &[[f64; 4]; MAX_TERMS]) -> Self {
        Self {
            low: state.map(|w| Pair::new(w[0], w[1])),
            high: state.map(|w| Pair::new(w[2], w[3])),
        }
    }

    /// The value `W_0`, four components.
    #[inline(always)]
    fn value(&self) -> [f64; 4] {
        let ([a, b], [c, d]) = (self.low[0].lanes(), self.high[0].lanes());
        [a, b, c, d]
    }

    /// The player's additions at degree `N`: `W_i += W_{i+1}`, i ascending.
    #[inline(always)]
    fn advance<const N: usize>(&mut self) {
        for i in 0..N {
            self.low[i] = self.low[i] + self.low[i + 1];
            self.high[i] = self.high[i] + self.high[i + 1];
        }
    }
}

/// Raises `between_error` (and `start_error` at the piece's start) to the largest normalized
/// error at the fractional frames of `between`, each played as the player's `W_0` after
/// `shift_differences` there: `Σ_j C(t, j) D_j`, highest order first (as
/// `Checked::check_between`).
pub(super) fn check_between(
    checked: &mut Checked,
    candidate: &Candidate,
    between: &[(f64, [f64; MAX_COMPONENTS])],
) {
    if between.is_empty() {
        return;
    }
    let widened = widened(checked, candidate.degree + 1);
    between_with(checked, &widened, candidate, between);
}

/// [`check_between`] with the stored numbers already `widened`.
fn between_with(
    checked: &mut Checked,
    widened: &[[f64; MAX_TERMS]; 4],
    candidate: &Candidate,
    between: &[(f64, [f64; MAX_COMPONENTS])],
) {
    if between.is_empty() {
        return;
    }
    let at = (candidate.origin, candidate.start);
    let (largest, at_start) = by_degree!(candidate.degree, between_errors(widened, at, between));
    checked.between_error = checked.between_error.max(largest);
    checked.start_error = checked.start_error.max(at_start);
}

/// The largest normalized error at the frames of `between` at degree `N`, and the largest at
/// the piece's start (`at = (origin, start)`), as [`between_with`] plays them.
fn between_errors<const N: usize>(
    widened: &[[f64; MAX_TERMS]; 4],
    (origin, start): (f64, f64),
    between: &[(f64, [f64; MAX_COMPONENTS])],
) -> (f64, f64) {
    // The numbers by term, the four components side by side.
    let by_term: [[f64; 4]; MAX_TERMS] = core::array::from_fn(|j| widened.map(|row| row[j]));
    let (mut largest, mut at_start) = (0.0f64, 0.0f64);
    for (frame, truth) in between {
        let t = frame - origin;
        let played = if t == 0.0 {
            by_term[0]
        } else {
            let b = binomials_to::<N>(t);
            // Per component Σ_j b_j D_j from 0.0, highest order first.
            let mut sum = [0.0; 4];
            for j in (0..N + 1).rev() {
                for c in 0..4 {
                    sum[c] += b[j] * by_term[j][c];
                }
            }
            sum
        };
        let e = error(played, truth);
        largest = largest.max(e);
        if *frame == start {
            at_start = at_start.max(e);
        }
    }
    (largest, at_start)
}

#[cfg(test)]
mod tests {
    use super::super::convert::{lobatto_interpolant, lobatto_node};
    use super::super::verify::tests::{agree, integer_frames_only, random_case, Random};
    use super::*;
    use crate::compile::verify::store_and_check as store_raw;

    /// The rule that refused float candidates are not stored, for normalized playback: on
    /// 20 000 random four-component candidates in f32 and f64 (exact values their normalized
    /// f64 values moved around the limit), the check that may stop early refuses exactly
    /// those the whole replay finds above the limit and gives every other one the whole
    /// check's result; and that result's numbers and errors are `verify::store_and_check`'s
    /// store and the normalized replay of it (the fixed path's, which stores first).
    #[test]
    fn refused_normalized_candidates_are_the_ones_the_whole_replay_refuses() {
        let mut random = Random(0x2545_f491_4f6c_dd1d);
        let mut counts = (0, 0);
        for i in 0..20_000 {
            let precision = if i % 2 == 0 {
                Precision::F32
            } else {
                Precision::F64
            };
            let limit = 1e-4;
            let (candidate, mut exact) = random_case(&mut random, 4, limit);
            for value in &mut exact {
                let n = crate::math::normalize4([value[0], value[1], value[2], value[3]]);
                value[..4].copy_from_slice(&n);
            }
            let truth = integer_frames_only(&exact);
            let check = |limit| store_and_check(&candidate, precision, &truth, limit);
            let Some(whole) = agree(check, limit, i, &mut counts) else {
                continue;
            };
            // The reference: stored as any piece, then the normalized replay of those numbers.
            let none = integer_frames_only(&[]);
            let whole_limit = Limit {
                integer: f64::INFINITY,
                stop_early: false,
            };
            let stored = store_raw(&candidate, 4, precision, &none, whole_limit)
                .unwrap_or_else(|e| panic!("case {i}: {e:?}"));
            assert_eq!(stored.numbers, whole.numbers, "case {i}");
            let mut reference = Checked {
                max_error: 0.0,
                max_error_frame: candidate.origin,
                ..stored
            };
            let numbers = widened(&reference, candidate.degree + 1);
            let at = (candidate.degree, candidate.origin);
            replay(&mut reference, &numbers, at, &exact, f64::INFINITY);
            assert_eq!(reference.max_error, whole.max_error, "case {i}");
            assert_eq!(reference.max_error_frame, whole.max_error_frame, "case {i}");
        }
        assert!(
            counts.0 > 2_000 && counts.1 > 2_000,
            "refused, held: {counts:?}"
        );
    }

    /// The normalized checks unrolled by degree (`replay_floats`, `halves_error`,
    /// `between_errors`) give the bits of the loops to the degree they replace, on 20 000
    /// random four-component candidates (degrees 0–8, exact values their normalized values
    /// moved around the limit, one in 16 with a NaN), stopping early or not.
    #[test]
    fn unrolled_normalized_checks_are_the_loops_bit_for_bit() {
        let mut random = Random(0x5851_f42d_4c95_7f2d);
        for i in 0..20_000 {
            let limit = 1e-4;
            let (candidate, mut exact) = random_case(&mut random, 4, limit);
            for value in &mut exact {
                let n = crate::math::normalize4([value[0], value[1], value[2], value[3]]);
                value[..4].copy_from_slice(&n);
            }
            if random.unit() < 1.0 / 16.0 {
                exact[0][3] = f64::NAN;
            }
            let (n, origin) = (candidate.degree, candidate.origin);
            let widened: [[f64; MAX_TERMS]; 4] = core::array::from_fn(|c| candidate.differences[c]);
            let by_term: [[f64; 4]; MAX_TERMS] =
                core::array::from_fn(|j| widened.map(|row| row[j]));
            let stop_above = if i % 3 == 0 { f64::INFINITY } else { limit };
            // Integer frames, as `replay`'s loop plays a float piece.
            let (mut worst, mut frame) = (0.0, origin);
            let mut state = by_term;
            for (m, truth) in exact.iter().enumerate() {
                let e = error(state[0], truth);
                if e > worst {
                    (worst, frame) = (e, origin + m as f64);
                }
                if worst > stop_above {
                    break;
                }
                for k in 0..n {
                    for c in 0..4 {
                        state[k][c] += state[k + 1][c];
                    }
                }
            }
            let mut checked = Checked {
                exponent: 0,
                numbers: PieceNumbers::F64(Vec::new()),
                max_error: 0.0,
                max_error_frame: origin,
                between_error: 0.0,
                start_error: 0.0,
            };
            by_degree!(
                n,
                replay_floats(&mut checked, by_term, origin, &exact, stop_above)
            );
            assert_eq!(checked.max_error.to_bits(), worst.to_bits(), "case {i}");
            assert_eq!(
                checked.max_error_frame.to_bits(),
                frame.to_bits(),
                "case {i}"
            );
            // Half frames: each row shifted by `shift_differences`, then added.
            let mut shifted = [[0.0; MAX_TERMS]; 4];
            for (s, w) in shifted.iter_mut().zip(&widened) {
                crate::player::shift_differences(&w[..=n], 0.5, &mut s[..=n]);
            }
            let mut state: [[f64; 4]; MAX_TERMS] =
                core::array::from_fn(|j| shifted.map(|row| row[j]));
            let mut largest = 0.0f64;
            for truth in &exact {
                largest = largest.max(error(state[0], truth));
                for k in 0..n {
                    for c in 0..4 {
                        state[k][c] += state[k + 1][c];
                    }
                }
            }
            let halves = by_degree!(n, halves_error(&widened, &exact));
            assert_eq!(halves.to_bits(), largest.to_bits(), "case {i}");
            // Between frames: `binomials`' sums, highest order first.
            let between: Vec<(f64, [f64; MAX_COMPONENTS])> = exact
                .iter()
                .map(|truth| (origin + random.symmetric(8.0), *truth))
                .chain([(candidate.start, exact[0]), (origin, exact[0])])
                .collect();
            let (mut largest, mut at_start) = (0.0f64, 0.0f64);
            for (frame, truth) in &between {
                let t = frame - origin;
                let b = crate::player::binomials(t);
                let played = if t == 0.0 {
                    by_term[0]
                } else {
                    core::array::from_fn(|c| {
                        (0..=n).rev().fold(0.0, |sum, j| sum + b[j] * by_term[j][c])
                    })
                };
                let e = error(played, truth);
                largest = largest.max(e);
                if *frame == candidate.start {
                    at_start = at_start.max(e);
                }
            }
            let at = (origin, candidate.start);
            let (unrolled, start) = by_degree!(n, between_errors(&widened, at, &between));
            assert_eq!(unrolled.to_bits(), largest.to_bits(), "case {i}");
            assert_eq!(start.to_bits(), at_start.to_bits(), "case {i}");
        }
    }

    /// The fused fixed check (`fixed_fused`: one replay of the four components at the probe's
    /// guess) is `store_fixed` then `replay`, on 8 000 random four-component candidates
    /// (degrees 0–8, exact values their normalized values moved around the limit, some pieces
    /// up to 200 frames long, some scaled so that a component sits near ±1 or near a power of
    /// two, some with a number beyond i64 at any exponent), stopping early or not: whenever it
    /// gives a result, the same exponent, integers, largest error and frame. It gives one for
    /// most, and leaves thousands to the old path.
    #[test]
    fn fused_fixed_check_is_store_then_replay() {
        let mut random = Random(0x3c6e_f372_fe94_f82b);
        let (mut fused, mut left) = (0, 0);
        for i in 0..8000 {
            let limit = 1e-4;
            let (mut candidate, mut exact) = random_case(&mut random, 4, limit);
            for value in &mut exact {
                let n = crate::math::normalize4([value[0], value[1], value[2], value[3]]);
                value[..4].copy_from_slice(&n);
            }
            if i % 3 == 0 {
                let more = (random.unit() * 200.0) as usize;
                let last = *exact.last().expect("a frame");
                exact.extend((0..more).map(|_| last));
                candidate.end = candidate.origin + exact.len() as f64;
            }
            if i % 4 == 1 {
                // Component 0 near a power of two (±1 among them).
                let target = crate::math::powi(2.0, (random.unit() * 6.0) as i32 - 3);
                let d0 = candidate.differences[0][0];
                if d0 != 0.0 {
                    let scale = target / d0 * (1.0 + random.symmetric(1e-12));
                    for d in candidate.differences[0].iter_mut() {
                        *d *= scale;
                    }
                }
            }
            if i % 13 == 0 {
                candidate.differences[3][0] = 1e200;
            }
            let stop_above = if i % 2 == 0 { f64::INFINITY } else { limit };
            let want = fixed_stored_then_replayed(&candidate, &exact, stop_above);
            match fixed_fused(&candidate, &exact, stop_above) {
                Some(got) => {
                    assert_eq!(Ok(got), want, "case {i}");
                    fused += 1;
                }
                None => left += 1,
            }
            assert_eq!(
                fixed_checked(&candidate, &exact, stop_above),
                want,
                "case {i}"
            );
        }
        assert!(fused > 4000 && left > 500, "{fused} fused, {left} left");
    }

    /// Largest component error, raw and after normalization, of the Chebyshev–Lobatto
    /// interpolant of degree `d` of a rotation at constant speed through the 4-D angle `phi`
    /// (`[sin(u φ), 0, 0, cos(u φ)]`, u in [0, 1]), over 2 001 points.
    fn fit_errors(phi: f64, d: usize) -> (f64, f64) {
        let exact = |u: f64| [(u * phi).sin(), (u * phi).cos()];
        let nodes: [Vec<f64>; 2] =
            core::array::from_fn(|c| (0..=d).map(|j| exact(lobatto_node(j, d))[c]).collect());
        let power = nodes.map(|v| lobatto_interpolant(&v, d));
        let (mut raw, mut normalized) = (0.0f64, 0.0f64);
        for k in 0..=2000 {
            let u = f64::from(k) / 2000.0;
            let p = power.map(|a| a[..=d].iter().rev().fold(0.0, |acc, c| acc * u + c));
            let n = crate::math::normalize4([p[0], 0.0, 0.0, p[1]]);
            let e = exact(u);
            raw = raw.max((p[0] - e[0]).abs()).max((p[1] - e[1]).abs());
            normalized = normalized.max((n[0] - e[0]).abs()).max((n[3] - e[1]).abs());
        }
        (raw, normalized)
    }

    /// Where the module docs' figures come from: within 1e-6 a cubic holds Φ ≈ 0.2 raw and
    /// Φ ≈ 0.4 normalized, a quintic Φ ≈ 0.97 raw and Φ ≈ 1.2 normalized; an even degree gains
    /// little (its leading error is tangential).
    #[test]
    fn normalized_cubics_hold_twice_the_angle() {
        let holds = |phi: f64, d: usize| {
            let (raw, normalized) = fit_errors(phi, d);
            (raw <= 1e-6, normalized <= 1e-6)
        };
        assert_eq!(holds(0.19, 3), (true, true));
        assert_eq!(holds(0.38, 3), (false, true));
        assert_eq!(holds(0.42, 3), (false, false));
        assert_eq!(holds(0.95, 5), (true, true));
        assert_eq!(holds(1.2, 5), (false, true));
        assert_eq!(holds(1.25, 5), (false, false));
        let (raw, normalized) = fit_errors(0.5, 4);
        assert!(
            normalized > 0.9 * raw,
            "degree 4: {raw:e} raw, {normalized:e} normalized"
        );
    }
}
