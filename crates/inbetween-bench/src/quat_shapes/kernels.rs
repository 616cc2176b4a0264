//! The shapes' frame loops: eight rotations a 256-bit register with AVX2 and FMA (chosen at run time, as the bank chooses its fused kernel), the rest one by one in the scalar arithmetic, which the vector loop equals bit for bit.

use super::{played_arc, played_chord};

/// Whether the CPU has AVX2 and FMA (the vector loops' requirement).
fn avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Rotations `lanes` can play into `out`: its whole quaternions, at most every lane array's
/// length.
fn rotations<const N: usize>(out: &[f32], lanes: &[&[f32]; N]) -> usize {
    lanes.iter().fold(out.len() / 4, |n, l| n.min(l.len()))
}

/// A vector loop: plays the first `n` rotations (whole blocks of 8 in vector registers, the
/// rest in the scalar arithmetic compiled with FMA), returns `n`.
///
/// # Safety
/// The CPU must support AVX2 and FMA; `n` at most every lane array's length and
/// `out.len() / 4`.
type VectorLoop<const N: usize> = unsafe fn(f32, &mut [f32], &[&[f32]; N], usize) -> usize;

/// Plays lanes (`lanes[k][i]`: constant `k` of rotation `i`) at frame `f` into `out`
/// (`[x, y, z, w]` per rotation): by `vector` when given, else by `scalar`.
/// `vector` must only be given where [`avx2_fma`] holds.
fn play<const N: usize>(
    f: f32,
    out: &mut [f32],
    lanes: &[&[f32]; N],
    vector: Option<VectorLoop<N>>,
    scalar: fn(&[f32; N], f32) -> [f32; 4],
) {
    let n = rotations(out, lanes);
    let mut done = 0;
    if let Some(run) = vector {
        // SAFETY: the vector loops are given only after `avx2_fma()` detected AVX2 and FMA on
        // this CPU (`chord_with`, `arc_with`); `n` is at most every lane array's length and
        // `out.len() / 4` (`rotations`).
        #[allow(unsafe_code)]
        unsafe {
            done = run(f, out, lanes, n);
        }
    }
    for i in done..n {
        let lane: [f32; N] = std::array::from_fn(|k| lanes[k][i]);
        out[4 * i..4 * i + 4].copy_from_slice(&scalar(&lane, f));
    }
}

/// Plays the chord lanes at frame `f` into `out` with [`played_chord`]'s arithmetic, whole
/// blocks of 8 by the AVX2+FMA loop when `vector` and the CPU has it.
pub(super) fn chord_with<const N: usize>(
    f: f32,
    out: &mut [f32],
    lanes: &[&[f32]; N],
    vector: bool,
) {
    #[cfg(target_arch = "x86_64")]
    let simd = (vector && avx2_fma()).then_some(x86::chord::<N> as VectorLoop<N>);
    #[cfg(not(target_arch = "x86_64"))]
    let simd = None::<VectorLoop<N>>;
    let _ = vector;
    play(f, out, lanes, simd, played_chord::<N>);
}

/// [`chord_with`] with the vector loop where the CPU has it.
pub(super) fn chord_run<const N: usize>(f: f32, out: &mut [f32], lanes: &[&[f32]; N]) {
    chord_with(f, out, lanes, true);
}

/// Plays the arc lanes at frame `f` into `out` with [`played_arc`]'s arithmetic, as
/// [`chord_with`].
pub(super) fn arc_with(f: f32, out: &mut [f32], lanes: &[&[f32]; 10], vector: bool) {
    #[cfg(target_arch = "x86_64")]
    let simd = (vector && avx2_fma()).then_some(x86::arc as VectorLoop<10>);
    #[cfg(not(target_arch = "x86_64"))]
    let simd = None::<VectorLoop<10>>;
    let _ = vector;
    play(f, out, lanes, simd, played_arc);
}

/// [`arc_with`] with the vector loop where the CPU has it.
pub(super) fn arc_run(f: f32, out: &mut [f32], lanes: &[&[f32]; 10]) {
    arc_with(f, out, lanes, true);
}

/// The AVX2+FMA loops: per block of 8 rotations, each constant one unaligned 256-bit load, the
/// arithmetic of `played_chord` / `played_arc` lane-wise (`vfmadd` rounds once as
/// `f32::mul_add`; `vsqrtps` and `vdivps` are correctly rounded as `f32::sqrt` and `/`), then
/// the four component registers transposed into `[x, y, z, w]` order and stored (4 stores).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use std::arch::x86_64::*;

    use super::super::{played_arc, played_chord, COS, SIN};

    /// Stores components `q[0..4]` (8 rotations each) at `out` as 8 `[x, y, z, w]`.
    ///
    /// # Safety
    /// AVX must be available, and `out` valid for writing 32 f32.
    #[inline(always)]
    unsafe fn store_aos(q: [__m256; 4], out: *mut f32) {
        let t0 = _mm256_unpacklo_ps(q[0], q[1]); // x0 y0 x1 y1 | x4 y4 x5 y5
        let t1 = _mm256_unpackhi_ps(q[0], q[1]); // x2 y2 x3 y3 | x6 y6 x7 y7
        let t2 = _mm256_unpacklo_ps(q[2], q[3]);
        let t3 = _mm256_unpackhi_ps(q[2], q[3]);
        let r0 = _mm256_shuffle_ps::<0x44>(t0, t2); // rotation 0 | 4
        let r1 = _mm256_shuffle_ps::<0xEE>(t0, t2); // 1 | 5
        let r2 = _mm256_shuffle_ps::<0x44>(t1, t3); // 2 | 6
        let r3 = _mm256_shuffle_ps::<0xEE>(t1, t3); // 3 | 7
        _mm256_storeu_ps(out, _mm256_permute2f128_ps::<0x20>(r0, r1));
        _mm256_storeu_ps(out.add(8), _mm256_permute2f128_ps::<0x20>(r2, r3));
        _mm256_storeu_ps(out.add(16), _mm256_permute2f128_ps::<0x31>(r0, r1));
        _mm256_storeu_ps(out.add(24), _mm256_permute2f128_ps::<0x31>(r2, r3));
    }

    /// The chord loop over the first `n` rotations (the last `n % 8` by `played_chord`);
    /// returns `n`.
    ///
    /// # Safety
    /// AVX2 and FMA must be available; `n` at most every `lanes[k].len()` and `out.len() / 4`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn chord<const N: usize>(
        f: f32,
        out: &mut [f32],
        lanes: &[&[f32]; N],
        n: usize,
    ) -> usize {
        let blocks = n / 8;
        let fv = _mm256_set1_ps(f);
        let base: [*const f32; N] = std::array::from_fn(|k| lanes[k].as_ptr());
        let dst = out.as_mut_ptr();
        for j in 0..blocks {
            let i = 8 * j;
            // Every load reads 8 f32 at `i + 8 ≤ n ≤ lanes[k].len()`.
            let load = |k: usize| _mm256_loadu_ps(base[k].add(i));
            let t = _mm256_sub_ps(fv, load(8));
            let mut s = load(N - 1);
            for k in (9..N - 1).rev() {
                s = _mm256_fmadd_ps(s, t, load(k));
            }
            let p: [__m256; 4] = std::array::from_fn(|c| _mm256_fmadd_ps(load(4 + c), s, load(c)));
            let mut nn = _mm256_mul_ps(p[0], p[0]);
            nn = _mm256_fmadd_ps(p[1], p[1], nn);
            nn = _mm256_fmadd_ps(p[2], p[2], nn);
            nn = _mm256_fmadd_ps(p[3], p[3], nn);
            let norm = _mm256_sqrt_ps(nn);
            // Writes 32 f32 at `4 i + 32 ≤ 4 n ≤ out.len()`.
            store_aos(p.map(|x| _mm256_div_ps(x, norm)), dst.add(4 * i));
        }
        for i in blocks * 8..n {
            // The rest in the scalar arithmetic, here so that its `mul_add` is an instruction:
            // reads at `i < n ≤ lanes[k].len()`, writes 4 f32 at `4 i + 4 ≤ 4 n ≤ out.len()`.
            let lane: [f32; N] = std::array::from_fn(|k| *base[k].add(i));
            let q = played_chord(&lane, f);
            std::ptr::copy_nonoverlapping(q.as_ptr(), dst.add(4 * i), 4);
        }
        n
    }

    /// The arc loop over the first `n` rotations (the last `n % 8` by `played_arc`); returns
    /// `n`.
    ///
    /// # Safety
    /// As [`chord`].
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn arc(f: f32, out: &mut [f32], lanes: &[&[f32]; 10], n: usize) -> usize {
        let blocks = n / 8;
        let fv = _mm256_set1_ps(f);
        let one = _mm256_set1_ps(1.0);
        let base: [*const f32; 10] = std::array::from_fn(|k| lanes[k].as_ptr());
        let dst = out.as_mut_ptr();
        for j in 0..blocks {
            let i = 8 * j;
            // Every load reads 8 f32 at `i + 8 ≤ n ≤ lanes[k].len()`.
            let load = |k: usize| _mm256_loadu_ps(base[k].add(i));
            let phi = _mm256_mul_ps(load(9), _mm256_sub_ps(fv, load(8)));
            let x = _mm256_mul_ps(phi, phi);
            let mut sp = _mm256_set1_ps(SIN[3]);
            for k in (0..3).rev() {
                sp = _mm256_fmadd_ps(sp, x, _mm256_set1_ps(SIN[k]));
            }
            let mut cp = _mm256_set1_ps(COS[4]);
            for k in (0..4).rev() {
                cp = _mm256_fmadd_ps(cp, x, _mm256_set1_ps(COS[k]));
            }
            let sin = _mm256_fmadd_ps(_mm256_mul_ps(phi, x), sp, phi);
            let cos = _mm256_fmadd_ps(x, cp, one);
            let q: [__m256; 4] = std::array::from_fn(|c| {
                _mm256_fmadd_ps(load(4 + c), sin, _mm256_mul_ps(load(c), cos))
            });
            // Writes 32 f32 at `4 i + 32 ≤ 4 n ≤ out.len()`.
            store_aos(q, dst.add(4 * i));
        }
        for i in blocks * 8..n {
            // The rest in the scalar arithmetic, here so that its `mul_add` is an instruction:
            // reads at `i < n ≤ lanes[k].len()`, writes 4 f32 at `4 i + 4 ≤ 4 n ≤ out.len()`.
            let lane: [f32; 10] = std::array::from_fn(|k| *base[k].add(i));
            let q = played_arc(&lane, f);
            std::ptr::copy_nonoverlapping(q.as_ptr(), dst.add(4 * i), 4);
        }
        n
    }
}
