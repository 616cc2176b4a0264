//! Quaternion tracks with the normalize flag: their four channels divided by their norm on output (f32 lanes in f32, vectorized; everything else in f64, as `TrackPlayer`), and the check of their Horner lanes in `Bank::new`.
//!
//! # What each output does
//!
//! - `write_f64`: every flagged track's four values, as the bank wrote them, are normalized in
//!   f64 with `math::normalize4` — `TrackPlayer`'s own function, so on exact lanes the result
//!   is `TrackPlayer::value` bit for bit.
//! - `write_f32`: a flagged track playing on f32 Horner lanes is normalized in f32
//!   ([`normalize_quat_f32`]: a series in multiplies and adds, two quaternions a vector step
//!   with AVX) — in the Horner pass itself when every float track of its group is a flagged
//!   quaternion (`quat_lanes`: one pass, with fused multiply-adds where the CPU has AVX and FMA),
//!   else in a second pass over the row here; any other flagged track is normalized in f64
//!   from its exact f64 (or fixed) state, then rounded to f32: `TrackPlayer::value` rounded,
//!   bit for bit.
//!
//! Fixed tracks with the flag play on the exact i64 lanes (never i32 lanes), so their output is
//! `TrackPlayer`'s bit for bit.
//!
//! # The check
//!
//! `batch::verify_chain` checks each piece of a flagged float track with [`verify_piece`]: at
//! every integer frame of every piece of the forward chain, all four components together, the f32
//! Horner values normalized in f32 (in the arithmetic that plays them: plain, or
//! `quat_lanes::played_fma` for a group played with FMA) against `TrackPlayer`'s values (its
//! f64 additions) normalized in f64, within the budget `tolerance − max_error` plus half an
//! ulp of the f32 value; and,
//! for `write_f64`, the same f32 values widened and normalized in f64 (strict) or the f64
//! Horner values normalized in f64 within the budget. The compiler measured `max_error` after
//! normalization, so a value within the budget of `TrackPlayer`'s is within the tolerance of
//! exact evaluation.

use alloc::vec::Vec;

use super::horner::{self, Verdict};
use super::{Bank, TrackInfo, NONE};
use crate::math::normalize4;
use crate::stream::layout::MAX_DEGREE;

/// Flagged tracks of four components whose channels follow each other: `count` tracks from
/// track `first`, channels from `channel`, all with f32 Horner lanes (`lanes`) or all without,
/// and all in groups whose Horner pass normalizes (`fused`, `quat_lanes`) or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Run {
    first: u32,
    count: u32,
    channel: u32,
    lanes: bool,
    fused: bool,
}

impl Run {
    /// Its tracks play on f32 Horner lanes.
    pub(super) fn lanes(&self) -> bool {
        self.lanes
    }

    /// Their group's Horner pass normalizes them (`quat_lanes`).
    pub(super) fn fused(&self) -> bool {
        self.fused
    }

    /// The first channel of each of its tracks.
    pub(super) fn channels(&self) -> impl Iterator<Item = u32> {
        let (channel, count) = (self.channel, self.count);
        (0..count).map(move |k| channel + 4 * k)
    }
}

/// The runs of tracks whose output is normalized (flagged, four components), in track order;
/// `fused` has a bit per Horner group degree that `quat_lanes` normalizes in its pass.
pub(super) fn flagged(tracks: &[TrackInfo<'_>], fused: u32) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (t, info) in tracks.iter().enumerate() {
        if info.components != 4 || !info.track.normalizes() {
            continue;
        }
        let lanes = info.fast && !info.fixed;
        let degree = usize::from(info.degree).min(MAX_DEGREE);
        let fused = lanes && fused & (1 << degree) != 0;
        match runs.last_mut() {
            Some(run)
                if run.lanes == lanes
                    && run.fused == fused
                    && run.first + run.count == t as u32
                    && run.channel + 4 * run.count == info.first_channel =>
            {
                run.count += 1;
            }
            _ => runs.push(Run {
                first: t as u32,
                count: 1,
                channel: info.first_channel,
                lanes,
                fused,
            }),
        }
    }
    runs
}

/// A quaternion of the f32 lanes normalized: with `n = (x² + y²) + (z² + w²)` and
/// `d = 1 − n`, each component times `s = 1 + d · (½ + ⅜ d)` — the second-order expansion of
/// `n^(−1/2)` about 1, relative error below `(5/16) |d|³` plus f32 rounding (4e-16 at
/// |d| = 1e-5, what a fitted piece's radial error is; 3e-7 at |d| = 1e-2), in multiplies and
/// adds only (no square root or division: they are a vector step's slowest operations). It
/// is exact only near unit length, which is why `Bank::new` checks it at every frame against
/// `TrackPlayer`'s exact normalization ([`verify_piece`]); a track it does not hold for plays
/// on the exact lanes.
#[inline(always)]
#[must_use]
pub(crate) fn normalize_quat_f32(q: [f32; 4]) -> [f32; 4] {
    let n = (q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]);
    let d = 1.0 - n;
    let s = 1.0 + d * (0.5 + 0.375 * d);
    q.map(|x| x * s)
}

/// Normalizes every quaternion `[x, y, z, w]` of `values` (its length rounded down to a
/// multiple of 4) in place with [`normalize_quat_f32`]'s operations, bit for bit: on x86-64
/// two quaternions a 256-bit register with AVX (chosen at run time), else one a 128-bit
/// register (SSE2, every x86-64 CPU); elsewhere one by one. (AVX-512 would take four a register,
/// but its intrinsics are stable only from Rust 1.89, past the crate's MSRV of 1.81.)
pub(crate) fn normalize_f32(values: &mut [f32]) {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if std::is_x86_feature_detected!("avx") {
        // SAFETY: `x86::normalize_avx` only requires the CPU to support AVX, which was just
        // detected at run time.
        #[allow(unsafe_code)]
        unsafe {
            x86::normalize_avx(values);
        }
        return;
    }
    #[cfg(target_arch = "x86_64")]
    x86::normalize_sse2(values);
    #[cfg(not(target_arch = "x86_64"))]
    normalize_scalar(values);
}

/// [`normalize_quat_f32`] of each quaternion of `values` (targets without the vector paths).
#[cfg(not(target_arch = "x86_64"))]
fn normalize_scalar(values: &mut [f32]) {
    for q in values.chunks_exact_mut(4) {
        let n = normalize_quat_f32([q[0], q[1], q[2], q[3]]);
        q.copy_from_slice(&n);
    }
}

/// The vector paths: in a register of whole quaternions, the squares, then each lane plus its
/// neighbour (`x² + y²`, `z² + w²`), then each pair plus the other pair — every lane of a
/// quaternion then holds its `n` (`(z² + w²) + (x² + y²)` equals `(x² + y²) + (z² + w²)`:
/// addition commutes exactly) — and the scale, lane by lane: [`normalize_quat_f32`]'s IEEE
/// operations in its order, no fused multiply-add, so the same bits.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(super) mod x86 {
    use core::arch::x86_64::*;

    /// [`normalize_quat_f32`](super::normalize_quat_f32) of the quaternion in `v` (x y z w),
    /// its operations in its order.
    ///
    /// # Safety
    /// None beyond x86-64 (SSE2 is part of it); `unsafe` only because the intrinsics are.
    #[inline(always)]
    pub(in super::super) unsafe fn scale128(v: __m128) -> __m128 {
        let sq = _mm_mul_ps(v, v);
        let pairs = _mm_add_ps(sq, _mm_shuffle_ps::<0b10_11_00_01>(sq, sq));
        let n = _mm_add_ps(pairs, _mm_shuffle_ps::<0b01_00_11_10>(pairs, pairs));
        let d = _mm_sub_ps(_mm_set1_ps(1.0), n);
        let t = _mm_add_ps(_mm_set1_ps(0.5), _mm_mul_ps(_mm_set1_ps(0.375), d));
        let s = _mm_add_ps(_mm_set1_ps(1.0), _mm_mul_ps(d, t));
        _mm_mul_ps(v, s)
    }

    /// [`scale128`] of the two quaternions in `v`.
    ///
    /// # Safety
    /// The CPU must support AVX (call it from a function compiled with AVX enabled).
    #[inline(always)]
    pub(in super::super) unsafe fn scale256(v: __m256) -> __m256 {
        let sq = _mm256_mul_ps(v, v);
        let pairs = _mm256_add_ps(sq, _mm256_permute_ps::<0b10_11_00_01>(sq));
        let n = _mm256_add_ps(pairs, _mm256_permute_ps::<0b01_00_11_10>(pairs));
        let d = _mm256_sub_ps(_mm256_set1_ps(1.0), n);
        let t = _mm256_add_ps(_mm256_set1_ps(0.5), _mm256_mul_ps(_mm256_set1_ps(0.375), d));
        let s = _mm256_add_ps(_mm256_set1_ps(1.0), _mm256_mul_ps(d, t));
        _mm256_mul_ps(v, s)
    }

    /// One quaternion per 128-bit register (SSE2, part of x86-64).
    pub(super) fn normalize_sse2(values: &mut [f32]) {
        let mut chunks = values.chunks_exact_mut(4);
        for q in &mut chunks {
            let p = q.as_mut_ptr();
            // SAFETY: `q` is a chunk of exactly 4 f32s, so the unaligned 16-byte load and
            // store stay inside it; SSE2 is enabled on every x86-64 target.
            unsafe {
                _mm_storeu_ps(p, scale128(_mm_loadu_ps(p)));
            }
        }
    }

    /// Two quaternions per 256-bit register, the rest by [`normalize_sse2`].
    ///
    /// # Safety
    /// The CPU must support AVX.
    #[cfg(feature = "std")]
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn normalize_avx(values: &mut [f32]) {
        let mut chunks = values.chunks_exact_mut(8);
        for q in &mut chunks {
            let p = q.as_mut_ptr();
            // SAFETY: `q` is a chunk of exactly 8 f32s, so the unaligned 32-byte load and
            // store stay inside it; the caller guarantees AVX.
            unsafe {
                _mm256_storeu_ps(p, scale256(_mm256_loadu_ps(p)));
            }
        }
        normalize_sse2(chunks.into_remainder());
    }
}

/// One piece of a flagged float track, its four components together (called by
/// `batch::verify_chain`): `floats` holds the four components' `terms` differences,
/// `TrackPlayer`'s state at integer frame `origin`, played for `run` frames;
/// `horner::verify_components` with the f32 values normalized by [`normalize_quat_f32`] (what
/// the two-pass output and `quat_lanes`' plain pass play) or, with `fma`, `quat_lanes`' fused
/// multiply-add arithmetic, and the f64 ones by `normalize4`. Anything but four components
/// fails.
pub(super) fn verify_piece(
    floats: &[f64],
    terms: usize,
    at: (i64, i64),
    (group_degree, fma): (usize, bool),
    budget: f64,
) -> Verdict {
    if floats.len() != 4 * terms {
        return Verdict {
            strict: false,
            f32_output: false,
            f64_output: false,
        };
    }
    let differences: [&[f64]; 4] =
        core::array::from_fn(|c| floats.get(c * terms..(c + 1) * terms).unwrap_or(&[]));
    #[cfg(feature = "std")]
    if fma {
        let played = |c: [&[f32]; 4], t| super::quat_lanes::played_fma(c, t);
        return horner::verify_components(
            differences,
            at,
            group_degree,
            budget,
            (played, normalize4),
        );
    }
    // Without `std` no bank plays with FMA (`quat_lanes::Fused::new`).
    let _ = fma;
    let played = |c: [&[f32]; 4], t| normalize_quat_f32(c.map(|c| horner::horner(c, t)));
    horner::verify_components(differences, at, group_degree, budget, (played, normalize4))
}

impl Bank<'_> {
    /// `write_f64`'s last step: every flagged track's four values normalized in f64.
    pub(super) fn normalize_f64(&self, out: &mut [f64]) {
        for run in &self.normalized {
            let (from, to) = (run.channel as usize, (run.channel + 4 * run.count) as usize);
            for q in out.get_mut(from..to).unwrap_or(&mut []).chunks_exact_mut(4) {
                let n = normalize4([q[0], q[1], q[2], q[3]]);
                q.copy_from_slice(&n);
            }
        }
    }

    /// `write_f32`'s last step: flagged tracks on f32 Horner lanes normalized in f32 (when none
    /// is on the side list, all of them by their list: `interleaved::normalize_list`; nothing
    /// left to do for those the Horner pass normalized, `quat_lanes`); the others from their
    /// exact state in f64, rounded to f32.
    /// With `listed`, the straight frame normalized the listed ones already (while sweeping
    /// their group: `interleaved::sweep_normalized`).
    pub(super) fn normalize_f32(&self, out: &mut [f32], listed: bool) {
        let runs = if self.scripted && self.side.is_empty() {
            // Every flagged track on f32 lanes is on them: the listed ones by list, the ones
            // the Horner pass normalized left alone, the others (exact lanes) below.
            if !listed {
                super::interleaved::normalize_list(out, &self.listed.0);
            }
            &self.listed.1
        } else {
            &self.normalized
        };
        for run in runs {
            let from = run.channel as usize;
            if run.lanes && self.scripted && self.side.is_empty() {
                continue;
            }
            for k in 0..run.count {
                let (t, c0) = (run.first + k, from + 4 * k as usize);
                let Some(q) = out.get_mut(c0..c0 + 4) else {
                    continue;
                };
                if run.lanes && self.on_f32_lanes(t) {
                    if !run.fused {
                        normalize_f32(q);
                    }
                } else {
                    let n = normalize4(core::array::from_fn(|c| self.exact_value(t, c)));
                    for (o, v) in q.iter_mut().zip(n) {
                        *o = v as f32;
                    }
                }
            }
        }
    }

    /// Whether track `t`'s channels are written from f32 Horner lanes just now (forward play,
    /// a float track with lanes, not on the side list).
    fn on_f32_lanes(&self, t: u32) -> bool {
        self.tracks.get(t as usize).is_some_and(|info| {
            self.scripted
                && info.fast
                && !info.fixed
                && self.side_of.get(info.first_channel as usize) == Some(&NONE)
        })
    }

    /// Component `c` of track `t` on the exact lanes (side list, f64 group or fixed group):
    /// the value `TrackPlayer` plays before normalization.
    fn exact_value(&self, t: u32, c: usize) -> f64 {
        let Some(info) = self.tracks.get(t as usize) else {
            return 0.0;
        };
        let channel = info.first_channel as usize + c;
        if let Some(side) = self
            .side_of
            .get(channel)
            .filter(|&&i| i != NONE)
            .and_then(|&i| self.side.get(i as usize))
        {
            return side.state[0];
        }
        let (slot, group) = (info.slot as usize + c, usize::from(info.group));
        if info.fixed {
            self.fixed.get(group).map_or(0.0, |g| {
                let v = g.state.get(slot).copied().unwrap_or(0);
                v as f64 * g.scale.get(slot).copied().unwrap_or(1.0)
            })
        } else {
            self.floats
                .get(group)
                .and_then(|g| g.state.get(slot))
                .copied()
                .unwrap_or(0.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 43 quaternions near unit length (|n − 1| up to 1e-3): full vector steps and a remainder.
    fn near_unit() -> Vec<f32> {
        (0..43)
            .flat_map(|k| {
                let k = f64::from(k);
                let q = normalize4([
                    (0.3 * k).sin(),
                    (0.7 * k).cos(),
                    0.2 - 0.01 * k,
                    (1.3 * k).sin(),
                ]);
                let stretch = 1.0 + 1e-3 * (0.9 * k).sin();
                q.map(|x| (x * stretch) as f32)
            })
            .collect()
    }

    #[test]
    fn vector_normalization_equals_the_scalar_one_bit_for_bit() {
        let values = near_unit();
        let expected: Vec<f32> = values
            .chunks_exact(4)
            .flat_map(|q| normalize_quat_f32([q[0], q[1], q[2], q[3]]))
            .collect();
        let mut vector = values.clone();
        normalize_f32(&mut vector);
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if std::is_x86_feature_detected!("avx") {
            let mut avx = values.clone();
            // SAFETY: AVX was just detected.
            #[allow(unsafe_code)]
            unsafe {
                x86::normalize_avx(&mut avx);
            }
            assert!(avx
                .iter()
                .zip(&expected)
                .all(|(a, e)| a.to_bits() == e.to_bits()));
        }
        let mut any = values.clone();
        #[cfg(target_arch = "x86_64")]
        x86::normalize_sse2(&mut any);
        #[cfg(not(target_arch = "x86_64"))]
        normalize_scalar(&mut any);
        for (i, ((e, v), a)) in expected.iter().zip(&vector).zip(&any).enumerate() {
            assert_eq!(e.to_bits(), v.to_bits(), "value {i}");
            assert_eq!(e.to_bits(), a.to_bits(), "value {i}");
        }
    }

    /// Against `math::normalize4` of the same f32 values in f64 (sqrt and division): within
    /// the series' `(5/16) |d|³` (3e-10 at |d| = 1e-3) plus a few f32 roundings.
    #[test]
    fn f32_normalization_matches_the_exact_one_near_unit_length() {
        let values = near_unit();
        let mut played = values.clone();
        normalize_f32(&mut played);
        for (q, p) in values.chunks_exact(4).zip(played.chunks_exact(4)) {
            let exact = normalize4([q[0], q[1], q[2], q[3]].map(f64::from));
            for c in 0..4 {
                let error = (f64::from(p[c]) - exact[c]).abs();
                assert!(error <= 3.0 * f64::from(f32::EPSILON), "{q:?}: {error:e}");
            }
            let norm = p.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
            assert!(
                (norm - 1.0).abs() <= 4.0 * f64::from(f32::EPSILON),
                "{norm}"
            );
        }
    }
}
