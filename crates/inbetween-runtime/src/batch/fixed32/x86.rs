//! The i32 lanes' whole chunks by hand on x86-64: the arithmetic of `fixed32::lane` on AVX2 (8 lanes a register) or AVX-512 (16) registers, `u` a compile-time constant, the chunks walked by one index.
//!
//! Per register of lanes: `v = (d_3·B_3 + d_2·B_2) + (d_1·B_1 + d_0)` (the orders a group has),
//! `B_k = B_k(u)` the Newton basis broadcast to every lane ([`Weights`]), with `vpmulld` (the
//! low 32 bits of the product: `wrapping_mul`; a product by a constant the compiler may turn
//! into shifts and adds, the same integers) and `vpaddd` (`wrapping_add`), then `vcvtdq2ps`
//! (round to nearest even, as `v as f32`) and `vmulps` by the chunk's `2^-E` (one broadcast a
//! chunk): the bits of `newton_i32(d, u) as f32 · 2^-E`, the value `Bank::new`'s check
//! verifies, rounded once (`hand_written_loops_play_the_checked_integers_bit_for_bit`). The
//! generic chunk walk (`pass::walk`) kept ~16 instructions of bookkeeping a chunk in the 16
//! copies of the pass (one per `u`); this loop keeps 3. The AVX-512 registers exist only when
//! the compiler has their intrinsics (Rust 1.89; the crate's MSRV is 1.81, whose builds play
//! AVX2).

use core::arch::x86_64::*;

use super::{newton_basis, Lanes, CHUNK};

/// A register of i32 lanes and what the pass does with it.
pub(super) trait Wide: Copy {
    /// Lanes a register (a divisor of `CHUNK`).
    const LANES: usize;
    /// Every lane `u`.
    ///
    /// # Safety
    /// The CPU must support the register's instructions (so for every method).
    unsafe fn splat(u: i32) -> Self;
    /// `LANES` i32 from `p` (unaligned).
    ///
    /// # Safety
    /// As [`Wide::splat`]; `p .. p + LANES` must be readable.
    unsafe fn load(p: *const i32) -> Self;
    /// Lane by lane `wrapping_add`.
    ///
    /// # Safety
    /// As [`Wide::splat`].
    unsafe fn add(self, b: Self) -> Self;
    /// Lane by lane `wrapping_mul`.
    ///
    /// # Safety
    /// As [`Wide::splat`].
    unsafe fn mul(self, b: Self) -> Self;
    /// The f32 register of the same width.
    type Scale: Copy;
    /// Every lane `s` (a chunk's scale).
    ///
    /// # Safety
    /// As [`Wide::splat`].
    unsafe fn splat_scale(s: f32) -> Self::Scale;
    /// Lane by lane `(v as f32) · s` stored at `o`.
    ///
    /// # Safety
    /// As [`Wide::splat`]; `o .. o + LANES` writable.
    unsafe fn store_scaled(self, s: Self::Scale, o: *mut f32);
    /// Lane by lane `(v as f32) · s` stored at `o`, the scales `s` read from `s`.
    ///
    /// # Safety
    /// As [`Wide::splat`]; `s .. s + LANES` readable, `o .. o + LANES` writable.
    unsafe fn store_lanes(self, s: *const f32, o: *mut f32) {
        unsafe { self.store_scaled(Self::load_scale(s), o) }
    }
    /// `LANES` f32 from `p` (unaligned).
    ///
    /// # Safety
    /// As [`Wide::splat`]; `p .. p + LANES` readable.
    unsafe fn load_scale(p: *const f32) -> Self::Scale;
    /// Lanes `0 .. n` of [`Wide::store_lanes`] (`n < LANES`), by a masked store: the lanes
    /// from `n` on are neither written nor accessed (a masked-out lane never faults).
    ///
    /// # Safety
    /// As [`Wide::splat`]; `s .. s + LANES` readable, `o .. o + n` writable.
    unsafe fn store_lanes_part(self, s: *const f32, o: *mut f32, n: usize);
    /// `LANES` f32 at `o` times those at `s`, in place.
    ///
    /// # Safety
    /// As [`Wide::splat`]; `s .. s + LANES` readable, `o .. o + LANES` readable and writable.
    unsafe fn rescale(o: *mut f32, s: *const f32);
}

// SAFETY (every method): AVX2 is the caller's guarantee; the pointers' ranges are theirs.
impl Wide for __m256i {
    const LANES: usize = 8;
    #[inline(always)]
    unsafe fn splat(u: i32) -> Self {
        unsafe { _mm256_set1_epi32(u) }
    }
    #[inline(always)]
    unsafe fn load(p: *const i32) -> Self {
        unsafe { _mm256_loadu_si256(p.cast()) }
    }
    #[inline(always)]
    unsafe fn add(self, b: Self) -> Self {
        unsafe { _mm256_add_epi32(self, b) }
    }
    #[inline(always)]
    unsafe fn mul(self, b: Self) -> Self {
        unsafe { _mm256_mullo_epi32(self, b) }
    }
    type Scale = __m256;
    #[inline(always)]
    unsafe fn splat_scale(s: f32) -> __m256 {
        unsafe { _mm256_set1_ps(s) }
    }
    #[inline(always)]
    unsafe fn store_scaled(self, s: __m256, o: *mut f32) {
        unsafe { _mm256_storeu_ps(o, _mm256_mul_ps(_mm256_cvtepi32_ps(self), s)) }
    }
    #[inline(always)]
    unsafe fn load_scale(p: *const f32) -> __m256 {
        unsafe { _mm256_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn store_lanes_part(self, s: *const f32, o: *mut f32, n: usize) {
        // Lane `m` is stored where `m < n` (the mask's sign bit set: `n > m`).
        unsafe {
            let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), lanes);
            let v = _mm256_mul_ps(_mm256_cvtepi32_ps(self), Self::load_scale(s));
            _mm256_maskstore_ps(o, mask, v);
        }
    }
    #[inline(always)]
    unsafe fn rescale(o: *mut f32, s: *const f32) {
        unsafe { _mm256_storeu_ps(o, _mm256_mul_ps(_mm256_loadu_ps(o), _mm256_loadu_ps(s))) }
    }
}

/// The 16-lane registers (AVX-512F), with compilers that have their intrinsics.
#[rustversion::since(1.89)]
#[clippy::msrv = "1.89"]
mod avx512 {
    use core::arch::x86_64::*;

    use super::Wide;

    // SAFETY (every method): AVX-512F is the caller's guarantee; the pointers' ranges are
    // theirs.
    impl Wide for __m512i {
        const LANES: usize = 16;
        #[inline(always)]
        unsafe fn splat(u: i32) -> Self {
            unsafe { _mm512_set1_epi32(u) }
        }
        #[inline(always)]
        unsafe fn load(p: *const i32) -> Self {
            unsafe { _mm512_loadu_si512(p.cast()) }
        }
        #[inline(always)]
        unsafe fn add(self, b: Self) -> Self {
            unsafe { _mm512_add_epi32(self, b) }
        }
        #[inline(always)]
        unsafe fn mul(self, b: Self) -> Self {
            unsafe { _mm512_mullo_epi32(self, b) }
        }
        type Scale = __m512;
        #[inline(always)]
        unsafe fn splat_scale(s: f32) -> __m512 {
            unsafe { _mm512_set1_ps(s) }
        }
        #[inline(always)]
        unsafe fn store_scaled(self, s: __m512, o: *mut f32) {
            unsafe { _mm512_storeu_ps(o, _mm512_mul_ps(_mm512_cvtepi32_ps(self), s)) }
        }
        #[inline(always)]
        unsafe fn load_scale(p: *const f32) -> __m512 {
            unsafe { _mm512_loadu_ps(p) }
        }
        #[inline(always)]
        unsafe fn store_lanes_part(self, s: *const f32, o: *mut f32, n: usize) {
            // Bits `0 .. n` of the mask (`n < 16`).
            unsafe {
                let v = _mm512_mul_ps(_mm512_cvtepi32_ps(self), Self::load_scale(s));
                _mm512_mask_storeu_ps(o, ((1u32 << n) - 1) as u16, v);
            }
        }
        #[inline(always)]
        unsafe fn rescale(o: *mut f32, s: *const f32) {
            unsafe { _mm512_storeu_ps(o, _mm512_mul_ps(_mm512_loadu_ps(o), _mm512_loadu_ps(s))) }
        }
    }
}

/// Evaluates the whole chunks of `out` (lanes `g.start ..`, `g.start` on a chunk boundary,
/// degree 1 to 3) with registers `V` and returns how many lanes it wrote: `out.len()` rounded
/// down to whole chunks, or 0 (nothing written) for a run from inside a chunk, another
/// degree, `u` outside the epoch, or lanes past the group.
///
/// # Safety
/// The CPU must support `V`'s instructions (called from `eval_avx2` / `eval_avx512`,
/// compiled with them).
#[inline(always)]
pub(super) unsafe fn whole_chunks<V: Wide>(g: &Lanes<'_>, u: i32, out: &mut [f32]) -> usize {
    if g.start % CHUNK != 0 {
        return 0;
    }
    // SAFETY (each call): `V`'s instructions are this function's precondition.
    unsafe {
        match g.degree {
            1 => super::each_u!(u, U => run::<V, 2, U>(g, out), 0),
            2 => super::each_u!(u, U => run::<V, 3, U>(g, out), 0),
            3 => super::each_u!(u, U => run::<V, 4, U>(g, out), 0),
            _ => 0,
        }
    }
}

/// The whole chunks of `out` from chunk `g.start / CHUNK` at `u = U` (see [`whole_chunks`]).
///
/// # Safety
/// The CPU must support `V`'s instructions.
#[inline(always)]
unsafe fn run<V: Wide, const N: usize, const U: i32>(g: &Lanes<'_>, out: &mut [f32]) -> usize {
    let first = g.start / CHUNK;
    let whole = out.len() / CHUNK;
    let (Some(coef), Some(scale), Some(lanes), Some(out)) = (
        g.coef.get(first * N..(first + whole) * N),
        g.scale.get(first..first + whole),
        g.lane_scale.get(first..first + whole),
        out.get_mut(..whole * CHUNK),
    ) else {
        return 0;
    };
    let (c, s, o) = (coef.as_ptr(), scale.as_ptr(), out.as_mut_ptr());
    let l = lanes.as_ptr();
    // Large groups ask for the lines `AHEAD` bytes on (as `pass::walk_prefetch`).
    let ahead = core::mem::size_of_val(g.coef) >= super::super::pass::PREFETCH_FROM;
    // SAFETY: `coef` is exactly `whole · N` chunks (`[i32; CHUNK]`, contiguous), `scale`
    // `whole` f32, `lanes` `whole` chunks of f32 and `out` `whole · CHUNK` f32, all checked
    // just above. Chunk `i < whole` reads orders `k < N` at `c + i·N + k`, its scale at
    // `s + i` (and its lanes' at `l + i`) and writes `o + i·CHUNK ..+ CHUNK`; each register access covers `V::LANES` numbers at `j` (a
    // multiple of `V::LANES`, a divisor of `CHUNK`, below `CHUNK`) of one such chunk, so every
    // load and store stays inside the borrowed slices (unaligned: no alignment is needed).
    // `V`'s instructions are the caller's guarantee.
    unsafe {
        let w = weights::<V>(U);
        for i in 0..whole {
            let (c, o) = (c.add(i * N), o.add(i * CHUNK));
            if ahead {
                prefetch::<N>(c.cast());
            }
            let sc = *s.add(i);
            if sc > super::MIXED {
                chunk_scaled::<V, N>(c, w, sc, o);
            } else {
                let l = l.add(i).cast::<f32>();
                for j in (0..CHUNK).step_by(V::LANES) {
                    let load = |k: usize| V::load(c.add(k).cast::<i32>().add(j));
                    value::<V, N>(load, w).store_lanes(l.add(j), o.add(j));
                }
            }
        }
    }
    whole * CHUNK
}

/// The straight frame's pass over lanes `0 .. out.len()` of a group whose lanes are one run
/// of channels from slot 0 (degree 1 to 3, `g.start` 0): every chunk by one counted loop
/// straight into the caller's row, of the last partial chunk only the registers holding lanes
/// of the row, the last of them by a masked store (its padding lanes exist: coefficients 0,
/// scale 0; they are computed, not written). `false` (nothing written) for another degree or
/// `out` past the group's chunks.
///
/// The operations of [`run`] lane for lane, so the same integers and bits, with less around
/// them (docs/benchmarks-history.md, *Fixed-point sweep at 1 000 channels (session 11)*): below
/// `pass::PREFETCH_UNTIL` bytes `u` is a compile-time constant for each of the epoch's 16
/// values, so the basis is: a product by 0 or 1 is no instruction, by −1 or 2 a subtraction
/// or an addition, equal weights may share a product (the compiler's choice: `u = 3` has
/// `B_1 = B_2 = 3`), and the rest keep
/// `vpmulld` with a register operand (the 1 000-channel fixed bank ~7 % faster than with `u`
/// in a register for every value, on this machine's Intel cores, where `vpmulld` takes port 0
/// twice; docs/benchmarks-history.md, *Fixed bank: Newton lanes (session 18)*). A group of fewer
/// than `pass::PREFETCH_UNTIL` bytes (4 MiB: 262 144 cubic lanes; at 100 000 this loop, no
/// prefetch and the constant `u`, took 0.96–0.98 of the prefetching loop's time in paired
/// rounds in one process, session 18) multiplies each
/// whole chunk by the scale broadcast to it (`IntLanes::broadcast`: one `vbroadcastss` a chunk,
/// no test), 1 in a [`super::MIXED`] chunk, whose lanes are then multiplied by their own
/// scales in place (`mixed`, a list made once in `Bank::new`; `((v as f32) · 1) · s` is
/// `(v as f32) · s` to the bit): before, every lane's scale was a memory operand of the
/// product, a fifth load a register (the 1 000-channel fixed bank 4–5 % faster so, session 17);
/// a larger one reads one scale a chunk (a lane's in a [`super::MIXED`] chunk, as [`run`]) and
/// prefetches, the test and the prefetch chosen once per call. A partial last chunk reads its
/// lanes' scales either way.
///
/// # Safety
/// The CPU must support `V`'s instructions.
#[inline(always)]
pub(super) unsafe fn sweep<V: Wide>(g: &Lanes<'_>, u: i32, out: &mut [f32]) -> bool {
    let Some(coef) = g.coef.get(..out.len().div_ceil(CHUNK) * (g.degree + 1)) else {
        return false;
    };
    // SAFETY (each call): `V`'s instructions are this function's precondition; `coef` is
    // the chunks `sweep_n` reads, borrowed for the call.
    unsafe {
        let c = coef.as_ptr();
        match g.degree {
            1 => sweep_u::<V, 2, _>(g, c, u, out, NoRecords),
            2 => sweep_u::<V, 3, _>(g, c, u, out, NoRecords),
            3 => sweep_u::<V, 4, _>(g, c, u, out, NoRecords),
            _ => false,
        }
    }
}

/// [`sweep`] of a cubic group with the frame's records stored in its pass: before each part of
/// [`PART`] chunks is played, the records at positions below its end (`records`, ordered by
/// position), so each record's lines are fetched just before the part's loads want them
/// (docs/benchmarks-history.md, *Fixed bank at 100 000 channels: records stored in the pass
/// (session 19)*). The same stores and values as [`store_records4`] of every record, then
/// [`sweep`]. `coef` is the group's part of the live block (`g.coef` is not read); `false`
/// (nothing stored nor written) as for `sweep`, or for another degree.
///
/// # Safety
/// The CPU must support `V`'s instructions and AVX2; `records.0` must be ordered by position,
/// `records.1` hold `4 · records.0.len()` numbers and every `records.0[r] + 3 · CHUNK` be
/// below `coef.len() · CHUNK` (as [`store_records4`]).
#[inline(always)]
pub(super) unsafe fn sweep_records<V: Wide>(
    g: &Lanes<'_>,
    coef: &mut [[i32; CHUNK]],
    records: (&[u32], &[i32]),
    u: i32,
    out: &mut [f32],
) -> bool {
    let chunks = out.len().div_ceil(CHUNK);
    if g.degree != 3 || chunks * 4 > coef.len() {
        return false;
    }
    let c = coef.as_mut_ptr();
    let pending = Cubic {
        slots: records.0,
        coef: records.1,
        next: 0,
        ahead: 0,
        values: c.cast::<i32>(),
    };
    // SAFETY: `V`'s instructions and AVX2 are this function's precondition; `c` is the
    // `coef.len() ≥ 4 · chunks` chunks `sweep_n` reads, from a mutable borrow held for the
    // call, through which `pending` writes (positions bounded by the caller).
    unsafe { sweep_u::<V, 4, _>(g, c, u, out, pending) }
}

/// Chunks a part of [`sweep_records`]: 16, 8 KiB of cubic coefficients, the next part's
/// records' lines asked for before this part's are stored. At 100 000 channels parts of 8 or
/// 16 chunks with that prefetch took 0.82–0.85 of the time of storing every record first,
/// without it 0.90–0.94 and parts of 32 chunks without it 1.02–1.06 (the stores of a part's
/// records waiting on their lines; paired rounds in one process, session 19).
const PART: usize = 16;

/// What a sweep stores before each part of its lanes: a frame's records or nothing.
pub(super) trait Pending {
    /// Whether there is anything to store (a sweep in parts; else in one).
    const PARTS: bool;
    /// Stores every record not stored yet whose position is below `limit`.
    ///
    /// # Safety
    /// As the sweep's (the implementor's own conditions).
    unsafe fn until(&mut self, limit: usize);
}

/// A sweep without records.
pub(super) struct NoRecords;

impl Pending for NoRecords {
    const PARTS: bool = false;
    #[inline(always)]
    unsafe fn until(&mut self, _: usize) {}
}

/// A cubic frame's records, ordered by position, stored into `values` (see
/// [`sweep_records`]'s safety conditions).
struct Cubic<'a> {
    slots: &'a [u32],
    coef: &'a [i32],
    next: usize,
    ahead: usize,
    values: *mut i32,
}

impl Pending for Cubic<'_> {
    const PARTS: bool = true;
    #[inline(always)]
    unsafe fn until(&mut self, limit: usize) {
        // The next part's records' lines asked for now, so they arrive while this part plays.
        let next = limit.saturating_add(PART * 4 * CHUNK);
        while let Some(&at) = self.slots.get(self.ahead) {
            if at as usize >= next {
                break;
            }
            for k in 0..4 {
                // SAFETY: a prefetch is a hint that never faults and whose line the program
                // never observes, so any address is sound; `wrapping_add` forms it without
                // claiming it is in `values`. SSE is in every x86-64 CPU.
                unsafe {
                    _mm_prefetch::<_MM_HINT_T0>(
                        self.values
                            .cast::<i8>()
                            .wrapping_add((at as usize + k * CHUNK) * core::mem::size_of::<i32>()),
                    );
                }
            }
            self.ahead += 1;
        }
        while let Some(&at) = self.slots.get(self.next) {
            if at as usize >= limit {
                break;
            }
            let Some(c) = self.coef.get(4 * self.next..4 * self.next + 4) else {
                break;
            };
            // SAFETY: `at + 3 · CHUNK` is inside `values` (`sweep_records`' caller), `c` four
            // numbers; AVX2 is the caller's guarantee.
            unsafe { store_record(self.values.add(at as usize), c.as_ptr()) }
            self.next += 1;
        }
    }
}

/// [`sweep`] for `N` orders: `u` a constant for a small group (`each_u`), the loop for the
/// group's size.
///
/// # Safety
/// The CPU must support `V`'s instructions; `c` must point to `out.len().div_ceil(CHUNK) · N`
/// readable chunks; `pending`'s conditions.
#[inline(always)]
unsafe fn sweep_u<V: Wide, const N: usize, P: Pending>(
    g: &Lanes<'_>,
    c: *const [i32; CHUNK],
    u: i32,
    out: &mut [f32],
    pending: P,
) -> bool {
    let large = g.chunks * N * CHUNK * 4 >= super::super::pass::PREFETCH_UNTIL;
    // SAFETY (each call): this function's preconditions.
    unsafe {
        match (large, u) {
            (false, _) => super::each_u!(
                u,
                U => sweep_n::<V, N, false, P>(g, c, U, out, pending),
                sweep_n::<V, N, false, P>(g, c, u, out, pending)
            ),
            (true, 0) => sweep_n::<V, N, true, P>(g, c, 0, out, pending),
            (true, 1) => sweep_n::<V, N, true, P>(g, c, 1, out, pending),
            (true, _) => sweep_n::<V, N, true, P>(g, c, u, out, pending),
        }
    }
}

/// [`sweep`]'s loop for `N` orders at `u`: with `LARGE`, each chunk's scale (its lanes' where
/// it is [`super::MIXED`]) and the prefetch of [`run`]; without, every lane's own scale. With
/// records (`P::PARTS`), in parts of [`PART`] chunks, each part's records stored first.
///
/// # Safety
/// The CPU must support `V`'s instructions; `c` must point to `out.len().div_ceil(CHUNK) · N`
/// readable chunks (the ones `g.coef` would give, which is not read); `pending`'s conditions.
#[inline(always)]
unsafe fn sweep_n<V: Wide, const N: usize, const LARGE: bool, P: Pending>(
    g: &Lanes<'_>,
    c: *const [i32; CHUNK],
    u: i32,
    out: &mut [f32],
    mut pending: P,
) -> bool {
    let whole = out.len() / CHUNK;
    let chunks = out.len().div_ceil(CHUNK);
    let (true, Some(scale), Some(lanes), Some(broadcast)) = (
        g.start == 0,
        g.scale.get(..chunks),
        g.lane_scale.get(..chunks),
        g.broadcast.get(..chunks),
    ) else {
        return false;
    };
    let (s, l) = (scale.as_ptr(), lanes.as_ptr());
    let b = broadcast.as_ptr();
    let o = out.as_mut_ptr();
    // SAFETY: `c` is `chunks · N` chunks (`[i32; CHUNK]`, contiguous, the caller's
    // guarantee), `scale` and `broadcast` `chunks` f32 each and `lanes` `chunks` chunks of
    // f32, all checked just above, and `out` holds `whole · CHUNK` f32 (`whole ≤ chunks`).
    // Chunk `i < whole` reads orders `k < N` at `c + i·N + k`, its scale at `s + i` or
    // `b + i`, its lanes' at `l + i`, and writes `o + i·CHUNK ..+ CHUNK`; the partial chunk
    // `whole < chunks` reads the same of chunk `whole` and writes `o + whole·CHUNK ..+ rest`
    // (`rest = out.len() − whole·CHUNK`, the end of `out`): whole registers below `full ≤
    // rest`, then lanes `0 .. rest − full` of the register at `full` by `store_lanes_part`,
    // which accesses no lane past them. Each register access covers `V::LANES` numbers at `j`
    // (a multiple of `V::LANES`, a divisor of `CHUNK`, below `CHUNK`) of one such chunk, so
    // every load and store stays inside the borrowed slices (unaligned: no alignment is
    // needed). `V`'s instructions and `pending`'s conditions are the caller's guarantee.
    unsafe {
        let w = weights::<V>(u);
        let part = if P::PARTS { PART } else { whole.max(1) };
        let mut from = 0;
        while from < whole {
            let to = (from + part).min(whole);
            pending.until(to * N * CHUNK);
            if LARGE {
                for i in from..to {
                    let (c, o) = (c.add(i * N), o.add(i * CHUNK));
                    prefetch::<N>(c.cast());
                    let sc = *s.add(i);
                    if sc > super::MIXED {
                        chunk_scaled::<V, N>(c, w, sc, o);
                    } else {
                        chunk_lanes::<V, N>(c, w, l.add(i), o, CHUNK);
                    }
                }
            } else {
                // Two chunks a step (the loop's own instructions once per 64 lanes), each
                // times the scale broadcast to it (1 in a mixed chunk, whose lanes are scaled
                // below).
                for i in (from..to - (to - from) % 2).step_by(2) {
                    chunk_scaled::<V, N>(c.add(i * N), w, *b.add(i), o.add(i * CHUNK));
                    let i = i + 1;
                    chunk_scaled::<V, N>(c.add(i * N), w, *b.add(i), o.add(i * CHUNK));
                }
                if (to - from) % 2 == 1 {
                    let i = to - 1;
                    chunk_scaled::<V, N>(c.add(i * N), w, *b.add(i), o.add(i * CHUNK));
                }
            }
            from = to;
        }
        pending.until(usize::MAX);
        if whole < chunks {
            // Only the registers that hold lanes of `out`, the last one masked.
            let rest = out.len() - whole * CHUNK;
            let (c, l, o) = (
                c.add(whole * N),
                l.add(whole).cast::<f32>(),
                o.add(whole * CHUNK),
            );
            let full = rest - rest % V::LANES;
            for j in (0..full).step_by(V::LANES) {
                let load = |k: usize| V::load(c.add(k).cast::<i32>().add(j));
                value::<V, N>(load, w).store_lanes(l.add(j), o.add(j));
            }
            if full < rest {
                let load = |k: usize| V::load(c.add(k).cast::<i32>().add(full));
                value::<V, N>(load, w).store_lanes_part(l.add(full), o.add(full), rest - full);
            }
        }
    }
    if !LARGE {
        // The mixed whole chunks' lanes, played times 1 above, times their own scales:
        // `((v as f32) · 1) · s` is `(v as f32) · s` to the bit (the product by 1 is exact).
        for &m in g.mixed {
            let m = m as usize;
            let (true, Some(dst), Some(own)) = (
                m < whole,
                out.get_mut(m * CHUNK..(m + 1) * CHUNK),
                lanes.get(m),
            ) else {
                break;
            };
            let (d, own) = (dst.as_mut_ptr(), own.as_ptr());
            // SAFETY: `dst` and `own` are `CHUNK` f32 each (a slice of `out` and a chunk of
            // scales, checked just above); each access covers `V::LANES` of them at `j` (a
            // multiple of `V::LANES`, a divisor of `CHUNK`, below `CHUNK`). `V`'s instructions
            // are the caller's guarantee.
            unsafe {
                for j in (0..CHUNK).step_by(V::LANES) {
                    V::rescale(d.add(j), own.add(j));
                }
            }
        }
    }
    true
}

/// The registers of a chunk of `N` orders at `c` (the basis `w` at `u`), each lane times
/// `scale` (one broadcast), into `o .. o + CHUNK`.
///
/// # Safety
/// The CPU must support `V`'s instructions; `c .. c + N` must be readable chunks,
/// `o .. o + CHUNK` writable.
#[inline(always)]
unsafe fn chunk_scaled<V: Wide, const N: usize>(
    c: *const [i32; CHUNK],
    w: Weights<V>,
    scale: f32,
    o: *mut f32,
) {
    // SAFETY: each access covers `V::LANES` numbers at `j` (a multiple of `V::LANES`, a
    // divisor of `CHUNK`, below `CHUNK`) of one of the chunks the caller vouches for.
    unsafe {
        let sv = V::splat_scale(scale);
        for j in (0..CHUNK).step_by(V::LANES) {
            let load = |k: usize| V::load(c.add(k).cast::<i32>().add(j));
            value::<V, N>(load, w).store_scaled(sv, o.add(j));
        }
    }
}

/// The registers of a chunk of `N` orders at `c` (the basis `w` at `u`) from lane 0 up
/// to lane `lanes` (`CHUNK`: all), each lane times its own scale (the chunk of scales at `l`),
/// into `o ..`.
///
/// # Safety
/// The CPU must support `V`'s instructions; `c .. c + N` and `l` must be readable chunks,
/// `o .. o + CHUNK` writable.
#[inline(always)]
unsafe fn chunk_lanes<V: Wide, const N: usize>(
    c: *const [i32; CHUNK],
    w: Weights<V>,
    l: *const [f32; CHUNK],
    o: *mut f32,
    lanes: usize,
) {
    let l = l.cast::<f32>();
    // SAFETY: each access covers `V::LANES` numbers at `j` (a multiple of `V::LANES`, a
    // divisor of `CHUNK`, below `CHUNK`) of one of the chunks the caller vouches for.
    unsafe {
        for j in (0..CHUNK).step_by(V::LANES).take_while(|&j| j < lanes) {
            let load = |k: usize| V::load(c.add(k).cast::<i32>().add(j));
            value::<V, N>(load, w).store_lanes(l.add(j), o.add(j));
        }
    }
}

/// Records of 4 orders (`fixed32::LeanRecords`): record `r`'s numbers `coef[4r .. 4r + 4]`
/// stored at `values[slots[r] + k · CHUNK]` for `k < 4` (a cubic group's chunked layout),
/// by one 128-bit load and four 32-bit stores (`vmovd`, `vpextrd`) a record where the scalar
/// loop loads and stores each number: the same four integers in the same places. With `P`,
/// each record's stores are preceded by a prefetch of the four lines of the record
/// [`RECORDS_AHEAD`] records on (hints: the same stores).
///
/// # Safety
/// The CPU must support AVX2 (the function is compiled with it); `coef` must hold at least
/// `4 · slots.len()` numbers and every `slots[r] + 3 · CHUNK` must be below `values.len()`.
#[inline(always)]
pub(super) unsafe fn store_records4<const P: bool>(
    slots: &[u32],
    coef: &[i32],
    values: &mut [i32],
) {
    let v = values.as_mut_ptr();
    let ask = |at: u32| {
        for k in 0..4 {
            // SAFETY: a prefetch is a hint that never faults and whose line the program never
            // observes, so any address is sound; `wrapping_add` forms it without claiming it
            // is in `values`. SSE, which `_mm_prefetch` needs, is in every x86-64 CPU.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(
                    v.cast::<i8>()
                        .wrapping_add((at as usize + k * CHUNK) * core::mem::size_of::<i32>()),
                );
            }
        }
    };
    if P {
        slots.iter().take(RECORDS_AHEAD).for_each(|&at| ask(at));
    }
    let mut ahead = slots.iter().skip(RECORDS_AHEAD);
    let mut store = |at: u32, c: *const i32| {
        if P {
            if let Some(&next) = ahead.next() {
                ask(next);
            }
        }
        // SAFETY: `c` is record `r`'s `coef[4r ..]` with `r < slots.len()` (inside `coef` by
        // the caller's length, 4 numbers) and `at = slots[r]`: the writes `values[at + k ·
        // CHUNK]`, `k ≤ 3`, are below `values.len()` by the caller's bound on `at`; unaligned
        // accesses need no alignment. AVX2 (so SSE4.1's `pextrd`) is the caller's guarantee.
        unsafe { store_record(v.add(at as usize), c) }
    };
    // Four records a step: the loop's own instructions once per four (session 15).
    let steps = slots.chunks_exact(4);
    let rest = steps.remainder();
    let coef_steps = coef.chunks_exact(16);
    let coef_rest = coef_steps.remainder();
    for (at, c) in steps.zip(coef_steps) {
        let c = c.as_ptr();
        for (k, &at) in at.iter().enumerate() {
            // `4k + 4 ≤ 16`: inside the step's numbers.
            store(at, c.wrapping_add(4 * k));
        }
    }
    for (&at, c) in rest.iter().zip(coef_rest.chunks_exact(4)) {
        store(at, c.as_ptr());
    }
}

/// One cubic record: the four numbers at `c` stored at `p`, `p + CHUNK`, `p + 2·CHUNK` and
/// `p + 3·CHUNK` by one 128-bit load and four 32-bit stores (`vmovd`, `vpextrd`).
///
/// # Safety
/// The CPU must support AVX2 (SSE4.1's `pextrd`); `c .. c + 4` readable, the four positions
/// writable (unaligned accesses need no alignment).
#[inline(always)]
unsafe fn store_record(p: *mut i32, c: *const i32) {
    // SAFETY: the caller's guarantees.
    unsafe {
        let x = _mm_loadu_si128(c.cast());
        *p = _mm_cvtsi128_si32(x);
        *p.add(CHUNK) = _mm_extract_epi32::<1>(x);
        *p.add(2 * CHUNK) = _mm_extract_epi32::<2>(x);
        *p.add(3 * CHUNK) = _mm_extract_epi32::<3>(x);
    }
}

/// Records between a record's prefetch and its stores in [`store_records4`] (as
/// `records::store_chunked`'s).
const RECORDS_AHEAD: usize = 16;

/// How far ahead of the chunk being played [`prefetch`] reaches, in bytes.
const AHEAD: usize = 4096;

/// Asks for the lines [`AHEAD`] bytes past a chunk of `N` orders at `c` (one hint a 64-byte
/// line).
///
/// The i32 loops prefetch at every size from `pass::PREFETCH_FROM`, unlike the f32 lanes,
/// which stop at `pass::PREFETCH_UNTIL`: for the fixed bank at 10^6 channels, leaving it out
/// past that size, or `prefetcht1` / `prefetchnta` instead, measured no gain (paired rounds in
/// one process, docs/benchmarks-history.md, *Fixed bank at 10^6 channels: prefetch (session 17)*).
#[inline(always)]
fn prefetch<const N: usize>(c: *const i8) {
    for line in (0..N * CHUNK * 4).step_by(64) {
        // SAFETY: a prefetch is a hint that never faults and whose line the program never
        // observes, so any address is sound; `wrapping_add` forms it without claiming it is
        // in the chunks' allocation. SSE, which `_mm_prefetch` needs, is in every x86-64 CPU.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(c.wrapping_add(AHEAD + line)) };
    }
}

/// The Newton basis `B_1(u)`, `B_2(u)`, `B_3(u)` ([`newton_basis`]), each in every lane of a
/// register (`B_0 = 1` needs none).
pub(super) type Weights<V> = (V, V, V);

/// [`Weights`] at `u`.
///
/// # Safety
/// The CPU must support `V`'s instructions.
#[inline(always)]
unsafe fn weights<V: Wide>(u: i32) -> Weights<V> {
    let w = newton_basis(u);
    // SAFETY: `V`'s instructions are the caller's guarantee.
    unsafe { (V::splat(w[1]), V::splat(w[2]), V::splat(w[3])) }
}

/// `fixed32::lane` on a register of lanes: the orders `c(k)` (`N ≤ 4` of them) at the basis
/// `w`, `(c_3·B_3 + c_2·B_2) + (c_1·B_1 + c_0)` by `vpmulld` and `vpaddd` (wrapping products
/// and sums, the ring's operations: the integer of `newton_i32` in any order). Three products
/// side by side and three sums for a cubic, no shift: the Horner form with finer orders this
/// replaced took the same products one after another and an arithmetic shift, 9 vector
/// operations a register against 8 (the shift and `vpmulld` share port 0 on Intel cores with
/// 512-bit registers, which bound the loop: docs/benchmarks-history.md, *Fixed bank: Newton
/// lanes (session 18)*).
///
/// # Safety
/// The CPU must support `V`'s instructions; `c` must be sound to call for every `k < N`.
#[inline(always)]
unsafe fn value<V: Wide, const N: usize>(c: impl Fn(usize) -> V, w: Weights<V>) -> V {
    let (w1, w2, w3) = w;
    // SAFETY: `V`'s instructions are the caller's guarantee.
    unsafe {
        if N >= 4 {
            let high = c(3).mul(w3).add(c(2).mul(w2));
            c(1).mul(w1).add(c(0)).add(high)
        } else if N == 3 {
            c(2).mul(w2).add(c(1).mul(w1).add(c(0)))
        } else if N == 2 {
            c(1).mul(w1).add(c(0))
        } else {
            c(0)
        }
    }
}

/// [`whole_chunks`] with AVX2 registers where the CPU has AVX2 (for the tests: `None`
/// otherwise).
#[cfg(test)]
pub(super) fn whole_chunks_avx2(g: &Lanes<'_>, u: i32, out: &mut [f32]) -> Option<usize> {
    // SAFETY: AVX2 is detected first.
    std::is_x86_feature_detected!("avx2").then(|| unsafe { whole_chunks::<__m256i>(g, u, out) })
}

/// [`whole_chunks`] with AVX-512 registers where the CPU has AVX-512F (for the tests: `None`
/// otherwise).
#[cfg(test)]
#[rustversion::since(1.89)]
#[clippy::msrv = "1.89"]
pub(super) fn whole_chunks_avx512(g: &Lanes<'_>, u: i32, out: &mut [f32]) -> Option<usize> {
    // SAFETY: AVX-512F is detected first.
    std::is_x86_feature_detected!("avx512f").then(|| unsafe { whole_chunks::<__m512i>(g, u, out) })
}

/// Without AVX-512 intrinsics in the compiler: `None`.
#[cfg(test)]
#[rustversion::before(1.89)]
pub(super) fn whole_chunks_avx512(_: &Lanes<'_>, _: i32, _: &mut [f32]) -> Option<usize> {
    None
}
