//! Bounds on what a piece can make the player compute, so a stream that validates plays only finite values (and fixed-point states that fit i64).
//!
//! A piece of degree n stores per component the differences `D_k = Δ^k p(o)` at its origin o;
//! the player computes `p` and its differences at step h as sums of `C(t, j) · D_j` and of the
//! step matrix's entries times those (`player::shift_differences`, `player::step_matrix`).
//! For |t| ≤ T, `|C(t, k)| ≤ C(T + k − 1, k)`, and the entries of the step-h matrix are at most
//! `C(|h|·n + j − 1, j)`; by Vandermonde's identity every term and partial sum the player forms
//! for a position inside the piece (|t| ≤ L, its length) and a step it keeps a state for
//! (|h| ≤ L + 1: a longer step leaves the piece at once and re-enters, reading only `p`) is at
//! most `B = Σ_k |D_k| · C(X + k, k)` with `X = (n + 1)(L + 2)`. Validation requires
//! `B · 2^(n+3) ≤ f64::MAX` (the factor covers rounding in the sums), so no overflow is possible.
//!
//! Fixed-point pieces also play an i64 state at whole-frame offsets and steps ±1. Its values
//! are the exact integers `Δ^k P(m)`; [`fixed_fits`] proves them within i64 over every whole
//! offset the player can reach in the piece ([`replay_range`]), as the compiler did when it
//! chose the exponent: by a binomial bound of every state when that suffices, else by
//! replaying them. A replay costs one step a frame, so the frames
//! replayed per stream are capped by [`MAX_FIXED_REPLAY_FRAMES`].

use super::layout::MAX_TERMS;

/// The most frames validation replays for the fixed-point pieces of one stream (each frame for
/// all of a track's components): 2^32. One compile verifies at most 2^31 frames
/// (`compile::MAX_VERIFIED_FRAMES`) in at most 2^26 pieces, and a piece's replay adds at most
/// degree + 1 ≤ 9 frames to its own, so every stream the compiler writes validates (2^31 +
/// 9·2^26 < 2^32); a crafted stream asking for more is refused
/// (`StreamError::FixedReplayTooLong`). Measured: 0.25 s for a vec4 track of 2·10^6 frames.
pub const MAX_FIXED_REPLAY_FRAMES: u64 = 1 << 32;

/// `B = Σ_k |D_k| · C(X + k, k)`, `X = (n + 1)(length + 2)`, for the differences `d` (n + 1 of
/// them); ∞ when it overflows. Zero differences add nothing (even where C overflows).
#[must_use]
pub fn newton_bound(d: &[f64], length: f64) -> f64 {
    let n = d.len().saturating_sub(1) as f64;
    let x = (n + 1.0) * (length + 2.0);
    let mut binomial = 1.0;
    let mut bound = 0.0;
    for (k, value) in d.iter().enumerate() {
        if k > 0 {
            binomial *= (x + k as f64) / k as f64;
        }
        if *value != 0.0 {
            bound += crate::math::abs(*value) * binomial;
        }
    }
    if bound.is_nan() {
        f64::INFINITY
    } else {
        bound
    }
}

/// The largest bound [`newton_bound`] may give for a piece of `degree`: f64::MAX / 2^(degree+3).
#[must_use]
pub fn bound_limit(degree: usize) -> f64 {
    f64::MAX / crate::math::powi(2.0, degree as i32 + 3)
}

/// Whole offsets from the origin the fixed-point state is replayed over: `(low, high)`.
///
/// The player keeps an integer state only at whole offsets m ≥ 0 inside the piece, so m runs
/// from m₀ = max(⌈start − o⌉, 0) to ⌈end − o⌉ − 1; a forward state at m holds Δ^k P(m), a
/// backward one ±Δ^k P(m − k). Every one is a forward state at an offset in
/// `[m₀ − n, ⌈end − o⌉]` (the last one is the state after the run's final addition) — the
/// range the compiler replays when it chooses the exponent (from −n through the piece's frame
/// count).
#[must_use]
pub fn replay_range(start: f64, end: f64, origin: f64, degree: usize) -> (f64, f64) {
    let low = crate::math::ceil(start - origin).max(0.0) - degree as f64;
    let high = crate::math::ceil(end - origin);
    (low.min(0.0), high.max(0.0))
}

/// Whether the integer differences `stored` (n + 1 of them, at offset 0) stay within i64 at
/// every whole offset in `[low, high]` (low ≤ 0 ≤ high, both whole); `Err(offset)` names the
/// first offset where they do not.
///
/// The additions are i64 `checked_add` / `checked_sub`: every operand is a state already known
/// to fit (or, going backward, one just made by an addition that did not overflow), so an
/// addition overflows exactly when its exact sum leaves i64, and the first one that does names
/// the offset the exact (i128) replay names (`tests::fixed_fits_is_the_i128_replay`).
pub fn fixed_fits(stored: &[i64], low: i64, high: i64) -> Result<(), i64> {
    if surely_fits(stored, low, high) {
        return Ok(());
    }
    let n = stored.len().min(MAX_TERMS).saturating_sub(1);
    let mut start = [0i64; MAX_TERMS];
    for (slot, x) in start.iter_mut().zip(stored) {
        *slot = *x;
    }
    // Forward: Δ^k P(m + 1) = Δ^k P(m) + Δ^(k+1) P(m).
    let mut state = start;
    for m in 0..high {
        for i in 0..n {
            state[i] = state[i].checked_add(state[i + 1]).ok_or(m + 1)?;
        }
    }
    // Backward: Δ^k P(m − 1) = Δ^k P(m) − Δ^(k+1) P(m − 1), highest order first.
    let mut state = start;
    let mut m = 0;
    while m > low {
        m -= 1;
        for i in (0..n).rev() {
            state[i] = state[i].checked_sub(state[i + 1]).ok_or(m)?;
        }
    }
    Ok(())
}

/// Whether every state of [`fixed_fits`]'s replay provably fits i64 without replaying: for
/// `R = max(high, −low)`, a state at offset m, `0 ≤ m ≤ R`, is `Σ_j C(m, j−k) I_j`, and one at
/// −m is `Σ_j C(−m, j−k) I_j` with `|C(−m, i)| = C(m + i − 1, i)`; both are at most
/// `Σ_j C(R + n, j−k) |I_j|` (`C(x, i)` grows with `x ≥ i − 1`). That sum in f64 (relative error
/// below 40 units in the last place: the binomials' recurrence, `i64 as f64`, the products and
/// sums of nonnegative terms) times `1 + 10^-9`, below `9.2·10^18 < 2^63`, proves it. Every
/// addition and subtraction of the replay makes one of these states, so none would overflow.
fn surely_fits(stored: &[i64], low: i64, high: i64) -> bool {
    let n = stored.len().min(MAX_TERMS).saturating_sub(1);
    let reach = high.max(0).unsigned_abs().max(low.min(0).unsigned_abs());
    let x = reach as f64 + n as f64;
    let mut binomials = [0.0f64; MAX_TERMS];
    binomials[0] = 1.0;
    for i in 0..n {
        binomials[i + 1] = binomials[i] * (x - i as f64) / (i as f64 + 1.0);
    }
    let mut size = [0.0f64; MAX_TERMS];
    for (s, v) in size.iter_mut().zip(stored).take(n + 1) {
        *s = crate::math::abs(*v as f64);
    }
    let mut most = 0.0f64;
    for k in 0..=n {
        let mut sum = 0.0;
        for j in k..=n {
            sum += binomials[j - k] * size[j];
        }
        most = most.max(sum);
    }
    most * (1.0 + 1e-9) < 9.2e18
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn the_bound_of_a_cubic_covers_its_values_and_differences() {
        // p(t) = t³ at origin 0: D = [0, 1, 6, 6]; over a piece of 4 frames X = 4·6 = 24,
        // B = 1·25 + 6·C(26, 2) + 6·C(27, 3) = 25 + 1950 + 17550.
        let b = newton_bound(&[0.0, 1.0, 6.0, 6.0], 4.0);
        assert_eq!(b, 25.0 + 1950.0 + 17550.0);
        // It bounds p(24) = 13824, the farthest point a state of step ≤ L + 1 reads.
        assert!(b >= 13824.0);
    }

    #[test]
    fn fixed_replay_finds_the_first_overflowing_offset() {
        // P(m) = 2^62 + m·2^60 = (4 + m)·2^60: within i64 for −12 ≤ m ≤ 3 (P(−12) = −2^63 is
        // i64::MIN; P(4) = 2^63 is one past i64::MAX).
        let stored = [1i64 << 62, 1i64 << 60];
        assert_eq!(fixed_fits(&stored, 0, 3), Ok(()));
        assert_eq!(fixed_fits(&stored, 0, 10), Err(4));
        assert_eq!(fixed_fits(&stored, -12, 0), Ok(()));
        assert_eq!(fixed_fits(&stored, -20, 0), Err(-13));
    }

    /// The i128 replay `fixed_fits` was before its i64 checked additions.
    fn fixed_fits_i128(stored: &[i64], low: i64, high: i64) -> Result<(), i64> {
        let n = stored.len().min(MAX_TERMS).saturating_sub(1);
        let fits = |s: &[i128; MAX_TERMS]| {
            s.iter()
                .take(n + 1)
                .all(|x| *x >= i128::from(i64::MIN) && *x <= i128::from(i64::MAX))
        };
        let mut start = [0i128; MAX_TERMS];
        for (slot, x) in start.iter_mut().zip(stored) {
            *slot = i128::from(*x);
        }
        let mut state = start;
        for m in 0..high {
            for i in 0..n {
                state[i] += state[i + 1];
            }
            if !fits(&state) {
                return Err(m + 1);
            }
        }
        let mut state = start;
        let mut m = 0;
        while m > low {
            for i in (0..n).rev() {
                state[i] -= state[i + 1];
            }
            m -= 1;
            if !fits(&state) {
                return Err(m);
            }
        }
        Ok(())
    }

    /// `fixed_fits` names the offset the i128 replay names, on 20 000 random pieces (degrees
    /// 0–8, numbers up to 2^55 or up to 2^63 in magnitude, ranges to ±40 offsets): thousands
    /// fit, thousands overflow forward or backward. Letting an addition wrap, or naming the
    /// offset before the overflowing one, makes it fail.
    #[test]
    fn fixed_fits_is_the_i128_replay() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let (mut fit, mut forward, mut backward) = (0, 0, 0);
        for i in 0..20_000 {
            let terms = 1 + (next() % 9) as usize;
            let shift = if i % 2 == 0 { 8 } else { (next() % 3) as u32 };
            let stored: Vec<i64> = (0..terms).map(|_| (next() as i64) >> shift).collect();
            let low = -((next() % 41) as i64);
            let high = (next() % 41) as i64;
            let want = fixed_fits_i128(&stored, low, high);
            assert_eq!(fixed_fits(&stored, low, high), want, "case {i}: {stored:?}");
            match want {
                Ok(()) => fit += 1,
                Err(m) if m > 0 => forward += 1,
                Err(_) => backward += 1,
            }
        }
        assert!(
            fit > 1_000 && forward > 1_000 && backward > 1_000,
            "{fit} {forward} {backward}"
        );
    }

    /// `surely_fits` is sound: on 20 000 random pieces (1–9 terms, magnitudes 2^20 to 2^63,
    /// offsets to ±200) that it passes, the i128 replay fits at every offset; it passes
    /// thousands, and leaves hundreds that do fit to the replay (and all that do not).
    #[test]
    fn surely_fitting_pieces_fit() {
        let mut seed = 0x5851_f42d_4c95_7f2du64;
        let mut next = move || {
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let (mut sure, mut replayed) = (0, 0);
        for _ in 0..20_000 {
            let terms = 1 + (next() % 9) as usize;
            let shift = (next() % 44) as u32;
            let stored: Vec<i64> = (0..terms)
                .map(|k| (next() as i64) >> (shift + 3 * k as u32).min(63))
                .collect();
            let low = -((next() % 201) as i64);
            let high = (next() % 201) as i64;
            let want = fixed_fits_i128(&stored, low, high);
            if surely_fits(&stored, low, high) {
                assert_eq!(want, Ok(()), "{stored:?} over {low}..{high}");
                sure += 1;
            } else if want.is_ok() {
                replayed += 1;
            }
        }
        assert!(
            sure > 2_000 && replayed > 100,
            "{sure} sure, {replayed} replayed"
        );
    }
}
