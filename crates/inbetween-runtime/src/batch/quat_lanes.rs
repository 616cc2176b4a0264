//! Horner lanes of normalized rotations played and normalized in one pass: in a Horner group whose lanes are all components of flagged quaternion tracks, each vector of lanes is evaluated by Horner's rule and scaled by `normalize::normalize_quat_f32`'s series while still in registers, then written once into the caller's row.
//!
//! # Which groups
//!
//! [`fused_groups`] marks the Horner groups (a bit per degree) in which every float track is a
//! flagged (normalize-on-output) track of four components. A track's lanes start at a multiple
//! of 4 there (every track before it in the group has four), and a chunk of lanes
//! (`horner::CHUNK`, 8) holds whole quaternions, so a 256-bit register holds two and a 128-bit
//! register one. A group with any other track keeps the two passes (`horner` then
//! `normalize::normalize_f32`).
//!
//! # Walk order
//!
//! A fused group of 512 KiB to 2 MiB of coefficients (5 000 to ~18 000 rotations of degree 6)
//! does not stay in a 512 KiB L2: walked in the same order every frame, the next frame's first
//! lines are the ones evicted longest ago. Forward play walks such a group backwards on odd
//! steps ([`write_lanes_backward`]: runs and segments of 2 048 lanes last to first, each
//! segment forwards), so that each frame starts from the lines the previous one read last. Each
//! lane's value depends only on its own chunk: the same bits in either order.
//!
//! # Same bits as the check
//!
//! Where the CPU has AVX and FMA (detected once, when the bank is built: [`Fused::new`]) the
//! pass uses fused multiply-adds: Horner steps `fma(v, t, c_k)` and the normalization series to
//! first order in few roundings ([`played_fma`]), and `Bank::new` checks those groups' tracks in
//! that arithmetic (`normalize::verify_piece` with `fma`; `f32::mul_add` rounds once, as the
//! vector instruction does: `fused_multiply_add_kernel_equals_its_scalar_check_bit_for_bit`).
//! Elsewhere the arithmetic is `horner::horner` of the lane's f32 coefficients at `t`, then per
//! quaternion `normalize_quat_f32`: the same IEEE f32 multiplies and adds in the same order (no
//! fused multiply-add), on AVX (chosen at run time), SSE2 and the scalar fallback alike, which is
//! what the plain check computes at every integer frame of every piece
//! (`fused_evaluation_equals_horner_then_normalize_bit_for_bit`). Either way the check covers
//! every value this pass plays, bit for bit. Padding lanes past a group's last track play 0, and
//! 0 normalizes to 0 (`s = 1.875`).

use super::horner::{Lanes, CHUNK};
use super::records::{write_lanes, Run, MIN_RUN};
use super::{bits, Bank, TrackInfo};
use crate::stream::layout::MAX_DEGREE;

impl Bank<'_> {
    /// Forward play's Horner lanes into `out`, group by group: the groups of [`fused_groups`]
    /// evaluated and normalized by [`eval_quats`], the others by `HornerGroup::eval`. With
    /// `located` (a straight frame) each group's part of the live block is the one the plan
    /// found (`Straight::block`), else it is looked up.
    pub(super) fn write_horner_f32(&self, t: f32, out: &mut [f32], located: bool) {
        for d in bits(self.used.horner) {
            let Some(g) = self.horner.get(d) else {
                continue;
            };
            let block = if located {
                // A straight frame: the plan located each group's part of the live block.
                self.located_block(d)
            } else {
                let work = self.live.map(|i| self.script.blocks.played(i));
                work.and_then(|i| self.script.blocks.group(i, d))
            };
            let lanes = (g.len, g.runs.as_slice(), g.channel.as_slice());
            if self.fused.groups & (1 << d) != 0 {
                let fused = &self.fused;
                // Odd frames walk a group a little past the L2 backwards (`BACKWARD_FROM`); each branch
                // its own closure, so that the forward one stays inlined as before.
                let bytes = g.len * (d + 1) * core::mem::size_of::<f32>();
                if self.steps & 1 == 1 && (BACKWARD_FROM..BACKWARD_UNTIL).contains(&bytes) {
                    write_lanes_backward(lanes, out, |slot, dst| {
                        eval_quats(&g.lanes(block, slot), t, fused, dst);
                    });
                } else {
                    write_lanes(lanes, out, |slot, dst| {
                        eval_quats(&g.lanes(block, slot), t, fused, dst);
                    });
                }
            } else if let [(0, first, n)] = *g.runs.as_slice() {
                // One run (every lane's channel follows the previous one): one pass.
                if let Some(dst) = out.get_mut(first..first + n) {
                    g.eval(block, t, 0, dst);
                }
            } else {
                write_lanes(lanes, out, |slot, dst| g.eval(block, t, slot, dst));
            }
        }
    }
}

/// Bytes of a fused group's coefficients from which forward play walks the group backwards
/// every other frame ([`write_lanes_backward`] at odd `Bank::steps`), up to
/// [`BACKWARD_UNTIL`]: a group this large does not stay in the core's L2 (512 KiB a core on
/// the Zen 3 this was measured on; 10 000 rotations of degree 6 are 1.1 MB of coefficients,
/// and their row 160 KB), and walked in the same order every frame the L2 keeps none of it
/// for the next frame, whose first lines are the ones evicted longest ago; walked back, a
/// frame starts from the lines the previous one read last. Measured in paired rounds
/// (docs/benchmarks-history.md, *Rotations at 10 000: the fused pass walked backwards on odd frames (session 17)*): 7–11 % less time a frame at 5 000 rotations, 1–6 % at
/// 10 000. Smaller groups play forwards only, instruction for instruction as before.
const BACKWARD_FROM: usize = super::pass::PREFETCH_FROM;

/// Bytes of a fused group's coefficients from which forward play walks it forwards only again:
/// the part of a larger group the L2 keeps is too small a share to pay for the walk's extra
/// segments (20 000 rotations, 2.2 MB: 0.5–0.9 % less time; 30 000, 3.3 MB: 1–2 % more).
const BACKWARD_UNTIL: usize = 2 << 20;

/// Lanes of a segment of [`write_lanes_backward`]: 2 048 lanes, 57 KB at degree 6 (segments
/// of 512 lanes gave half the gain, of 128 a loss: the walk's per-call setup and the hardware
/// prefetcher's start, once a segment).
const SEGMENT: usize = 2048;

/// [`write_lanes`] walked backwards: the runs last to first, each in segments of [`SEGMENT`]
/// lanes (bounds at multiples of `SEGMENT` in the group, so at chunk boundaries) last to
/// first, each segment forwards by `eval` (the hardware prefetcher follows ascending
/// streams). The same calls of `eval` on the same lanes into the same places of `out` as
/// [`write_lanes`], split at more places: each lane's value depends only on its own chunk, so
/// the same bits (`backward_walk_writes_the_forward_bits`). A scattered group (`write_lanes`'
/// blocks on the stack) plays forwards. Not inlined: one call a frame for a group of ≥ 512 KiB.
#[inline(never)]
fn write_lanes_backward(
    lanes: (usize, &[Run], &[u32]),
    out: &mut [f32],
    eval: impl Fn(usize, &mut [f32]),
) {
    let (len, runs, _) = lanes;
    if runs.len().saturating_mul(MIN_RUN) > len {
        write_lanes(lanes, out, eval);
        return;
    }
    for &(slot, first, n) in runs.iter().rev() {
        let mut end = slot + n;
        while end > slot {
            let lo = ((end - 1) / SEGMENT * SEGMENT).max(slot);
            if let Some(dst) = out.get_mut(first + (lo - slot)..first + (end - slot)) {
                eval(lo, dst);
            }
            end = lo;
        }
    }
}

/// The Horner groups a bank plays in one pass, and in which arithmetic (see the module docs).
/// Only [`Fused::new`] makes one with `fma` (the fields are private to this module), so `fma`
/// proves the detection [`eval_quats`] relies on.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Fused {
    /// Bit `d`: the Horner group of degree `d` ([`fused_groups`]).
    groups: u32,
    /// Those groups play with fused multiply-adds ([`played_fma`]): the CPU has AVX and FMA
    /// (detected when the bank is built; never without `std`).
    fma: bool,
}

impl Fused {
    /// The fused groups of `tracks` and whether this CPU plays them with FMA.
    pub(super) fn new(tracks: &[TrackInfo<'_>]) -> Self {
        let groups = fused_groups(tracks);
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        let fma = groups != 0
            && std::is_x86_feature_detected!("avx")
            && std::is_x86_feature_detected!("fma");
        #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
        let fma = false;
        Self { groups, fma }
    }

    /// Bit `d`: the Horner group of degree `d` plays in one pass.
    pub(super) fn groups(&self) -> u32 {
        self.groups
    }

    /// Whether `info`'s Horner lanes, if it has them, play with FMA (the arithmetic its check
    /// must verify).
    pub(super) fn fma_for(&self, info: &TrackInfo<'_>) -> bool {
        let degree = usize::from(info.degree).min(MAX_DEGREE);
        self.fma && !info.fixed && self.groups & (1 << degree) != 0
    }
}

/// The four components' f32 output in the FMA arithmetic at `t` from their coefficients `c`
/// (one order per entry, lowest first): per component `v = c_D; v = fma(v, t, c_k)` for k =
/// D−1 … 0, then `v · (1 + d/2)`, `d = 1 − |q|²` — `normalize_quat_f32`'s series to first
/// order — in few roundings: per component `k` (`x y z w` = 0 1 2 3) the pair `p_k =
/// fma(v_k, v_k, v_{k^1}²)` (`x² + y²` with one square unrounded; `p_x` and `p_y` may differ
/// in the last bit), `d_k = (1 − p_k) − p_{k^2}` (`1 − p` is exact for `p ≥ ½`, and the second
/// subtraction, its result near 0, rounds far below an ulp of 1) and the output
/// `fma(v_k, d_k · ½, v_k)` (the halving exact): no rounded `n` and no rounded scale `1 + d/2`
/// (each up to half an ulp of 1), one rounding of the product. The series' next term, `⅜ d²`
/// relative, is below 2e-11 at the benchmark's largest `|d|` (6.6e-6 over every frame the
/// check visits at 1 000 rotations, tolerance 2e-7: fitted pieces are near unit length), and
/// the check judges it with the rest. Against `normalize4` in f64 this errs by at most 0.98 ×
/// half an ulp of 1 where the series errs by up to 2.09 × (`|d| ≤ 2e-5`,
/// `fused_normalization_is_within_half_an_ulp_of_one`), so the check passes more tracks: all
/// 1 000 of the benchmark's rotations at tolerance 2e-7, where the series failed 12, each at
/// one frame; and one instruction a register fewer than the series. `f32::mul_add` rounds
/// once, as the vector FMA does, so this is the AVX+FMA kernel's value bit for bit.
#[cfg(feature = "std")]
#[must_use]
pub(super) fn played_fma(c: [&[f32]; 4], t: f32) -> [f32; 4] {
    let q = c.map(|c| {
        let Some((&top, rest)) = c.split_last() else {
            return 0.0;
        };
        rest.iter().rev().fold(top, |v, &x| v.mul_add(t, x))
    });
    let sq = q.map(|x| x * x);
    let pair: [f32; 4] = core::array::from_fn(|k| q[k].mul_add(q[k], sq[k ^ 1]));
    core::array::from_fn(|k| {
        let d = (1.0 - pair[k]) - pair[k ^ 2];
        q[k].mul_add(d * 0.5, q[k])
    })
}

/// The Horner groups (bit `d` for degree `d`) whose float tracks are all flagged quaternions:
/// the groups [`eval_quats`] plays. A float track is in the Horner group of its lanes' degree
/// (`TrackInfo::degree`: its maximum degree, or a higher one `interleaved::merge_groups` chose)
/// whether or not its lanes play (`assign_slots`).
pub(super) fn fused_groups(tracks: &[TrackInfo<'_>]) -> u32 {
    let mut quats = 0u32;
    let mut others = 0u32;
    for info in tracks.iter().filter(|i| !i.fixed) {
        let bit = 1u32 << usize::from(info.degree).min(MAX_DEGREE);
        if info.components == 4 && info.track.normalizes() {
            quats |= bit;
        } else {
            others |= bit;
        }
    }
    quats & !others
}

/// The normalized values of lanes `lanes.start .. lanes.start + out.len()` at `t` frames from
/// the centre into `out`, chunk by chunk (a chunk partly outside evaluated whole on the stack
/// and copied): what `HornerGroup::eval` writes, each quaternion then normalized by
/// `normalize_quat_f32`, bit for bit; when `fused` plays with FMA, [`played_fma`]'s arithmetic
/// instead. Nothing is written if `lanes` is not a group's layout.
pub(super) fn eval_quats(lanes: &Lanes<'_>, t: f32, fused: &Fused, out: &mut [f32]) {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if fused.fma {
        // SAFETY: `Fused::fma` is set only by `Fused::new`, after detecting AVX and FMA at run
        // time on this machine (the field is private to this module).
        #[allow(unsafe_code)]
        unsafe {
            eval_fma(lanes, t, out);
        }
        return;
    }
    let _ = fused;
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if std::is_x86_feature_detected!("avx") {
        // SAFETY: `eval_avx` only requires the CPU to support AVX, just detected at run time.
        #[allow(unsafe_code)]
        unsafe {
            eval_avx(lanes, t, out);
        }
        return;
    }
    by_degree::<SSE2>(lanes, t, out);
}

/// The kernels of [`chunk_quats`]: 128-bit registers (SSE2), 256-bit (AVX), 256-bit with fused
/// multiply-adds (AVX and FMA).
const SSE2: u8 = 0;
const AVX: u8 = 1;
const FMA: u8 = 2;

/// [`by_degree`] compiled with AVX enabled, its chunks two quaternions a register.
///
/// # Safety
/// The CPU must support AVX.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx")]
#[allow(unsafe_code)]
unsafe fn eval_avx(lanes: &Lanes<'_>, t: f32, out: &mut [f32]) {
    by_degree::<AVX>(lanes, t, out);
}

/// [`by_degree`] compiled with AVX and FMA enabled, its chunks in [`played_fma`]'s arithmetic.
///
/// # Safety
/// The CPU must support AVX and FMA.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx,fma")]
#[allow(unsafe_code)]
unsafe fn eval_fma(lanes: &Lanes<'_>, t: f32, out: &mut [f32]) {
    by_degree::<FMA>(lanes, t, out);
}

/// [`walk`] for the group's degree with kernel `K` (`AVX` only from [`eval_avx`], `FMA` only
/// from [`eval_fma`]).
#[inline(always)]
fn by_degree<const K: u8>(lanes: &Lanes<'_>, t: f32, out: &mut [f32]) {
    match lanes.degree {
        0 => walk::<1, K>(lanes, t, out),
        1 => walk::<2, K>(lanes, t, out),
        2 => walk::<3, K>(lanes, t, out),
        3 => walk::<4, K>(lanes, t, out),
        4 => walk::<5, K>(lanes, t, out),
        5 => walk::<6, K>(lanes, t, out),
        6 => walk::<7, K>(lanes, t, out),
        7 => walk::<8, K>(lanes, t, out),
        _ => walk::<9, K>(lanes, t, out),
    }
}

/// Lanes `start .. start + out.len()` by `pass::walk` (the f32 lanes' chunk walk: whole chunks
/// straight into `out`, `horner::step(CHUNK)` a step; a chunk partly outside evaluated whole on
/// the stack, its part copied), each chunk by [`chunk_quats`] with kernel `K`.
#[inline(always)]
fn walk<const N: usize, const K: u8>(lanes: &Lanes<'_>, t: f32, out: &mut [f32]) {
    let coef = (lanes.coef, lanes.chunks, lanes.start);
    super::pass::walk::<f32, Quats<K>, N, CHUNK>(coef, out, &Quats::<K>(t));
}

/// The normalized rotations' arithmetic at `t`, a chunk at a time, with kernel `K`.
struct Quats<const K: u8>(f32);

impl<const N: usize, const K: u8> super::pass::Kernel<f32, N, CHUNK> for Quats<K> {
    type Aux = core::iter::Repeat<()>;
    const SPLIT: bool = false;

    #[inline(always)]
    fn aux(&self, _: usize) -> Self::Aux {
        core::iter::repeat(())
    }

    #[inline(always)]
    fn chunk(&self, (): (), c: &[[f32; CHUNK]; N], out: &mut [f32; CHUNK]) {
        chunk_quats::<N, K>(c, self.0, out);
    }

    #[inline(always)]
    fn part(&self, (): (), c: &[[f32; CHUNK]; N], from: usize, out: &mut [f32]) {
        part::<N, K>(c, self.0, from, out);
    }
}

/// Lanes `lo .. lo + out.len()` of one chunk (its orders `c`), evaluated whole on the stack.
#[inline(always)]
fn part<const N: usize, const K: u8>(c: &[[f32; CHUNK]; N], t: f32, lo: usize, out: &mut [f32]) {
    let mut values = [0.0f32; CHUNK];
    chunk_quats::<N, K>(c, t, &mut values);
    if let Some(v) = values.get(lo..lo + out.len()) {
        out.copy_from_slice(v);
    }
}

/// One chunk's lanes (`N` orders `c`: `CHUNK` lanes, whole quaternions), evaluated and
/// normalized, into `out`.
#[inline(always)]
fn chunk_quats<const N: usize, const K: u8>(c: &[[f32; CHUNK]; N], t: f32, out: &mut [f32; CHUNK]) {
    #[cfg(target_arch = "x86_64")]
    match K {
        // SAFETY: `K` is `AVX` only under `eval_avx`, run on CPUs with AVX, and `FMA` only
        // under `eval_fma`, run on CPUs with AVX and FMA.
        #[allow(unsafe_code)]
        AVX => unsafe { x86::chunk_avx(c, t, out) },
        #[allow(unsafe_code)]
        FMA => unsafe { x86::chunk_fma(c, t, out) },
        _ => x86::chunk_sse2(c, t, out),
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        for (m, o) in out.iter_mut().enumerate() {
            let mut v = c[N - 1][m];
            for k in (0..N - 1).rev() {
                v = v * t + c[k][m];
            }
            *o = v;
        }
        for q in out.chunks_exact_mut(4) {
            let n = super::normalize::normalize_quat_f32([q[0], q[1], q[2], q[3]]);
            q.copy_from_slice(&n);
        }
    }
}

/// The chunk kernels: per register, `v = c_{N−1}; v = v · t + c_k` (k descending; a multiply
/// then an add, no FMA), then `normalize::x86::scale128` / `scale256` (one or two whole
/// quaternions a register), stored once.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use core::arch::x86_64::*;

    use super::CHUNK;
    use crate::batch::normalize::x86::{scale128, scale256};

    /// One chunk, one quaternion a 128-bit register (SSE2, part of x86-64).
    #[inline(always)]
    pub(super) fn chunk_sse2<const N: usize>(
        c: &[[f32; CHUNK]; N],
        t: f32,
        out: &mut [f32; CHUNK],
    ) {
        // SAFETY: every load reads 4 f32 at `j < CHUNK` (`j` a multiple of 4) of a
        // `[f32; CHUNK]` and the store writes 4 at `j` of `out`, so all stay inside; SSE2 is
        // enabled on every x86-64 target.
        unsafe {
            let tv = _mm_set1_ps(t);
            for j in (0..CHUNK).step_by(4) {
                let mut v = _mm_loadu_ps(c[N - 1].as_ptr().add(j));
                for k in (0..N - 1).rev() {
                    v = _mm_add_ps(_mm_mul_ps(v, tv), _mm_loadu_ps(c[k].as_ptr().add(j)));
                }
                _mm_storeu_ps(out.as_mut_ptr().add(j), scale128(v));
            }
        }
    }

    /// One chunk, two quaternions a 256-bit register.
    ///
    /// # Safety
    /// The CPU must support AVX (called only from `eval_avx`, compiled with AVX enabled).
    #[inline(always)]
    pub(super) unsafe fn chunk_avx<const N: usize>(
        c: &[[f32; CHUNK]; N],
        t: f32,
        out: &mut [f32; CHUNK],
    ) {
        // SAFETY: as `chunk_sse2`, 8 f32 at `j` a multiple of 8 below `CHUNK`; AVX is the
        // caller's guarantee.
        unsafe {
            let tv = _mm256_set1_ps(t);
            for j in (0..CHUNK).step_by(8) {
                let mut v = _mm256_loadu_ps(c[N - 1].as_ptr().add(j));
                for k in (0..N - 1).rev() {
                    v = _mm256_add_ps(_mm256_mul_ps(v, tv), _mm256_loadu_ps(c[k].as_ptr().add(j)));
                }
                _mm256_storeu_ps(out.as_mut_ptr().add(j), scale256(v));
            }
        }
    }

    /// One chunk in `played_fma`'s arithmetic, two quaternions a 256-bit register: Horner
    /// steps `fma(v, t, c_k)`, the squares, each lane's pair `fma(v, v, neighbour's square)`
    /// (the permutes of [`scale256`]), `d = (1 − pair) − other pair`, then `fma(v, d · ½, v)`:
    /// eight instructions after Horner's steps where the series takes nine.
    ///
    /// # Safety
    /// The CPU must support AVX and FMA (called only from `eval_fma`, compiled with both).
    #[inline(always)]
    pub(super) unsafe fn chunk_fma<const N: usize>(
        c: &[[f32; CHUNK]; N],
        t: f32,
        out: &mut [f32; CHUNK],
    ) {
        // SAFETY: as `chunk_avx`; AVX and FMA are the caller's guarantee.
        unsafe {
            let tv = _mm256_set1_ps(t);
            let one = _mm256_set1_ps(1.0);
            for j in (0..CHUNK).step_by(8) {
                let mut v = _mm256_loadu_ps(c[N - 1].as_ptr().add(j));
                for k in (0..N - 1).rev() {
                    v = _mm256_fmadd_ps(v, tv, _mm256_loadu_ps(c[k].as_ptr().add(j)));
                }
                let sq = _mm256_mul_ps(v, v);
                let pair = _mm256_fmadd_ps(v, v, _mm256_permute_ps::<0b10_11_00_01>(sq));
                let d = _mm256_sub_ps(
                    _mm256_sub_ps(one, pair),
                    _mm256_permute_ps::<0b01_00_11_10>(pair),
                );
                let e = _mm256_mul_ps(d, _mm256_set1_ps(0.5));
                _mm256_storeu_ps(out.as_mut_ptr().add(j), _mm256_fmadd_ps(v, e, v));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use alloc::{vec, vec::Vec};

    use super::*;
    use crate::batch::horner::{centred, HornerGroup};
    use crate::batch::normalize::normalize_quat_f32;
    use crate::math::{cos, sin};

    /// A group of `quats` rotations of degree 5 near unit length (each lane's coefficients a
    /// slow curve about a unit quaternion), as `Bank::new` would load them.
    fn group(quats: usize) -> HornerGroup {
        let mut g = HornerGroup::new(5, 4 * quats);
        for r in 0..quats {
            let a = r as f64 * 0.37;
            let q = [sin(a) * 0.6, cos(a) * 0.6, 0.48, 0.64];
            for (k, &x) in q.iter().enumerate() {
                let s = (r * 4 + k) as f64;
                let p = [
                    x,
                    1e-3 * sin(s * 0.3),
                    -2e-5,
                    3e-7,
                    -1e-9 * s,
                    1e-11,
                    0.0,
                    0.0,
                    0.0,
                ];
                g.set(4 * r + k, &centred(&p, 5, (r % 7) as f64 - 3.0));
            }
        }
        g
    }

    #[test]
    fn fused_evaluation_equals_horner_then_normalize_bit_for_bit() {
        // 19 rotations = 76 lanes: two whole chunks and 12 lanes of a third; evaluated whole,
        // from chunk boundaries and from lanes inside a chunk (a group's later runs).
        let g = group(19);
        for t in -8..8 {
            let t = t as f32;
            let expected: Vec<f32> = (0..19)
                .flat_map(|r| normalize_quat_f32(core::array::from_fn(|k| g.value(4 * r + k, t))))
                .collect();
            for split in [[0, 76, 76], [0, 32, 76], [0, 20, 76], [0, 36, 64]] {
                let mut out = [f32::NAN; 76];
                for (from, to) in [(split[0], split[1]), (split[1], split[2])] {
                    eval_quats(
                        &g.lanes(None, from),
                        t,
                        &Fused::default(),
                        &mut out[from..to],
                    );
                }
                for (i, v) in out.iter().enumerate().take(split[2]) {
                    assert_eq!(
                        v.to_bits(),
                        expected[i].to_bits(),
                        "lane {i} t {t} {split:?}"
                    );
                }
            }
            // The 128-bit path too (the AVX one is taken above where the CPU has it).
            let mut sse = [f32::NAN; 76];
            by_degree::<SSE2>(&g.lanes(None, 0), t, &mut sse);
            assert!(sse
                .iter()
                .zip(&expected)
                .all(|(a, e)| a.to_bits() == e.to_bits()));
        }
    }

    /// The AVX+FMA kernel against `played_fma` (what the check verifies in that arithmetic),
    /// where the CPU has them; and `played_fma` against the plain arithmetic within a few f32
    /// roundings plus the series' second-order term that it drops (`|d|` up to 1.6e-2 here).
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    #[test]
    fn fused_multiply_add_kernel_equals_its_scalar_check_bit_for_bit() {
        let g = group(19);
        let lanes = g.lanes(None, 0);
        // The six orders of `slot`, lowest first, from the chunked layout.
        let coef = |slot: usize| -> [f32; 6] {
            core::array::from_fn(|k| lanes.coef[(slot / CHUNK) * 6 + k][slot % CHUNK])
        };
        let fma_cpu = std::is_x86_feature_detected!("avx") && std::is_x86_feature_detected!("fma");
        let mut differ = 0;
        for t in -8..8 {
            let t = t as f32;
            let expected: Vec<f32> = (0..19)
                .flat_map(|r| {
                    let c: [[f32; 6]; 4] = core::array::from_fn(|k| coef(4 * r + k));
                    played_fma(c.each_ref().map(|c| &c[..]), t)
                })
                .collect();
            for (r, q) in expected.chunks_exact(4).enumerate() {
                let raw: [f32; 4] = core::array::from_fn(|k| g.value(4 * r + k, t));
                let plain = normalize_quat_f32(raw);
                // The series' second-order term, `⅜ d²` relative, which `played_fma` drops.
                let d = 1.0 - raw.iter().map(|&x| x * x).sum::<f32>();
                for (a, b) in q.iter().zip(plain) {
                    let bound = 4.0 * f32::EPSILON + 0.4 * d * d;
                    assert!((a - b).abs() <= bound, "{a} vs {b}");
                    differ += usize::from(a.to_bits() != b.to_bits());
                }
            }
            if fma_cpu {
                for (from, to) in [(0, 76), (20, 76), (0, 36)] {
                    let mut out = [f32::NAN; 76];
                    // Made with `fma` only here, where AVX and FMA were just detected.
                    let fused = Fused {
                        groups: 1 << 5,
                        fma: true,
                    };
                    eval_quats(&g.lanes(None, from), t, &fused, &mut out[from..to]);
                    for i in from..to {
                        assert_eq!(out[i].to_bits(), expected[i].to_bits(), "lane {i} t {t}");
                    }
                }
            }
        }
        // The two arithmetics do differ here, so the bit comparison tells them apart.
        assert!(differ > 0);
    }

    /// xorshift64*: reproducible pseudo-random numbers for the tests below (which need std).
    #[cfg(feature = "std")]
    struct Rng(u64);

    #[cfg(feature = "std")]
    impl Rng {
        /// Uniform in `[−1, 1)`.
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            let bits = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11;
            bits as f64 / (1u64 << 52) as f64 - 1.0
        }

        /// A random unit quaternion stretched by `1 + r`, `|r| ≤ stretch`, in f32.
        fn quat(&mut self, stretch: f64) -> [f32; 4] {
            let q = crate::math::normalize4(core::array::from_fn(|_| self.next()));
            let r = 1.0 + stretch * self.next();
            q.map(|x| (x * r) as f32)
        }
    }

    /// The AVX+FMA chunk kernel against `played_fma` bit for bit on 40 000 random chunks of
    /// degree 6 (rotations near unit length with small random higher orders, random `t` in
    /// the epoch's range), where the CPU has AVX and FMA.
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    #[test]
    fn fused_multiply_add_kernel_equals_its_scalar_check_on_random_chunks() {
        if !(std::is_x86_feature_detected!("avx") && std::is_x86_feature_detected!("fma")) {
            return;
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..40_000 {
            let mut c = [[0.0f32; CHUNK]; 7];
            for r in 0..CHUNK / 4 {
                let stretch = [1e-6, 1e-4, 1e-2][r % 3];
                let q = rng.quat(stretch);
                for k in 0..4 {
                    c[0][4 * r + k] = q[k];
                    for (o, order) in c.iter_mut().enumerate().skip(1) {
                        let scale = 1e-2 / f64::from(1u32 << (3 * o));
                        order[4 * r + k] = (scale * rng.next()) as f32;
                    }
                }
            }
            let t = (8.0 * rng.next()).floor() as f32;
            let mut out = [f32::NAN; CHUNK];
            // SAFETY: AVX and FMA were detected above.
            #[allow(unsafe_code)]
            unsafe {
                x86::chunk_fma(&c, t, &mut out);
            }
            for r in 0..CHUNK / 4 {
                let orders: [[f32; 7]; 4] = core::array::from_fn(|k| c.map(|o| o[4 * r + k]));
                let expected = played_fma(orders.each_ref().map(|o| &o[..]), t);
                for k in 0..4 {
                    assert_eq!(
                        out[4 * r + k].to_bits(),
                        expected[k].to_bits(),
                        "{c:?} t {t}"
                    );
                }
            }
        }
    }

    /// `played_fma`'s normalization of random quaternions near unit length (`|n − 1|` up to
    /// 2e-5, three times the benchmark's largest) against `normalize4` of the same f32 values
    /// in f64: within half an ulp of 1 (`f32::EPSILON / 2`; the output's own rounding is up to
    /// a quarter for components below 1), where `normalize_quat_f32`'s series (a rounded `n`
    /// and a rounded scale `s` before the product) errs by twice that, and by more than half
    /// an ulp at thousands of them — the
    /// reason the f32 check passes tracks in this arithmetic that it failed in that one.
    #[cfg(feature = "std")]
    #[test]
    fn fused_normalization_is_within_half_an_ulp_of_one() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let half = 0.5 * f64::from(f32::EPSILON);
        let (mut fused_worst, mut series_worst, mut series_over) = (0.0f64, 0.0f64, 0);
        for _ in 0..200_000 {
            let q = rng.quat(1e-5);
            let exact = crate::math::normalize4(q.map(f64::from));
            let fused = played_fma(q.each_ref().map(core::slice::from_ref), 0.0);
            let series = normalize_quat_f32(q);
            for k in 0..4 {
                fused_worst = fused_worst.max((f64::from(fused[k]) - exact[k]).abs());
                let e = (f64::from(series[k]) - exact[k]).abs();
                series_worst = series_worst.max(e);
                series_over += usize::from(e > half);
            }
        }
        assert!(
            fused_worst <= half,
            "{:.3} × half an ulp",
            fused_worst / half
        );
        // Measured: fused 0.98 × half an ulp at worst; the series 2.09 ×, 12 406 values over.
        assert!(series_worst > 2.0 * fused_worst && series_over > 1000);
    }

    /// [`write_lanes_backward`] writes what [`write_lanes`] writes, bit for bit, and nothing
    /// else: one run across segment bounds, runs starting inside chunks and segments with gaps
    /// between them in the row, and a scattered group (its fallback), on 1 300 rotations
    /// (5 200 lanes: three segments).
    #[test]
    fn backward_walk_writes_the_forward_bits() {
        let g = group(1_300);
        let len = 4 * 1_300;
        let layouts: [&[Run]; 3] = [
            &[(0, 0, len)],
            &[
                (0, 3, 1_028),
                (1_028, 1_100, 2_100),
                (3_128, 3_300, len - 3_128),
            ],
            &[(0, 0, 12), (12, 20, len - 12)],
        ];
        // Scattered: runs of one quaternion each, every other row position.
        let scattered: Vec<Run> = (0..len / 4).map(|q| (4 * q, 8 * q, 4)).collect();
        for (k, runs) in layouts
            .into_iter()
            .chain([scattered.as_slice()])
            .enumerate()
        {
            let width = runs
                .iter()
                .map(|&(_, first, n)| first + n)
                .max()
                .unwrap_or(0);
            let mut channel = vec![0u32; len];
            for &(slot, first, n) in runs {
                for i in 0..n {
                    channel[slot + i] = (first + i) as u32;
                }
            }
            let lanes = (len, runs, channel.as_slice());
            for t in [-8.0f32, -3.0, 0.0, 5.0, 7.0] {
                let eval = |slot: usize, dst: &mut [f32]| {
                    eval_quats(&g.lanes(None, slot), t, &Fused::default(), dst);
                };
                let (mut forward, mut backward) = (vec![f32::NAN; width], vec![f32::NAN; width]);
                write_lanes(lanes, &mut forward, eval);
                write_lanes_backward(lanes, &mut backward, eval);
                let written = forward.iter().filter(|v| !v.is_nan()).count();
                assert_eq!(written, len, "layout {k}");
                for (i, (f, b)) in forward.iter().zip(&backward).enumerate() {
                    assert_eq!(f.to_bits(), b.to_bits(), "layout {k} t {t} position {i}");
                }
            }
        }
    }
}
