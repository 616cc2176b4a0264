//! i32 Horner lanes for fixed-point tracks in forward play: each piece's power coefficients about the epoch centre as integers in units of `2^-E` (one `E` per track), played by wrapping i32 Horner steps and one exact conversion — integer arithmetic only, the same bits on every platform and with either float library, checked at every frame in `Bank::new`.
//!
//! # Arithmetic (what is checked is what plays)
//!
//! A piece's power coefficients `a` about its entry frame `p` (f64, from `TrackPlayer`'s
//! integer differences times `2^-e`, `horner::power_from_differences`) are shifted to the centre
//! `C` of each epoch ([`shifted`], the f64 Taylor shift of `horner::centred`) and rounded to
//! integers in units of `2^-E` ([`quantize`]). Integer frame `n` plays
//! `v = c_D; v = v · u + c_k` (k = D − 1 … 0) in wrapping i32, `u = n − C ∈ [−8, 8)`
//! ([`horner_i32`]); the value is `v · 2^-E`. Every step is a ring operation mod 2^32, so
//! intermediate wrapping is harmless: when the true integer `v` lies in i32 the lanes give it
//! exactly, and the check sees exactly what the lanes give either way.
//!
//! # Output
//!
//! `write_f64` gives `v · 2^-E` exactly (`(v as f64) · 2^-E`). `write_f32` gives
//! `(v as f32) · (2^-E as f32)`: `2^-E` is exact in f32 for `E ≤ 126`, the conversion rounds
//! `v` once to 24 bits and multiplying by a power of two is exact while the result stays a
//! normal f32 (`|v| ≥ 1`, `2^-E ≥ 2^-126`; `|v| < 2^31`, `2^-E ≤ 2^64`), so it is the f64 value
//! rounded once to f32, bit for bit (`f32_output_is_the_exact_value_rounded_once`).
//!
//! # Choice of `E` and the check
//!
//! `E` is the largest exponent with every coefficient of every (piece, epoch) of the track at
//! most `2^30` units ([`exponent_for`]); `Bank::new` then plays every integer frame of every
//! piece in this arithmetic against `TrackPlayer`'s own wrapping i64 additions
//! ([`verify_piece`]) and gives the track i32 lanes only if every value is within
//! `tolerance − max_error` (so within the tolerance of exact evaluation; the f32 output within
//! that plus half an f32 ulp of itself).

use alloc::vec::Vec;

use super::horner::{centre, EPOCH};
use crate::stream::layout::MAX_TERMS;

/// Largest coefficient magnitude in units (leaves one bit of headroom below i32's range).
const MAX_UNITS: f64 = 1_073_741_824.0; // 2^30

/// `2^e` for `e` in f64's normal range.
#[must_use]
pub(crate) fn pow2(e: i32) -> f64 {
    let e = e.clamp(-1022, 1023);
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// The Taylor shift of power coefficients `a` (about their origin, degree `n`) to the point `d`
/// frames later, in f64: `horner::centred` before its rounding, the same operations in the same
/// order.
#[must_use]
pub(crate) fn shifted(a: &[f64; MAX_TERMS], n: usize, d: f64) -> [f64; MAX_TERMS] {
    let n = n.min(MAX_TERMS - 1);
    let mut b = *a;
    for i in 0..n {
        for k in (i..n).rev() {
            let next = b.get(k + 1).copied().unwrap_or(0.0);
            if let Some(x) = b.get_mut(k) {
                *x += d * next;
            }
        }
    }
    b
}

/// Each coefficient in units of `2^-e`, rounded to the nearest integer (halves away from zero;
/// saturating, which the check then sees).
#[must_use]
pub(crate) fn quantize(b: &[f64; MAX_TERMS], e: i32) -> [i32; MAX_TERMS] {
    let unit = pow2(e);
    b.map(|x| {
        let y = x * unit;
        (if y >= 0.0 { y + 0.5 } else { y - 0.5 }) as i32
    })
}

/// The exponent `E` for coefficients up to `largest` in magnitude: the largest with
/// `largest · 2^E ≤ 2^30`, if it lies in `[−64, 126]` (the f32 output's exact range).
#[must_use]
pub(crate) fn exponent_for(largest: f64) -> Option<i32> {
    if !largest.is_finite() {
        return None;
    }
    let mut e = 126;
    while e >= -64 && largest * pow2(e) > MAX_UNITS {
        e -= 1;
    }
    (e >= -64).then_some(e)
}

/// `c_n · u^n + … + c_0` by Horner's rule in wrapping i32, `n = c.len() − 1`.
#[inline]
#[must_use]
pub(crate) fn horner_i32(c: &[i32], u: i32) -> i32 {
    let Some((&top, rest)) = c.split_last() else {
        return 0;
    };
    let mut v = top;
    for &x in rest.iter().rev() {
        v = v.wrapping_mul(u).wrapping_add(x);
    }
    v
}

/// The largest coefficient magnitude of a piece (power coefficients `a` about `origin`, group
/// degree `n`) over the epochs of frames `origin .. origin + run`.
#[must_use]
pub(crate) fn largest_coefficient(a: &[f64; MAX_TERMS], n: usize, origin: i64, run: i64) -> f64 {
    let mut largest: f64 = 0.0;
    let mut frame = origin;
    let end = origin.saturating_add(run);
    while frame < end {
        let c = centre(frame);
        for x in shifted(a, n, (c - origin) as f64).iter().take(n + 1) {
            largest = largest.max(x.abs());
        }
        frame = c + EPOCH / 2;
    }
    largest
}

/// Whether a fixed piece plays within `budget` on i32 lanes: entered at integer frame `origin`
/// with `TrackPlayer`'s differences `w` at scale `scale` (the reference: wrapping i64 additions,
/// value `W_0 · scale`), power coefficients `a`, group degree `n`, exponent `e`, for `run`
/// frames.
#[must_use]
pub(crate) fn verify_piece(
    (w, scale): (&[i64], f64),
    a: &[f64; MAX_TERMS],
    (origin, run): (i64, i64),
    (n, e): (usize, i32),
    budget: f64,
) -> bool {
    let terms = w.len().min(MAX_TERMS);
    let mut state = [0i64; MAX_TERMS];
    state[..terms].copy_from_slice(&w[..terms]);
    let unit = pow2(-e);
    let mut frame = origin;
    let end = origin.saturating_add(run);
    while frame < end {
        let c = centre(frame);
        let coef = quantize(&shifted(a, n, (c - origin) as f64), e);
        let coef = coef.get(..=n).unwrap_or(&[]);
        let epoch_end = (c + EPOCH / 2).min(end);
        while frame < epoch_end {
            let played = f64::from(horner_i32(coef, (frame - c) as i32)) * unit;
            let error = (played - state[0] as f64 * scale).abs();
            // NaN (a non-finite reference) fails too.
            if error.is_nan() || error > budget {
                return false;
            }
            for k in 0..terms.saturating_sub(1) {
                state[k] = state[k].wrapping_add(state[k + 1]);
            }
            frame += 1;
        }
    }
    true
}

/// Fixed channels of one maximum degree `D` in forward play: `D + 1` i32 coefficient arrays
/// about the current centre, order-major (`coef[k * len + slot]`), and each slot's `2^-E`.
#[derive(Debug, Clone, Default)]
pub(crate) struct IntLanes {
    pub(crate) degree: usize,
    pub(crate) len: usize,
    coef: Vec<i32>,
    /// `2^-E` of each slot's track (exact in f32).
    pub(crate) scale: Vec<f32>,
    /// Channel of each slot.
    pub(crate) channel: Vec<u32>,
    /// The slots as runs of consecutive channels (`records::channel_runs`).
    pub(crate) runs: Vec<super::records::Run>,
}

impl IntLanes {
    /// `len` lanes playing 0.
    pub(crate) fn new(degree: usize, len: usize) -> Self {
        Self {
            degree,
            len,
            coef: alloc::vec![0; (degree + 1) * len],
            scale: alloc::vec![0.0; len],
            channel: alloc::vec![0; len],
            runs: Vec::new(),
        }
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.coef.len() * 4 + self.len * 8
    }

    /// Bytes one frame reads (coefficients and scales).
    pub(crate) fn hot_bytes(&self) -> usize {
        self.coef.len() * 4 + self.scale.len() * 4
    }

    /// Integers per epoch block (the coefficients).
    pub(crate) fn block_len(&self) -> usize {
        self.coef.len()
    }

    /// Loads `c` (orders 0..; missing ones 0) into `slot`.
    #[inline]
    pub(crate) fn set(&mut self, slot: usize, c: &[i32]) {
        let len = self.len;
        debug_assert!(slot < len, "slot {slot} past the group's {len} lanes");
        for k in 0..=self.degree {
            if let Some(x) = self.coef.get_mut(k * len + slot) {
                *x = c.get(k).copied().unwrap_or(0);
            }
        }
    }

    /// The lanes as the piece-change records write them: the order-major coefficients, each
    /// slot's channel, the lane count and the orders (`records::Records::play_into`).
    #[inline]
    pub(crate) fn lanes_mut(&mut self) -> (&mut [i32], &[u32], usize, usize) {
        (&mut self.coef, &self.channel, self.len, self.degree + 1)
    }

    /// Replaces every lane's coefficients (a precomputed epoch block).
    pub(crate) fn copy_block(&mut self, block: &[i32]) {
        if block.len() == self.coef.len() {
            self.coef.copy_from_slice(block);
        }
    }

    /// Makes every lane play 0.
    pub(crate) fn zero(&mut self) {
        self.coef.iter_mut().for_each(|x| *x = 0);
    }

    /// Every slot's value at `u` frames from the centre, `(v as f32) · 2^-E`, into its channel
    /// of `out`.
    pub(crate) fn write_f32(&self, u: i32, out: &mut [f32]) {
        let lanes = (self.len, self.runs.as_slice(), self.channel.as_slice());
        super::records::write_lanes(lanes, out, |slot, dst| self.eval(u, slot, dst));
    }

    /// Every slot's value `v · 2^-E` in f64 (exact) into its channel of `out`.
    pub(crate) fn write_f64(&self, u: i32, out: &mut [f64]) {
        let terms = self.degree + 1;
        let mut c = [0i32; MAX_TERMS];
        for (slot, (&ch, &s)) in self.channel.iter().zip(&self.scale).enumerate() {
            for (k, x) in c.iter_mut().enumerate().take(terms) {
                *x = self.coef.get(k * self.len + slot).copied().unwrap_or(0);
            }
            if let Some(o) = out.get_mut(ch as usize) {
                *o = f64::from(horner_i32(&c[..terms], u)) * f64::from(s);
            }
        }
    }

    /// Values of slots `start .. start + out.len()` at `u` into `out`.
    fn eval(&self, u: i32, start: usize, out: &mut [f32]) {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: `eval_avx2` only requires the CPU to support AVX2, which was just
            // detected at run time; it runs the same wrapping integer operations, conversion
            // and product (`avx2_and_default_paths_agree`).
            #[allow(unsafe_code)]
            unsafe {
                eval_avx2(self, u, start, out);
            }
            return;
        }
        eval_any(self, u, start, out);
    }
}

/// [`IntLanes::eval`] for a group's degree (the build's target vectors).
#[inline(always)]
fn eval_any(g: &IntLanes, u: i32, start: usize, out: &mut [f32]) {
    match g.degree {
        0 => eval_n::<1>(g, u, start, out),
        1 => eval_n::<2>(g, u, start, out),
        2 => eval_n::<3>(g, u, start, out),
        3 => eval_n::<4>(g, u, start, out),
        4 => eval_n::<5>(g, u, start, out),
        5 => eval_n::<6>(g, u, start, out),
        6 => eval_n::<7>(g, u, start, out),
        7 => eval_n::<8>(g, u, start, out),
        _ => eval_n::<9>(g, u, start, out),
    }
}

/// [`eval_any`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
unsafe fn eval_avx2(g: &IntLanes, u: i32, start: usize, out: &mut [f32]) {
    eval_any(g, u, start, out);
}

/// [`horner_i32`] then `· 2^-E` over slots `first .. first + out.len()`: one straight pass
/// (every order and the scales sliced to exactly `out.len()` slots up front, so the loop has no
/// bounds checks and vectorizes).
#[inline(always)]
fn eval_n<const N: usize>(g: &IntLanes, u: i32, first: usize, out: &mut [f32]) {
    let (len, n) = (g.len, out.len());
    // Invariant of `IntLanes` (`coef.len() = N · len`, `scale.len() = len`, `first + n ≤
    // len`); a violation writes nothing rather than reading another order's lanes.
    let fits = first.checked_add(n).is_some_and(|end| {
        end <= len
            && g.scale.len() >= len
            && N.checked_mul(len).is_some_and(|all| all <= g.coef.len())
    });
    debug_assert!(fits, "slots {first}+{n} of {len}");
    if !fits {
        return;
    }
    let orders: [&[i32]; N] =
        core::array::from_fn(|k| &g.coef[k * len + first..k * len + first + n]);
    let scale = &g.scale[first..first + n];
    for (i, dst) in out.iter_mut().enumerate() {
        let mut v = orders[N - 1][i];
        for k in (0..N - 1).rev() {
            v = v.wrapping_mul(u).wrapping_add(orders[k][i]);
        }
        *dst = v as f32 * scale[i];
    }
}

/// One group's piece-change records (i32 coefficients).
pub(crate) type IntScript = super::records::Records<i32>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::horner::power_from_differences;

    #[test]
    fn integer_horner_plays_the_fixed_piece_within_the_quantum() {
        // p(t) = 3 − t/3 + t²/7 − t³/1000 from frame 5, stored at 2^-40.
        let scale = pow2(-40);
        let p = |t: f64| 3.0 - t / 3.0 + t * t / 7.0 - t * t * t / 1000.0;
        let d = [
            p(0.0),
            p(1.0) - p(0.0),
            p(2.0) - 2.0 * p(1.0) + p(0.0),
            p(3.0) - 3.0 * p(2.0) + 3.0 * p(1.0) - p(0.0),
        ];
        let w: Vec<i64> = d.iter().map(|x| (x / scale) as i64).collect();
        let exact: Vec<f64> = w.iter().map(|&x| x as f64 * scale).collect();
        let a = power_from_differences(&exact);
        let e = exponent_for(largest_coefficient(&a, 3, 5, 40)).unwrap();
        // 2^30 units hold the largest coefficient (p near frame 45 is ~ 170).
        assert!((20..=23).contains(&e), "{e}");
        // Rounding each coefficient to 2^-E costs at most ½ 2^-E Σ |u|^k (|u| ≤ 8) per value.
        let bound = 0.5 * pow2(-e) * (1.0 + 8.0 + 64.0 + 512.0) + 1e-12;
        assert!(verify_piece((&w, scale), &a, (5, 40), (3, e), bound));
        assert!(!verify_piece((&w, scale), &a, (5, 40), (3, e), 1e-9));
    }

    #[test]
    fn wrapping_intermediates_still_give_the_value() {
        // 2^31 − 1 + u · (2^31 − 1) wraps at u = 1 but 2·(2^31 − 1) − (2^31 − 1) does not.
        let c = [i32::MAX, i32::MAX, -1];
        // −u² + (2^31 − 1) u + 2^31 − 1 at u = −1: −1 − (2^31 − 1) + 2^31 − 1 = −1.
        assert_eq!(horner_i32(&c, -1), -1);
    }

    #[test]
    fn f32_output_is_the_exact_value_rounded_once() {
        let values = [
            1i32,
            -1,
            16_777_217,
            -16_777_219,
            i32::MAX,
            i32::MIN + 1,
            12_345_679,
            0,
        ];
        for e in [126, 60, 24, 0, -64] {
            let mut g = IntLanes::new(0, values.len());
            for (i, &v) in values.iter().enumerate() {
                g.channel[i] = i as u32;
                g.scale[i] = pow2(-e) as f32;
                g.set(i, &[v]);
            }
            g.runs = crate::batch::records::channel_runs(&g.channel);
            let (mut out, mut wide) = ([0.0f32; 8], [0.0f64; 8]);
            g.write_f32(0, &mut out);
            g.write_f64(0, &mut wide);
            for (i, &v) in values.iter().enumerate() {
                let want = f64::from(v) * pow2(-e);
                assert_eq!(wide[i], want, "{v} at 2^-{e}");
                assert_eq!(out[i].to_bits(), (want as f32).to_bits(), "{v} at 2^-{e}");
            }
        }
    }

    #[test]
    fn avx2_and_default_paths_agree() {
        let len = 3001;
        let mut g = IntLanes::new(3, len);
        for slot in 0..len {
            let s = slot as i32;
            g.channel[slot] = slot as u32;
            g.scale[slot] = pow2(-(slot as i32 % 40)) as f32;
            g.set(slot, &[s * 1000 - 7, -s * 31, s * s - 5, 3 - s]);
        }
        for u in -8..8 {
            let (mut x, mut y) = (vec![0.0f32; len], vec![0.0f32; len]);
            g.eval(u, 0, &mut x);
            eval_any(&g, u, 0, &mut y);
            assert!(
                x.iter().zip(&y).all(|(p, q)| p.to_bits() == q.to_bits()),
                "u {u}"
            );
            for slot in [0, 17, 1500, 3000] {
                let c = [0, 1, 2, 3].map(|k| g.coef[k * len + slot]);
                let want = horner_i32(&c, u) as f32 * g.scale[slot];
                assert_eq!(x[slot].to_bits(), want.to_bits(), "slot {slot} u {u}");
            }
        }
    }
}
