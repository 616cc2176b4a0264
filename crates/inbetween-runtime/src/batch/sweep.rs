//! The f32 Horner pass of a group whose lanes are one run of channels from its first slot (the straight frame's common case), straight into the caller's row: one counted loop over steps of four chunks, then single chunks, then the last partial chunk through a stack chunk — lane for lane the operations of `pass::walk`, so the same bits.
//!
//! `pass::walk` serves every start and both kinds of lanes; from slot 0 with whole-chunk
//! steps it paid ~2 instructions a step for its output iterator's end test and ~100 a call of
//! setup and dispatch (`horner::Lanes`, the start inside a chunk, the chunk-by-chunk rest).
//! Here the two arrays are zipped in steps of one size each, the degree is matched once per
//! call, and the caller's run is the output (docs/benchmarks-history.md, *Bank bookkeeping at 1 000
//! channels (session 10)*).

use super::horner::CHUNK;

/// Chunks per step of the loop: four AVX2 vectors, independent Horner chains that keep the
/// multiplier busy (as `horner::step(CHUNK)`).
#[cfg(all(feature = "std", target_arch = "x86_64"))]
const STEP: usize = 4;

/// Horner's rule at `t` on each of a chunk's `CHUNK` lanes (orders `c[0..N]`, lowest first):
/// `v = c[N−1]; v = v · t + c[k]` for `k = N − 2 … 0`, multiplies and adds rounded apart (no
/// fused multiply-add), as `horner::horner`; `pass::walk`'s f32 kernel too.
#[inline(always)]
pub(super) fn chunk<const N: usize>(c: &[[f32; CHUNK]; N], t: f32, out: &mut [f32; CHUNK]) {
    for (m, o) in out.iter_mut().enumerate() {
        let mut v = c[N - 1][m];
        for k in (0..N - 1).rev() {
            v = v * t + c[k][m];
        }
        *o = v;
    }
}

/// The values of lanes `0 .. out.len()` of a group of `N` orders (`coef`: chunk after chunk,
/// each its `N` orders, `horner::chunked_index`) at `t` into `out`. `coef` shorter than the
/// chunks `out` needs (a broken invariant of the group) writes nothing.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[inline(always)]
fn sweep_n<const N: usize>(coef: &[[f32; CHUNK]], t: f32, out: &mut [f32]) {
    let whole = out.len() / CHUNK;
    if coef.len() < out.len().div_ceil(CHUNK) * N {
        debug_assert!(false, "{} lanes past {} chunks", out.len(), coef.len() / N);
        return;
    }
    let steps = whole / STEP;
    let (head, tail) = out.split_at_mut(whole * CHUNK);
    let (c_steps, c_rest) = coef.split_at(steps * STEP * N);
    let (o_steps, o_rest) = head.split_at_mut(steps * STEP * CHUNK);
    for (c, o) in c_steps
        .chunks_exact(STEP * N)
        .zip(o_steps.chunks_exact_mut(STEP * CHUNK))
    {
        let (mut c, mut o) = (c, o);
        for _ in 0..STEP {
            let (Some((orders, c_next)), Some((values, o_next))) = (
                c.split_first_chunk::<N>(),
                o.split_first_chunk_mut::<CHUNK>(),
            ) else {
                break;
            };
            chunk(orders, t, values);
            (c, o) = (c_next, o_next);
        }
    }
    let mut c = c_rest;
    for o in o_rest.chunks_exact_mut(CHUNK) {
        let (Some((orders, next)), Ok(values)) = (c.split_first_chunk::<N>(), o.try_into()) else {
            break;
        };
        chunk(orders, t, values);
        c = next;
    }
    if let (false, Some((orders, _))) = (
        tail.is_empty(),
        c_rest
            .get((whole % STEP) * N..)
            .and_then(|c| c.split_first_chunk::<N>()),
    ) {
        let mut values = [0.0f32; CHUNK];
        chunk(orders, t, &mut values);
        if let Some(v) = values.get(..tail.len()) {
            tail.copy_from_slice(v);
        }
    }
}

/// [`sweep_n`] for `degree + 1` orders (only through [`sweep_avx2`]: the lanes play
/// through `pass::walk` without AVX2).
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[inline(always)]
pub(super) fn sweep(degree: usize, coef: &[[f32; CHUNK]], t: f32, out: &mut [f32]) {
    match degree {
        0 => sweep_n::<1>(coef, t, out),
        1 => sweep_n::<2>(coef, t, out),
        2 => sweep_n::<3>(coef, t, out),
        3 => sweep_n::<4>(coef, t, out),
        4 => sweep_n::<5>(coef, t, out),
        5 => sweep_n::<6>(coef, t, out),
        6 => sweep_n::<7>(coef, t, out),
        7 => sweep_n::<8>(coef, t, out),
        _ => sweep_n::<9>(coef, t, out),
    }
}

/// [`sweep`] compiled for AVX2 (8 lanes a vector; no FMA, so the same arithmetic).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
pub(super) unsafe fn sweep_avx2(degree: usize, coef: &[[f32; CHUNK]], t: f32, out: &mut [f32]) {
    sweep(degree, coef, t, out);
}
