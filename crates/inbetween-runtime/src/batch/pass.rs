//! One evaluation pass over a run of a lane group's chunked coefficient arrays (`horner::chunked_index`), the walk shared by the f32 and the i32 Horner lanes: whole chunks straight into the output, the last partial chunk through a stack chunk, a run starting inside a chunk with that chunk's part, then as from a boundary.

use super::horner::{step, LaneWord};

/// The arithmetic of one kind of lanes of `N` orders, per chunk of `W` lanes (`T::CHUNK`:
/// `horner::CHUNK` for the f32 lanes, `horner::INT_CHUNK` for the i32 ones), with what it reads
/// per chunk besides the coefficients (`Aux`: the i32 lanes' scales; nothing for f32 lanes).
pub(crate) trait Kernel<T, const N: usize, const W: usize> {
    /// Per-chunk data from a chunk on, chunk after chunk.
    type Aux: Iterator;

    /// Which loop walks the whole chunks (the same chunks in the same order either way):
    /// `false`, the orders' `chunks_exact`, the output chunks and `Aux` zipped (the f32
    /// lanes: ~3 instructions a chunk of bookkeeping under callgrind); `true`, each chunk's
    /// orders split off as an array (the i32 lanes, whose zipped loop kept ~20 instructions a
    /// chunk: a multiplication per address and per-chunk checks the compiler did not hoist;
    /// ~14 split off).
    const SPLIT: bool;

    /// [`Kernel::Aux`] from chunk `first`.
    fn aux(&self, first: usize) -> Self::Aux;

    /// The values of every lane of a chunk (its `N` orders `c`, its `aux`) into `out`.
    fn chunk(&self, aux: Aux<Self, T, N, W>, c: &[[T; W]; N], out: &mut [f32; W]);

    /// The values of lanes `from .. from + out.len()` of a chunk into `out`: the same
    /// operations per lane as [`Kernel::chunk`], so the same bits.
    fn part(&self, aux: Aux<Self, T, N, W>, c: &[[T; W]; N], from: usize, out: &mut [f32]);
}

/// What a kernel reads per chunk besides the coefficients.
pub(crate) type Aux<K, T, const N: usize, const W: usize> =
    <<K as Kernel<T, N, W>>::Aux as Iterator>::Item;

/// The values of lanes `start .. start + out.len()` of a group of `chunks` chunks of `N`
/// orders (`coef`, chunk after chunk) into `out`, through `kernel`. From a chunk boundary:
/// whole chunks in one pass, then the last partial chunk evaluated whole (its padding lanes
/// exist) into a stack chunk and copied; from inside a chunk (a group's later runs of
/// channels), the run's part of that chunk first ([`Kernel::part`]), then the same from the
/// next chunk boundary. Lanes past the group, or `coef` not `N · chunks` long (a broken
/// invariant of the group), write nothing.
#[inline(always)]
pub(crate) fn walk<T: LaneWord, K: Kernel<T, N, W>, const N: usize, const W: usize>(
    lanes: (&[[T; W]], usize, usize),
    out: &mut [f32],
    kernel: &K,
) {
    walk_with::<T, K, N, W, false>(lanes, out, kernel);
}

/// [`walk`] with software prefetch: each step of the whole-chunk loop first asks for the
/// lines [`AHEAD`] bytes past its own ([`prefetch`]), for a group whose coefficients pass
/// [`PREFETCH_FROM`] bytes (the caller decides, once per group). The same chunks in the same
/// order, the same values.
#[inline(always)]
pub(crate) fn walk_prefetch<T: LaneWord, K: Kernel<T, N, W>, const N: usize, const W: usize>(
    lanes: (&[[T; W]], usize, usize),
    out: &mut [f32],
    kernel: &K,
) {
    walk_with::<T, K, N, W, true>(lanes, out, kernel);
}

/// [`walk`], prefetching with `P` (the step form only: the `SPLIT` loop and single chunks
/// never prefetch).
#[inline(always)]
fn walk_with<T: LaneWord, K: Kernel<T, N, W>, const N: usize, const W: usize, const P: bool>(
    (coef, chunks, start): (&[[T; W]], usize, usize),
    mut out: &mut [f32],
    kernel: &K,
) {
    let fits = W == T::CHUNK && start + out.len() <= chunks * W && coef.len() == chunks * N;
    debug_assert!(fits, "lanes {start}+{} of {chunks} chunks", out.len());
    if !fits {
        return;
    }
    let mut first = start / W;
    if start % W != 0 {
        let Some(rest) = first_part((coef, start), out, kernel) else {
            return;
        };
        (out, first) = (rest, first + 1);
    }
    let whole = out.len() / W;
    let (head, tail) = out.split_at_mut(whole * W);
    let body = coef.get(first * N..).unwrap_or(&[]);
    if K::SPLIT {
        let mut body = body;
        for (d, a) in head.chunks_exact_mut(W).zip(kernel.aux(first)) {
            let Some((c, rest)) = body.split_first_chunk::<N>() else {
                break;
            };
            body = rest;
            if let Ok(d) = d.try_into() {
                kernel.chunk(a, c, d);
            }
        }
    } else {
        // `step(W)` chunks a step (independent Horner chains keep the multiplier busy), then
        // the rest one by one: the same chunks in the same order.
        let steps = whole / step(W) * step(W);
        let (body_steps, body_rest) = body.split_at((steps * N).min(body.len()));
        let (head_steps, head_rest) = head.split_at_mut(steps * W);
        let mut aux = kernel.aux(first);
        let main = (body_steps, head_steps);
        match step(W) {
            4 => step_chunks::<T, K, N, W, 4, P>(main, &mut aux, kernel),
            2 => step_chunks::<T, K, N, W, 2, P>(main, &mut aux, kernel),
            _ => step_chunks::<T, K, N, W, 1, P>(main, &mut aux, kernel),
        }
        step_chunks::<T, K, N, W, 1, false>((body_rest, head_rest), &mut aux, kernel);
    }
    let from = (first + whole) * N;
    let last = coef.get(from..from + N).unwrap_or(&[]);
    let aux = kernel.aux(first + whole).next();
    if let (false, Ok(c), Some(a)) = (tail.is_empty(), <&[[T; W]; N]>::try_from(last), aux) {
        let mut values = [0.0f32; W];
        kernel.chunk(a, c, &mut values);
        if let Some(v) = values.get(..tail.len()) {
            tail.copy_from_slice(v);
        }
    }
}

/// [`Kernel::chunk`] over the whole chunks of `out`, `S` chunks a step (`coef` holds `N`
/// orders per chunk and may run past `out`'s chunks; `aux` gives each chunk's data in turn).
/// Two iterators stepped by hand: `Iterator::zip` of them is left as a call (42 instructions
/// a pass under callgrind). With `P`, each step first prefetches the lines [`AHEAD`] bytes
/// past its own ([`prefetch`]).
#[inline(always)]
fn step_chunks<
    T,
    K: Kernel<T, N, W>,
    const N: usize,
    const W: usize,
    const S: usize,
    const P: bool,
>(
    (coef, out): (&[[T; W]], &mut [f32]),
    aux: &mut K::Aux,
    kernel: &K,
) {
    let mut dst = out.chunks_exact_mut(S * W);
    for c in coef.chunks_exact(S * N) {
        let Some(d) = dst.next() else {
            break;
        };
        if P {
            prefetch(c);
        }
        // The step's chunks split off as arrays, one after the other (no index checks).
        let (mut c, mut d) = (c, d);
        for _ in 0..S {
            let (Some((orders, c_rest)), Some((values, d_rest)), Some(a)) = (
                c.split_first_chunk::<N>(),
                d.split_first_chunk_mut::<W>(),
                aux.next(),
            ) else {
                break;
            };
            kernel.chunk(a, orders, values);
            (c, d) = (c_rest, d_rest);
        }
    }
}

/// [`walk`] from lane `start` inside a chunk: the lanes of `out` in that chunk by
/// [`Kernel::part`]; the rest of `out` (`None` when nothing is left, or the chunk is missing).
#[inline(always)]
fn first_part<'o, T, K: Kernel<T, N, W>, const N: usize, const W: usize>(
    (coef, start): (&[[T; W]], usize),
    out: &'o mut [f32],
    kernel: &K,
) -> Option<&'o mut [f32]> {
    let (chunk, lo) = (start / W, start % W);
    let (dst, rest) = out.split_at_mut((W - lo).min(out.len()));
    let orders = coef.get(chunk * N..chunk * N + N)?;
    let c = <&[[T; W]; N]>::try_from(orders).ok()?;
    kernel.part(kernel.aux(chunk).next()?, c, lo, dst);
    (!rest.is_empty()).then_some(rest)
}

/// Bytes of coefficients from which a group plays through [`walk_prefetch`]: a group's part
/// of an epoch block larger than this is mostly read from beyond the core's L2 cache (the
/// blocks of 100 000 cubic lanes are 1.6 MB, with a 0.4 MB row, on a machine of 2 MB of L2 a
/// core), where the hardware's prefetch of the one interleaved stream runs too little ahead
/// (docs/benchmarks-history.md, *Memory at 100 000 channels (session 9)*). Smaller groups play
/// through [`walk`], instruction for instruction as before.
#[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
pub(crate) const PREFETCH_FROM: usize = 512 << 10;

/// Bytes of coefficients from which a group plays through [`walk`] again (`sweep`'s loop),
/// without software prefetch: a part of 16 MB (10^6 cubic lanes) is read from memory, not L3,
/// where `prefetcht0` (which fills L1 and holds its few miss buffers) fetched less than the
/// L2's own prefetcher: without it the bank took 2.33 instead of 3.07 ns of CPU a
/// channel-frame at 10^6 channels (docs/benchmarks-history.md, *The bank at 10^6 channels (session
/// 13)*). From the same size the records prefetch their lines (`records::PREFETCH_FROM`).
/// The i32 lanes' loop (`fixed32::x86`) keeps its prefetch past this size: leaving it out
/// measured no gain there (docs/benchmarks-history.md, *Fixed bank at 10^6 channels: prefetch (session 17)*).
pub(crate) const PREFETCH_UNTIL: usize = 4 << 20;

/// How far ahead of the step being played [`prefetch`] reaches, in bytes.
const AHEAD: usize = 4096;

/// Asks the CPU to bring into the cache the lines [`AHEAD`] bytes past each of `c`'s lines
/// (one hint per 64 bytes; nothing on other architectures).
#[inline(always)]
fn prefetch<T>(c: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        let ahead = c.as_ptr().cast::<i8>().wrapping_add(AHEAD);
        for line in (0..core::mem::size_of_val(c)).step_by(64) {
            // SAFETY: `_mm_prefetch` needs SSE (every x86_64 CPU has it); a prefetch is a hint
            // that never faults and whose line the program never observes, so any address is
            // sound, and `wrapping_add` forms it without claiming it is in `c`'s allocation.
            #[allow(unsafe_code, unused_unsafe)]
            unsafe {
                use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(line));
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = c;
}
